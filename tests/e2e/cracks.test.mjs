// The cracks lesson: the notched plate and the particle cloud load with sane readouts (the notch is one
// crack with one front; MLS shape functions beside the crack are a partition of unity; visibility cuts
// the weight across the crack), non-positive strength, c_prop and κ are refused with the reason while the
// plate keeps running (Ω_min too), the plate cracks at the notch tip under load, a ductile plate does
// plastic work, an eager Ω_min splits particles, and dragging the cloud's crack redraws the weights.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, readNumber, canvasStats, waitForText } from './harness.mjs';

const env = useBrowser();

async function openLesson(query = '') {
  const opened = await openPage(env, `cracks.html${query}`);
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  return opened;
}

test('the plate and the cloud load with sane readouts', async () => {
  // Not pulled, the plate stays uncracked: the notch is its only crack, with one front.
  const { page, context, problems } = await openLesson('?pull=0');
  await waitForText(page, '#readout-cracks', /^1 \/ 1$/);
  assert.equal(await page.locator('#readout-first-crack').textContent(), '—');
  const t0 = await readNumber(page, '#readout-sim-time');
  await page.waitForFunction((t) => Number.parseFloat(document.getElementById('readout-sim-time').textContent) > t, t0, { timeout: 10_000 });
  const stress = await readNumber(page, '#readout-max-stress');
  assert.ok(stress >= 0 && stress < 1, `σ₁/σ_t = ${stress} before any crack`);
  // Across the crack from the chosen particle: visibility gives exactly 0, transparency at most the uncut weight.
  const weights = (await page.locator('#readout-probe-weight').textContent()).match(/^(\S+) \/ (\S+) \((\S+)\)$/);
  assert.ok(weights, 'the probe weights are shown');
  const [visibility, transparency, uncut] = weights.slice(1).map(Number);
  assert.equal(visibility, 0);
  assert.ok(transparency >= 0 && transparency <= uncut && uncut > 0, weights[0]);
  // The shape functions with the modified weights still sum to one at the probe.
  const unity = (await page.locator('#readout-unity').textContent()).split(' / ').map(Number);
  assert.ok(unity.every((e) => e < 1e-9), `|ΣΦ − 1| = ${unity}`);
  assert.ok((await canvasStats(page, '#scene')).ink > 1000, 'the plate is drawn');
  assert.ok((await canvasStats(page, '#cloud')).ink > 1000, 'the cloud is drawn');
  assert.deepEqual(problems, []);
  await context.close();
});

test('non-positive strength, c_prop and κ are refused with the reason while the plate runs on', async () => {
  const { page, context, problems } = await openLesson();
  await page.fill('#param-strength', '0');
  assert.match(await page.locator('#param-strength-error').textContent(), /Must be between 100 and 50000/);
  await page.fill('#param-c_prop', '-1');
  assert.match(await page.locator('#param-c_prop-error').textContent(), /Must be between 0.01 and 20/);
  await page.fill('#param-kappa', '0');
  assert.match(await page.locator('#param-kappa-error').textContent(), /Must be between 0.01 and 10/);
  await page.fill('#param-omega_min', '0');
  assert.match(await page.locator('#param-omega_min-error').textContent(), /Must be between 0.5 and 20/);
  await page.fill('#param-omega_min', '-3');
  assert.match(await page.locator('#param-omega_min-error').textContent(), /Must be between 0.5 and 20/);
  const t = await readNumber(page, '#readout-sim-time');
  await page.waitForFunction((t0) => Number.parseFloat(document.getElementById('readout-sim-time').textContent) > t0, t, { timeout: 10_000 });
  // A URL's bad value is refused too, and named.
  const bad = await openLesson('?c_prop=0');
  await waitForText(bad.page, '#notices', /c_prop/);
  await bad.context.close();
  const badOmega = await openLesson('?omega_min=0');
  await waitForText(badOmega.page, '#notices', /omega_min/);
  await badOmega.context.close();
  assert.deepEqual(problems, []);
  await context.close();
});

test('pulled harder, the plate cracks first at the notch tip', async () => {
  const { page, context, problems } = await openLesson('?pull=0.05');
  const first = await waitForText(page, '#readout-first-crack', /^notch front at step \d+, 0\.\d+ a from the notch tip/, 60_000);
  assert.ok(first.length > 0);
  await page.waitForFunction(() => {
    const [cracks] = document.getElementById('readout-recomputed').textContent.split(' / ').map(Number);
    return Number.isFinite(cracks);
  });
  const total = Number((await page.locator('#readout-recomputed').textContent()).split(' / ')[1]);
  assert.ok(total > 0, 'the crack recomputed some moment matrices');
  assert.deepEqual(problems, []);
  await context.close();
});

test('dragging the crack in the cloud figure redraws the weights', async () => {
  const { page, context, problems } = await openLesson();
  await page.click('#pause');
  await page.locator('#cloud').scrollIntoViewIfNeeded();
  const box = await page.locator('#cloud').boundingBox();
  // The crack's right end starts at (0.15, 0.05) in the top-left panel, whose view spans [−1.15, 1.15]².
  const panel = box.width / 2;
  const x = box.x + ((0.15 + 1.15) / 2.3) * panel;
  const y = box.y + ((1.15 - 0.05) / 2.3) * (box.height / 2);
  const before = await canvasStats(page, '#cloud');
  const weightBefore = await page.locator('#readout-probe-weight').textContent();
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + panel * 0.25, y - panel * 0.1, { steps: 4 });
  await page.mouse.up();
  const after = await canvasStats(page, '#cloud');
  assert.notEqual(before.hash, after.hash, 'the figure changed');
  assert.notEqual(weightBefore, await page.locator('#readout-probe-weight').textContent());
  assert.deepEqual(problems, []);
  await context.close();
});

test('a ductile plate flows before it cracks, and an eager Ω_min splits particles beside the cracks', async () => {
  const ductile = await openLesson('?material=ductile&pull=0.05');
  assert.equal(await ductile.page.locator('#material-select').inputValue(), 'ductile');
  await ductile.page.waitForFunction(() => {
    const [work] = document.getElementById('readout-plastic').textContent.split(' / ').map(Number.parseFloat);
    return work > 0;
  }, undefined, { timeout: 60_000 });
  assert.deepEqual(ductile.problems, []);
  await ductile.context.close();
  const eager = await openLesson('?omega_min=13&pull=0.05');
  await eager.page.waitForFunction(() => {
    const [splits, inserted] = document.getElementById('readout-resampled').textContent.split(' / ').map(Number);
    return splits > 0 && inserted >= splits;
  }, undefined, { timeout: 60_000 });
  const particles = await eager.page.locator('#readout-resampled').textContent();
  assert.match(particles, /^\d+ \/ \d+ \/ \d+$/);
  assert.deepEqual(eager.problems, []);
  await eager.context.close();
});
