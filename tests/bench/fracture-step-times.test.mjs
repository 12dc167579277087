// The 3D demo's fracture scenes (struck slab, notched bar, ductile bar) stepped by the CPU worker in the browser, as a user opens them, while
// they crack (issue 18's target: ≥ 5 000 phyxels at ≥ 60 steps/s on two threads, cracks included).
// Not a test: run by hand on a quiet machine after `./dev build`, and copy the table into
// docs/benchmarks.md:
//
//   cd tests && PHYXEL_WEBGPU=0 node --test --test-concurrency=1 bench/fracture-step-times.test.mjs
//
// Each page runs until a crack has grown (the fracture readouts, body[data-fracture]: the notch is a
// crack from the start), then its "Steps
// per second" readout (the worker's steps counted by the page over the last second) is read 8 times a
// second apart, with the cracks and fragments at each reading; each scene is also measured uncut
// (`uncut`: the same body and load, nothing cracks), read from the same simulated time as the cut one. The JSON goes to stdout and to $OUT (default
// /tmp/fracture-step-times.json). CASES (comma-separated page paths) overrides the pages measured.
import { test } from 'node:test';
import { useBrowser } from '../e2e/harness.mjs';
import { measurePage, spread } from './sampler.mjs';

const env = useBrowser();
/** The slab of 6 480 phyxels (36 × 5 × 36) and the notched bar of 6 413 (53 × 11 × 11), as phyxel-bench
 * fracture3d, and the ductile bar on the notched bar's lattice. */
const SCENES = ['struck-slab&resolution=18', 'notched-bar&resolution=22', 'ductile-bar&resolution=22'].map((s) => `phyxels.html?scene=${s}`);
/**
 * The uncut twin of a scene: σ_t at the control's largest, 10⁹ Pa (nothing cracks); the notched bar's
 * grips' load, a fraction of σ_t, scaled down to hold the same 2 kPa (the default 1 × 2 kPa).
 */
const uncut = (path) => path + (path.includes('notched-bar') ? '&strength=1e9&load=2e-6' : '&strength=1e9');
const PAGES = process.env.CASES?.split(',').filter(Boolean) ?? SCENES.flatMap((p) => [p, uncut(p)]);
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
    grown: fracture.grown,
    fragments: fracture.fragments,
    threads: text('readout-thread-work'),
    backend: text('backend-badge'),
  };
};

for (const path of PAGES) {
  test(path, async () => {
    const uncutOf = SCENES.find((scene) => path !== scene && path === uncut(scene)) ?? null;
    const time = crackedAt.get(uncutOf) ?? 0.2;
    const row = await measurePage(env, path, {
      // The uncut twin: until the cut one's time at its first reading; the cut one: until a crack grew.
      until: (t) => (t === null ? JSON.parse(document.body.dataset.fracture ?? '{}').grown > 0 : window.phyxelDemo.demo.time() >= t),
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
