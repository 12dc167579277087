// Served without COOP/COEP (a host that cannot send them): no SharedArrayBuffer, so the bench page —
// and every page of the CPU solver — runs the single-threaded build, and says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, benchReport } from './harness.mjs';

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
