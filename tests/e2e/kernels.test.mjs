// The kernels lesson: the figure responds to its controls and the live check shows ∫W dV = 1 for every
// kernel in every dimension.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, readNumber } from './harness.mjs';

const env = useBrowser();
const KERNELS = ['cubic', 'wendland', 'quintic', 'poly6', 'spiky'];

async function openLesson() {
  const opened = await openPage(env, 'kernels.html');
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  return opened;
}

test('every kernel integrates to one in 1D, 2D and 3D', async () => {
  const { page, context, problems } = await openLesson();
  for (const dimension of ['1', '2', '3']) {
    await page.selectOption('#dimension-select', dimension);
    for (const kernel of KERNELS) {
      const integral = await readNumber(page, `#readout-integral-${kernel}`);
      assert.ok(Math.abs(integral - 1) < 1e-3, `${kernel} in ${dimension}D: ∫W dV = ${integral}`);
    }
  }
  assert.equal(await page.locator('.plot canvas').count(), 3);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the support radius scales the peak as h^-d and bad input is refused', async () => {
  const { page, context, problems } = await openLesson();
  const peak3d = await readNumber(page, '#readout-peak');
  assert.ok(Math.abs(peak3d - 8 / Math.PI) < 1e-3, `cubic W(0) in 3D with h = 1: ${peak3d}`);
  await page.fill('#param-h', '2');
  assert.ok(Math.abs((await readNumber(page, '#readout-peak')) - peak3d / 8) < 1e-3, 'halving the peak thrice in 3D');
  await page.selectOption('#dimension-select', '1');
  assert.ok(Math.abs((await readNumber(page, '#readout-peak')) - 4 / 3 / 2) < 1e-3, '1D: σ₁/h = (4/3)/2');
  await page.fill('#param-h', '-1');
  assert.match(await page.locator('#param-h-error').textContent(), /Must be between 0\.01 and 10/);
  assert.ok(Math.abs((await readNumber(page, '#readout-peak')) - 4 / 3 / 2) < 1e-3, 'the last valid h stays');
  // Hiding a kernel hides its readout.
  await page.click('#kernel-spiky');
  assert.equal(await page.locator('#readout-integral-spiky').isVisible(), false);
  assert.deepEqual(problems, []);
  await context.close();
});
