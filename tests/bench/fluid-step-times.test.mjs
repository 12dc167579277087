// The fluid pages' time per step in the browser, as a user opens them (not a test: run by hand on a
// quiet machine after `./dev build`, and copy the table into docs/benchmarks.md):
//
//   cd tests && PHYXEL_WEBGPU=0 node --test --test-concurrency=1 bench/fluid-step-times.test.mjs
//
// Each page is left 6 s, then its "Time per step" readout (the worker's own clock, averaged over the
// last second) is read 8 times a second apart, and on the 3D page the steps taken (steps/s between
// readings: what the page achieved); the JSON goes to stdout and to $OUT (default
// /tmp/fluid-step-times.json), with the date and the machine's load. CASES (comma-separated page
// paths) overrides the pages measured.
import { test } from 'node:test';
import { useBrowser } from '../e2e/harness.mjs';
import { measurePage, spread } from './sampler.mjs';

const env = useBrowser();
const PAGES = process.env.CASES?.split(',').filter(Boolean) ?? [
  ...['wcsph', 'dfsph', 'pbf'].map((s) => `sph-fluids-3d.html?across=29&solver=${s}`),
  ...['wcsph', 'dfsph', 'pbf'].map((s) => `sph-fluids.html?across=71&solver=${s}`),
];
const OUT = process.env.OUT ?? '/tmp/fluid-step-times.json';
const rows = [];

for (const path of PAGES) {
  test(path, async () => {
    await measurePage(env, path, {
      settleMs: 6000,
      read: () => {
        const text = (id) => document.getElementById(id)?.textContent;
        return {
          ms: Number.parseFloat(text('readout-step-time')),
          solver: text('readout-solver'),
          iterations: text('readout-iterations'),
          time: text('readout-sim-time'),
          backend: text('backend-badge'),
          // The 3D page's steps taken so far (window.phyxelFluid), and when they were read.
          steps: window.phyxelFluid?.steps,
          wall: performance.now(),
        };
      },
      summarise: (samples) => ({
        ...spread(samples.map((s) => s.ms), 'ms'),
        // What the page achieved: steps taken between readings over the wall-clock time between them
        // (the readout's ms is the worker's time per step, which a page that waits for its frames
        // between steps does not reach).
        ...(samples[0].steps === undefined
          ? {}
          : {
              ...spread(samples.slice(1).map((s, i) => (1000 * (s.steps - samples[i].steps)) / (s.wall - samples[i].wall)), 'steps_per_s'),
              // Over all the readings: a page that draws slowly receives the worker's states seldom,
              // so a one-second interval may hold none or several.
              steps_per_s: (1000 * (samples.at(-1).steps - samples[0].steps)) / (samples.at(-1).wall - samples[0].wall),
            }),
      }),
      rows,
      out: OUT,
    });
  });
}
