// From equation to code: a lesson's Code line opens the shipped source in source.html with the named
// function highlighted and scrolled into view; a file parameter outside the shipped list gets a clear
// message and nothing is fetched for it; the viewer reads on a phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage } from './harness.mjs';

const env = useBrowser();

/** The viewer's highlighted item: the defining line's text, how many lines, and whether it is on screen. */
function target(page) {
  return page.evaluate(() => {
    const line = document.querySelector('.source-line.is-target-line');
    const box = line?.getBoundingClientRect();
    return {
      text: line?.textContent ?? null,
      lines: document.querySelectorAll('.source-line.is-target').length,
      onScreen: !!box && box.top >= 0 && box.bottom <= innerHeight,
      total: document.querySelectorAll('.source-line').length,
    };
  });
}

test('a Code line of the PBD lesson opens PbdSystem::step highlighted in the shipped source', async () => {
  const { page, context, problems } = await openPage(env, 'pbd.html');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  const codeLines = await page.locator('.theory .code-ref').count();
  const blocks = await page.locator('.theory h2').count();
  assert.ok(codeLines >= blocks, `${codeLines} Code lines for ${blocks} theory blocks`);

  const link = page.locator('.theory .code-ref a[data-code="crates/phyxel/src/lessons/pbd.rs#PbdSystem::step"]').first();
  assert.ok(await link.isVisible());
  await Promise.all([page.waitForURL(/source\.html\?/), link.click()]);
  await page.waitForSelector('body[data-ready="true"]');

  const found = await target(page);
  assert.match(found.text ?? '', /pub fn step\(/, 'the defining line is highlighted');
  assert.ok(found.lines >= 20, `the whole function is highlighted (${found.lines} lines)`);
  assert.ok(found.onScreen, 'the function is scrolled into view');
  assert.ok(found.total > 200, `the whole file is shown with numbered lines (${found.total})`);
  assert.match(await page.title(), /PbdSystem::step/);
  assert.match(await page.locator('#source-meta').textContent(), /crates\/phyxel\/src\/lessons\/pbd\.rs.*plain text.*PbdSystem::step: lines \d+–\d+/);
  // The plain-text fallback is the shipped file itself.
  const raw = await page.locator('#source-meta a', { hasText: 'plain text' }).getAttribute('href');
  const response = await page.request.get(new URL(raw, page.url()).href);
  assert.equal(response.status(), 200);
  assert.match(await response.text(), /pub fn step\(&mut self, dt: f64/);
  assert.equal(await page.locator('#source-status .notice').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a WGSL entry point is found the same way', async () => {
  const { page, context, problems } = await openPage(env, 'source.html?file=shaders/gather_forces.wgsl&symbol=gather_forces');
  await page.waitForSelector('body[data-ready="true"]');
  const found = await target(page);
  assert.match(found.text ?? '', /^fn gather_forces\(/);
  assert.ok(found.lines >= 5);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a bad file parameter gets a clear message, the list of shipped files, and no fetch', async () => {
  const cases = [
    ['../Cargo.toml', /not a plain path/],
    ['crates/phyxel/../../Cargo.toml', /not a plain path/],
    ['/etc/passwd', /not a relative path/],
    ['https://example.com/x.rs', /not a relative path/],
    ['Cargo.toml', /not one of the source files shipped with this site/],
  ];
  for (const [file, message] of cases) {
    const { page, context, problems } = await openPage(env, `source.html?file=${encodeURIComponent(file)}`);
    const fetched = [];
    page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
    await page.waitForSelector('body[data-ready="true"]');
    const notice = page.locator('#source-status .notice.error');
    assert.match(await notice.textContent(), message, file);
    assert.equal(await page.locator('#source-code').isVisible(), false, `${file}: no code shown`);
    assert.ok((await page.locator('#source-files a').count()) > 50, `${file}: the shipped files are listed`);
    assert.deepEqual(fetched.filter((path) => path.startsWith('/source/') && path !== '/source/files.json'), [], file);
    assert.deepEqual(problems, [], file);
    await context.close();
  }
});

test('a symbol that is not in the file is named, and the file is still shown', async () => {
  const { page, context, problems } = await openPage(env, 'source.html?file=crates/phyxel/src/lessons/pbd.rs&symbol=no_such_function');
  await page.waitForSelector('body[data-ready="true"]');
  assert.match(await page.locator('#source-status .notice.warning').textContent(), /“no_such_function” is not defined in crates\/phyxel\/src\/lessons\/pbd\.rs/);
  assert.ok((await page.locator('.source-line').count()) > 200);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the viewer reads on a phone: the page does not scroll sideways, the code scrolls in its box', async () => {
  const { page, context, problems } = await openPage(
    env,
    'source.html?file=crates/phyxel/src/meshless/elasticity.rs&symbol=phyxel_stress',
    { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true },
  );
  await page.waitForSelector('body[data-ready="true"]');
  const widths = await page.evaluate(() => ({
    page: document.scrollingElement.scrollWidth,
    code: document.getElementById('source-code').scrollWidth,
    box: document.getElementById('source-code').clientWidth,
  }));
  assert.ok(widths.page <= 360, `the page is ${widths.page} px wide`);
  assert.ok(widths.code > widths.box, 'long lines scroll inside the code box');
  assert.ok((await target(page)).onScreen);
  assert.deepEqual(problems, []);
  await context.close();
});
