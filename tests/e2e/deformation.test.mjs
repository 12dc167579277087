// The deformation-gradient lesson: MLS recovers the map exactly, rotations have no Green strain but a
// Cauchy strain, and bad input is refused at its control.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage } from './harness.mjs';

const env = useBrowser();

const matrix = async (page, id) => JSON.parse(await page.getAttribute(`#${id}`, 'data-values'));
const close = (a, b, tolerance = 1e-9) => a.every((x, i) => Math.abs(x - b[i]) < tolerance);

test('F equals T, and a rotation has no Green strain but a Cauchy strain of cos θ − 1', async () => {
  const { page, context, problems } = await openPage(env, 'deformation.html');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  await page.selectOption('#preset-select', 'all');
  const [map, f] = [await matrix(page, 'matrix-map'), await matrix(page, 'matrix-f')];
  assert.ok(close(map, f), `T = ${map}, F = ${f}`);
  assert.ok(!close(map, [1, 0, 0, 1]), 'the preset changed the map');
  await page.selectOption('#preset-select', 'rotation');
  assert.ok(close(await matrix(page, 'matrix-green'), [0, 0, 0, 0]), 'no Green strain under rotation');
  assert.ok(close(await matrix(page, 'matrix-cauchy'), [-1, 0, 0, -1]), 'Cauchy strain cos 90° − 1 = −1');
  assert.equal(await page.locator('#matrix-cauchy .katex').count(), 1, 'typeset');
  assert.deepEqual(problems, []);
  await context.close();
});

test('bad input is refused and the last valid map stays', async () => {
  const { page, context, problems } = await openPage(env, 'deformation.html');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  await page.fill('#param-sx', '1.5');
  const before = await matrix(page, 'matrix-f');
  await page.fill('#param-sx', '0');
  assert.match(await page.locator('#param-sx-error').textContent(), /Must be between 0\.25 and 2/);
  await page.fill('#param-shear', 'lots');
  assert.match(await page.locator('#param-shear-error').textContent(), /not a number/);
  assert.ok(close(await matrix(page, 'matrix-f'), before));
  assert.ok(close(before, [1.5, 0, 0, 1]));
  assert.deepEqual(problems, []);
  await context.close();
});
