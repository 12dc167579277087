// Served without COOP/COEP (a host that cannot send them): no SharedArrayBuffer, so the bench page and
// the 3D demo run the single-threaded build of the CPU solver's worker, and say why.
// PHYXEL_WEBGPU: both — the 3D demo served without isolation, with and without a GPU backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, benchReport, readNumber, solverChosen } from './harness.mjs';

const env = useBrowser({ isolation: false });

test('not isolated: the single-threaded build runs the same cube without errors', async () => {
  const { page, context, problems } = await openPage(env, 'bench.html?n=8&steps=20&run=1');
  const report = await benchReport(page);
  assert.equal(report.cross_origin_isolated, false);
  assert.equal(report.worker_build.build, 'single');
  assert.match(report.worker_build.reason, /not cross-origin isolated/);
  const cpu = report.runs.filter((run) => run.backend === 'cpu');
  assert.deepEqual(cpu.map((run) => [run.build, run.threads]), [['single', 1]]);
  assert.ok(cpu[0].steps_per_s > 0);
  assert.match(await page.locator('#bench-status').textContent(), /single CPU build: the page is not cross-origin isolated/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('not isolated: the 3D demo steps in the single-threaded worker, the thread control says why it is off', async () => {
  const { page, context, problems } = await openPage(env, 'phyxels.html');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  await solverChosen(page);
  await page.selectOption('#param-backend', 'cpu');
  await page.waitForSelector('body[data-cpu-worker="single"]', { timeout: 30_000 });
  await page.waitForFunction(() => /Web Worker, single-threaded build \(the page is not cross-origin isolated/.test(document.getElementById('readout-solver').textContent));
  assert.equal(await page.locator('#param-threads').isDisabled(), true);
  assert.match(await page.locator('#param-threads').locator('xpath=ancestor::div[contains(@class, "control")]').getAttribute('title'), /Only the threaded build runs several: the page is not cross-origin isolated/);
  assert.match(await page.locator('#backend-badge').textContent(), /Runs on CPU: Web Worker, single-threaded build/);
  // The worker's steps reach the page: the cube falls from 0.7 m and lands near 0.4 m.
  const end = Date.now() + 30_000;
  let top = await readNumber(page, '#readout-height');
  while (Date.now() < end && !(top < 0.42)) {
    await page.waitForTimeout(200);
    top = await readNumber(page, '#readout-height');
  }
  assert.ok(top > 0.3 && top < 0.42, `top at ${top} m`);
  // Steps keep coming (the rate is sampled 4 times a second: poll it).
  await page.waitForFunction(() => Number.parseFloat(document.getElementById('readout-steps-per-second').textContent) > 0, null, { timeout: 10_000 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('not isolated: each 2D lesson steps in its lesson worker, and the page’s thread never loads a solver', async () => {
  for (const lesson of ['pbd', 'time-integration', 'explicit-implicit', 'neighbourhood-search']) {
    // A high-density screen: the worker draws at the page's pixel ratio (lines and dots scale with it).
    const { page, context, problems } = await openPage(env, `${lesson}.html`, { deviceScaleFactor: 2 });
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    const t0 = await readNumber(page, '#readout-sim-time');
    await page.waitForFunction((t) => Number.parseFloat(document.getElementById('readout-sim-time').textContent) > t + 0.1, t0, { timeout: 10_000 });
    assert.match(await page.locator('#backend-badge').textContent(), /Runs on the CPU \(WebAssembly, in a worker\)/, lesson);
    const worker = page.workers().find((w) => w.url().endsWith('/js/workers/lesson-worker.js'));
    assert.ok(worker, `${lesson}: no lesson worker among ${page.workers().map((w) => w.url())}`);
    assert.equal(await worker.evaluate(() => self.devicePixelRatio), 2, `${lesson}: the worker draws at the page's pixel ratio`);
    // Each global loads what it runs: the solver's wasm is in the worker's resources, not the page's.
    const wasm = (entries) => entries.filter((name) => name.endsWith('/phyxel-web_bg.wasm'));
    const resources = () => performance.getEntriesByType('resource').map((entry) => entry.name);
    assert.equal(wasm(await worker.evaluate(resources)).length, 1, `${lesson}: the worker loaded the solver`);
    assert.deepEqual(wasm(await page.evaluate(resources)), [], `${lesson}: the page's thread loaded the solver`);
    assert.deepEqual(problems, []);
    await context.close();
  }
});
