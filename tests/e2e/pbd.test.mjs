// The PBD/XPBD lesson: the classic cloth runs with 4592 constraints and the examples site's timing,
// the solver switch swaps stiffness for compliance, the pointer drags particles, bad input is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, readNumber, canvasStats, waitForText, settled } from './harness.mjs';

const env = useBrowser();

async function openLesson() {
  const opened = await openPage(env, 'pbd.html');
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  return opened;
}

test('the classic cloth runs, is timed step by step, and XPBD swaps stiffness for compliance', async () => {
  const { page, context, problems } = await openLesson();
  await waitForText(page, '#readout-counts', /^1200 \/ 4592$/);
  const t0 = await readNumber(page, '#readout-sim-time');
  await page.waitForTimeout(1200);
  assert.ok((await readNumber(page, '#readout-sim-time')) > t0 + 0.3, 'the cloth simulation advances');
  assert.match(await page.locator('#readout-classic-time').textContent(), /^\d.*ms$/);
  assert.ok((await readNumber(page, '#readout-constraint-error')) >= 0);
  assert.ok(await page.locator('#param-stiffness').isVisible());
  assert.equal(await page.locator('#param-compliance').isVisible(), false);
  await page.selectOption('#solver-select', 'xpbd');
  assert.ok(await page.locator('#param-compliance').isVisible());
  assert.equal(await page.locator('#param-stiffness').isVisible(), false);
  await page.selectOption('#scene-select', 'rope');
  await waitForText(page, '#readout-counts', /^21 \/ 20$/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the pointer drags a particle and bad input is refused', async () => {
  const { page, context, problems } = await openLesson();
  await page.click('#pause');
  await settled(page);
  const box = await page.locator('#scene').boundingBox();
  // The cloth's top-left pinned corner sits at world (0, 0): find it in the middle of the upper left.
  const before = await canvasStats(page, '#scene');
  const corner = await page.evaluate(() => {
    const canvas = document.getElementById('scene');
    const { data, width } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    for (let i = 0; i < data.length; i += 4) if (data[i] > 200 && data[i + 1] < 60 && data[i + 2] < 60) return [(i / 4) % width, Math.floor(i / 4 / width)];
    return null;
  });
  assert.ok(corner, 'a red pinned particle is drawn');
  const scale = box.width / (await page.evaluate(() => document.getElementById('scene').width));
  const [x, y] = [box.x + corner[0] * scale + 2, box.y + corner[1] * scale + 2];
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + 120, y + 80, { steps: 5 });
  await page.click('#step');
  await settled(page);
  await page.mouse.up();
  const after = await canvasStats(page, '#scene');
  assert.notEqual(before.hash, after.hash, 'dragging moved the cloth');
  await page.fill('#param-iterations', '0');
  assert.match(await page.locator('#param-iterations-error').textContent(), /Must be between 1 and 100/);
  await page.fill('#param-stiffness', '2');
  assert.match(await page.locator('#param-stiffness-error').textContent(), /Must be between 0 and 1/);
  await page.click('#pause');
  const t = await readNumber(page, '#readout-sim-time');
  await page.waitForTimeout(400);
  assert.ok((await readNumber(page, '#readout-sim-time')) > t, 'still running with the last valid values');
  assert.deepEqual(problems, []);
  await context.close();
});

test('where workers cannot run the lesson, it runs on the page’s thread and says why', async () => {
  const noWorkers = () => {
    window.Worker = function Worker() {
      throw new Error('workers are switched off');
    };
  };
  const { page, context, problems } = await openPage(env, 'pbd.html', {}, { initScript: noWorkers });
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  await waitForText(page, '#readout-counts', /^1200 \/ 4592$/);
  const t0 = await readNumber(page, '#readout-sim-time');
  await page.waitForFunction((t) => Number.parseFloat(document.getElementById('readout-sim-time').textContent) > t + 0.1, t0, { timeout: 10_000 });
  await waitForText(page, '#backend-badge', /Runs on the CPU \(WebAssembly, on the page's thread: the lesson worker could not run — workers are switched off\)/);
  assert.equal(page.workers().length, 0);
  assert.ok((await canvasStats(page, '#scene')).ink > 0, 'the cloth is drawn');
  assert.deepEqual(problems, []);
  await context.close();
});
