// The site shell: the index lists the lessons by section, every lesson page loads cleanly, equations
// are typeset from the shipped KaTeX, and nothing is fetched from another origin.
// PHYXEL_WEBGPU: both — every page's footer badge must say whether WebGPU is there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, expectBackendBadge } from './harness.mjs';

const env = useBrowser();

test('index lists the lessons by section and reports WebGPU', async () => {
  const { page, context, problems } = await openPage(env, 'index.html');
  const sections = await page.locator('.lesson-section h2').allTextContents();
  assert.deepEqual(sections, ['Time integration', 'Kernels & approximation', 'Deformable solids', 'Fluids', 'For teachers', 'For developers']);
  const links = await page.locator('.lesson-list a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  for (const lesson of ['time-integration.html', 'kernels.html', 'deformation.html', 'pbd.html', 'neighbourhood-search.html', 'sph-approximation.html', 'mls-gradient.html', 'phyxels.html', 'sph-fluids.html', 'sph-fluids-3d.html', 'embedding.html', 'bench.html']) assert.ok(links.includes(lesson), links.join(', '));
  await expectBackendBadge(page);
  assert.deepEqual(problems, []);
  await context.close();
});

test('every lesson linked from the index loads without errors, typesets its theory, and embeds', async () => {
  const { page: index, context } = await openPage(env, 'index.html');
  const links = await index
    .locator('.lesson-section:not([aria-labelledby="sec-teach"]):not([aria-labelledby="sec-develop"]) .lesson-list a')
    .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert.ok(links.length >= 1);
  for (const link of links) {
    const { page, problems, context: lessonContext } = await openPage(env, link);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    // The shared template: title, controls, readouts, references; simulations add a canvas,
    // Restart / Pause / Step and the time readouts, figures their plots.
    assert.ok((await page.locator('h1').textContent()).length > 0);
    const kind = await page.locator('body').getAttribute('data-kind');
    const parts = {
      simulation: ['canvas#scene', '#restart', '#pause', '#step', '#readout-sim-time', '#readout-step-time'],
      figure: ['.plot canvas, canvas#scene'],
    }[kind];
    assert.ok(parts, `${link}: unknown page kind ${kind}`);
    for (const selector of [...parts, '#controls', '.readouts', '.references li', '#copy-link', '#embed-button']) {
      assert.ok(await page.locator(selector).first().isVisible(), `${link}: ${selector} missing`);
    }
    const typeset = await page.locator('.katex').count();
    assert.ok(typeset >= 10, `${link}: only ${typeset} equations typeset`);
    assert.equal(await page.locator('.katex-error').count(), 0, `${link}: KaTeX reported an error`);
    await expectBackendBadge(page);
    await page.waitForTimeout(500);
    assert.deepEqual(problems, [], link);
    await lessonContext.close();

    // The same demo embedded (what embed.html opens): no site chrome, the demo and its panel only.
    const embedded = await openPage(env, `embed.html?demo=${link.replace(/\.html$/, '')}`, { viewport: { width: 900, height: 500 } });
    await embedded.page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    assert.equal(await embedded.page.locator('.site-header').isVisible(), false, `${link} embedded: header hidden`);
    assert.equal(await embedded.page.locator('.theory').isVisible(), false, `${link} embedded: theory hidden`);
    assert.ok(await embedded.page.locator(parts[0]).first().isVisible(), `${link} embedded: ${parts[0]} shown`);
    assert.ok(await embedded.page.locator('#controls').isVisible(), `${link} embedded: controls shown`);
    await embedded.page.waitForTimeout(300);
    assert.deepEqual(embedded.problems, [], `${link} embedded`);
    await embedded.context.close();
  }
  await context.close();
});
