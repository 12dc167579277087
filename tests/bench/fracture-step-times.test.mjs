// The 3D demo's fracture scenes stepped by the CPU worker in the browser, as a user opens them, while
// they crack (issue 18's target: ≥ 5 000 phyxels at ≥ 60 steps/s on two threads, cracks included).
// Not a test: run by hand on a quiet machine after `./dev build`, and copy the table into
// docs/benchmarks.md:
//
//   cd tests && PHYXEL_WEBGPU=0 node --test --test-concurrency=1 bench/fracture-step-times.test.mjs
//
// Each page runs until its first crack (the fracture readouts, body[data-fracture]), then its "Steps
// per second" readout (the worker's steps counted by the page over the last second) is read 8 times a
// second apart, with the cracks and fragments at each reading; each scene is also measured uncut
// (σ_t at the control's largest, 10⁹ Pa: the same body and load, nothing cracks), read after the
// same simulated time the cut one needed to crack. The JSON goes to stdout and to $OUT (default
// /tmp/fracture-step-times.json). CASES (comma-separated page paths) overrides the pages measured.
import { test } from 'node:test';
import { useBrowser } from '../e2e/harness.mjs';
import { measurePage, spread } from './sampler.mjs';

const env = useBrowser();
/** The slab of 6 480 phyxels (36 × 5 × 36) and the bar of 6 413 (53 × 11 × 11), as phyxel-bench fracture3d. */
const SCENES = ['phyxels.html?scene=struck-slab&resolution=18', 'phyxels.html?scene=notched-bar&resolution=22'];
const UNCUT = '&strength=1e9';
const PAGES = process.env.CASES?.split(',').filter(Boolean) ?? SCENES.flatMap((p) => [p, p + UNCUT]);
const OUT = process.env.OUT ?? '/tmp/fracture-step-times.json';
const rows = [];
/** The simulated time at each scene's first crack, for its uncut twin. */
const crackedAt = new Map();

const read = () => {
  const text = (id) => document.getElementById(id)?.textContent;
  const fracture = JSON.parse(document.body.dataset.fracture ?? '{}');
  return {
    steps_per_s: Number.parseFloat(text('readout-steps-per-second')),
    phyxels: Number.parseFloat(text('readout-phyxels')),
    time: window.phyxelDemo.demo.time(),
    cracks: fracture.cracks,
    fragments: fracture.fragments,
    threads: text('readout-thread-work'),
    backend: text('backend-badge'),
  };
};

for (const path of PAGES) {
  test(path, async () => {
    const uncutOf = path.endsWith(UNCUT) ? path.slice(0, -UNCUT.length) : null;
    const time = crackedAt.get(uncutOf) ?? 0.2;
    const row = await measurePage(env, path, {
      // The uncut twin: until the cut one's time at its first crack; the cut one: until that crack.
      until: (t) => (t === null ? JSON.parse(document.body.dataset.fracture ?? '{}').cracks > 0 : window.phyxelDemo.demo.time() >= t),
      untilArg: uncutOf ? time : null,
      untilMs: 600_000,
      read,
      summarise: (samples) => spread(samples.map((s) => s.steps_per_s), 'steps_per_s'),
      rows,
      out: OUT,
    });
    if (!uncutOf) crackedAt.set(path, row.first.time);
  });
}
