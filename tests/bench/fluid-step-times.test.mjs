// The fluid pages' time per step in the browser, as a user opens them (not a test: run by hand on a
// quiet machine after `./dev build`, and copy the table into docs/benchmarks.md):
//
//   cd tests && PHYXEL_WEBGPU=0 node --test --test-concurrency=1 bench/fluid-step-times.test.mjs
//
// Each page is left 6 s, then its "Time per step" readout (the worker's own clock, averaged over the
// last second) is read 8 times a second apart; the JSON goes to stdout and to $OUT (default
// /tmp/fluid-step-times.json), with the date and the machine's load. CASES (comma-separated page
// paths) overrides the pages measured.
import { test } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import { useBrowser, openPage } from '../e2e/harness.mjs';

const env = useBrowser();
const PAGES = process.env.CASES?.split(',').filter(Boolean) ?? [
  ...['wcsph', 'dfsph', 'pbf'].map((s) => `sph-fluids-3d.html?across=29&solver=${s}`),
  ...['wcsph', 'dfsph', 'pbf'].map((s) => `sph-fluids.html?across=71&solver=${s}`),
];
const OUT = process.env.OUT ?? '/tmp/fluid-step-times.json';
const rows = [];

for (const path of PAGES) {
  test(path, async () => {
    const { page, context } = await openPage(env, path);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 120_000 });
    await page.waitForTimeout(6000);
    const samples = [];
    for (let i = 0; i < 8; i++) {
      await page.waitForTimeout(1000);
      samples.push(
        await page.evaluate(() => {
          const text = (id) => document.getElementById(id)?.textContent;
          return {
            ms: Number.parseFloat(text('readout-step-time')),
            solver: text('readout-solver'),
            iterations: text('readout-iterations'),
            time: text('readout-sim-time'),
            backend: text('backend-badge'),
          };
        }),
      );
    }
    const ms = samples.map((s) => s.ms).filter(Number.isFinite).sort((a, b) => a - b);
    const row = {
      page: path,
      median_ms: ms[ms.length >> 1],
      min_ms: ms[0],
      max_ms: ms[ms.length - 1],
      last: samples.at(-1),
      date: new Date().toISOString(),
      load: os.loadavg()[0],
      cpus: os.cpus().length,
    };
    console.log(JSON.stringify(row));
    rows.push(row);
    fs.writeFileSync(OUT, JSON.stringify(rows, null, 1));
    await context.close();
  });
}
