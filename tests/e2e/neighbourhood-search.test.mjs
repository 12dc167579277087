// The neighbourhood-search lesson: the hash grid agrees with brute force on the page, both are timed,
// clicking picks the query particle, and the controls are validated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, readNumber, waitForText } from './harness.mjs';

const env = useBrowser();

test('the hash grid finds the brute-force neighbours while the particles move', async () => {
  const { page, context, problems } = await openPage(env, 'neighbourhood-search.html');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  const t0 = await readNumber(page, '#readout-sim-time');
  await page.waitForTimeout(800);
  assert.ok((await readNumber(page, '#readout-sim-time')) > t0, 'the particles move');
  assert.equal(await page.locator('#readout-agree').textContent(), 'yes');
  assert.match(await page.locator('#readout-hash-time').textContent(), /ms$/);
  assert.match(await page.locator('#readout-brute-time').textContent(), /× the hash/);
  // 1000 particles in a 2 × 2 box with h = 0.1: about n·πh²/4 ≈ 7.9 neighbours on average (fewer at walls).
  const mean = await readNumber(page, '#readout-mean-neighbours');
  assert.ok(mean > 6 && mean < 8.5, `mean neighbours ${mean}`);
  await page.fill('#param-radius', '0.2');
  await page.waitForTimeout(200);
  assert.ok((await readNumber(page, '#readout-mean-neighbours')) > 3 * mean, 'doubling h quadruples the neighbours');
  assert.equal(await page.locator('#readout-agree').textContent(), 'yes');
  await page.fill('#param-count', '6000');
  // Count and radius changes are made one after another in the worker (the work budget is checked
  // against the radius in force): the new particles arrive after the radius change's search.
  await waitForText(page, '#readout-brute-time', /skipped above 4000/);
  await page.fill('#param-count', '-3');
  assert.match(await page.locator('#param-count-error').textContent(), /Must be between 2 and 20000/);
  const box = await page.locator('#scene').boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  assert.ok((await readNumber(page, '#readout-query-neighbours')) >= 0);
  assert.deepEqual(problems, []);
  await context.close();
});
