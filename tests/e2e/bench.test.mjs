// The bench page on a cross-origin isolated page: the threaded CPU build is chosen, its pool's threads
// all do solver work (the solver's own per-thread counters), every thread count gives bit-for-bit the
// single-threaded result, and the JSON is saved (tests/artifacts/bench-*.json).
// PHYXEL_WEBGPU: both — the bench runs WebGPU with the flag and skips it without.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useBrowser, openPage, benchReport, WEBGPU } from './harness.mjs';

const env = useBrowser();
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');

test('isolated: the threaded build runs the cube on every thread, equal to one thread, and prints JSON', async () => {
  const { page, context, problems } = await openPage(env, 'bench.html?n=12&steps=40&run=1');
  const report = await benchReport(page);
  await mkdir(ARTIFACTS, { recursive: true });
  await writeFile(join(ARTIFACTS, `bench-isolated-webgpu${WEBGPU ? 1 : 0}.json`), JSON.stringify(report, null, 2));
  assert.equal(report.cross_origin_isolated, true);
  assert.equal(report.worker_build.build, 'threaded', report.worker_build.reason);
  const cpu = report.runs.filter((run) => run.backend === 'cpu');
  assert.deepEqual(cpu.map((run) => run.build)[0], 'single');
  const threaded = cpu.filter((run) => run.build === 'threaded');
  const most = threaded.at(-1);
  assert.equal(most.threads, report.hardware_concurrency, 'the largest pool has a thread per processor');
  assert.ok(most.threads >= 2, `this machine offers ${most.threads} thread(s)`);
  // 12³ phyxels × 2 per-phyxel passes (stresses; gather + integration + contacts) × 40 timed steps, each
  // counted once, spread over all the pool's threads.
  assert.equal(most.work_per_thread.length, most.threads);
  assert.equal(most.work_per_thread.reduce((a, b) => a + b, 0), 12 ** 3 * 2 * 40);
  assert.ok(most.work_per_thread.every((work) => work > 0), `work per thread ${most.work_per_thread}`);
  for (const run of cpu) {
    assert.ok(run.max_difference_from_single_thread <= 1e-6, `${run.build} × ${run.threads}: ${run.max_difference_from_single_thread}`);
    assert.ok(run.steps_per_s > 0 && run.neighbour_interactions_per_s > run.phyxel_steps_per_s);
  }
  if (WEBGPU) {
    assert.ok(report.runs.some((run) => run.backend === 'webgpu') || report.skipped.length === 1, JSON.stringify(report.skipped));
  } else {
    // No WebGPU, or (Chromium without the flag) no adapter: said, not run.
    assert.equal(report.runs.filter((run) => run.backend === 'webgpu').length, 0);
    assert.deepEqual(report.skipped.map((skip) => skip.backend), ['webgpu']);
    assert.match(report.skipped[0].reason, /WebGPU|adapter/);
  }
  assert.match(await page.locator('#bench-status').textContent(), /^Done: \d+ runs \(threaded CPU build/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('bad parameters are named at their control and nothing runs', async () => {
  const { page, context, problems } = await openPage(env, 'bench.html?n=1000&steps=ten&run=1');
  await page.waitForFunction(() => document.getElementById('bench-steps-error').textContent !== '');
  assert.equal(await page.locator('#bench-n-error').textContent(), 'must be between 2 and 40');
  assert.equal(await page.locator('#bench-steps-error').textContent(), '“ten” is not a whole number');
  assert.equal(await page.getAttribute('body', 'data-bench'), null);
  assert.deepEqual(problems, []);
  await context.close();
});

test('on a 390 px phone the page does not scroll sideways, with its table and JSON filled', async () => {
  const { page, context, problems } = await openPage(env, 'bench.html?n=4&steps=2&run=1', { viewport: { width: 390, height: 844 }, hasTouch: true });
  await benchReport(page);
  const width = await page.evaluate(() => document.scrollingElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width} px wide`);
  assert.deepEqual(problems, []);
  await context.close();
});
