// The CPU solver worker's own rate in the browser, with nothing drawn beside it: the 3D pages' scenes
// built as the pages build them, then stepped in batches by a threaded worker (2 threads) started on
// the bench page, which has no canvas. Not a test: run by hand after `./dev build`, and copy the table
// into docs/benchmarks.md:
//
//   cd tests && PHYXEL_WEBGPU=0 node --test --test-concurrency=1 bench/worker-rates.test.mjs
//
// Why beside the pages' own readings (bench/fluid-step-times, fracture-step-times, demo-step-times):
// in headless Chromium the pages draw with SwiftShader, a software GPU whose process takes about one of
// a 2-core machine's cores, so the pages' readings measure the worker and the software renderer
// sharing the cores; a machine with a GPU draws without that. Here the worker has the cores to itself.
//
// Each case: the scene's arguments (and, for the 3D demo, its setter calls and Δt) as the page makes
// them at its URL, a few untimed steps, then a number of batches of steps (per case; BATCHES and STEPS
// with CASES), each timed by the worker's clock; steps/s and the simulated time at the end of each
// batch, the median over the batches. The JSON goes to stdout and to $OUT (default
// /tmp/worker-rates.json), with the date and the machine's load.
// CASES (comma-separated) overrides the cases: `fluid:<solver>:<across>` or a phyxels.html query.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, solverChosen, useBrowser } from '../e2e/harness.mjs';
import { record, spread } from './sampler.mjs';

const env = useBrowser();
/** Each case with its batches and steps per batch: the dam break's first ~10 ms (WCSPH) or ~0.1 s
 * (DFSPH); the slab to t ≈ 0.98 s, through the strike and the cracking (t ≈ 0.6–0.9 s on the page);
 * the implicit cube's fall, landing (0.24–1 s) and rest, to 2.75 s. */
const DEFAULT_CASES = [
  ['fluid:wcsph:29', 8, 20],
  ['fluid:dfsph:29', 8, 20],
  ['phyxels.html?scene=struck-slab&resolution=18', 48, 50],
  ['phyxels.html?scene=notched-bar&resolution=22', 40, 50],
  ['phyxels.html?scene=ductile-bar&resolution=22', 40, 50],
  ['phyxels.html?integrator=implicit-euler', 8, 20],
  ['phyxels.html?integrator=implicit-euler&implicitModel=nodal', 8, 20],
];
const CASES = process.env.CASES
  ? process.env.CASES.split(',').filter(Boolean).map((name) => [name, Number(process.env.BATCHES ?? 8), Number(process.env.STEPS ?? 20)])
  : DEFAULT_CASES;
const OUT = process.env.OUT ?? '/tmp/worker-rates.json';
const THREADS = Number(process.env.THREADS ?? 2);
const WARMUP_STEPS = 5;
const rows = [];

/** The 3D demo's scene at `query`, as its page builds it: { args, calls, dt }. */
async function demoScene(query) {
  const { page, context } = await openPage(env, `phyxels.html${query.replace(/^phyxels\.html/, '')}`);
  try {
    await page.waitForSelector('body[data-ready="true"]', { timeout: 120_000 });
    await solverChosen(page);
    await page.selectOption('#param-backend', 'cpu');
    await page.waitForFunction(() => window.phyxelDemo.cpuWorker?.lastRun?.dt > 0, null, { timeout: 60_000 });
    return await page.evaluate(() => {
      const { solver, cpuWorker } = window.phyxelDemo;
      return { args: solver.scene(), calls: solver.settings(), dt: cpuWorker.lastRun.dt };
    });
  } finally {
    await context.close();
  }
}

/** Step `scene` on a worker of the bench page: the batches' { steps, ms, time }. */
function stepOnWorker(page, scene, batches, steps) {
  return page.evaluate(async ({ scene, threads, batches, steps, warmup }) => {
    const { startSolverWorker } = await import('./js/workers/worker-builds.js');
    const worker = await startSolverWorker('threaded', threads);
    try {
      const runs = [];
      if (scene.fluid) {
        const { defaults } = await import('./js/site/controls.js');
        const { table } = await worker.request({ type: 'fluid-parameters' });
        const p = { ...defaults(table), across: scene.across };
        await worker.request({ type: 'fluid-create', args: ['dam-break', scene.solver, p.across, p.xsph, p.iterations, p.sound], colour: 'speed' });
        await worker.request({ type: 'fluid-advance', steps: warmup, colour: 'speed' });
        for (let b = 0; b < batches; b++) {
          const reply = await worker.request({ type: 'fluid-advance', steps, colour: 'speed' });
          runs.push({ steps: reply.steps, ms: reply.ms, time: reply.report.time, particles: reply.particles.length / 4 });
        }
      } else {
        await worker.request({ type: 'create', args: scene.args, calls: scene.calls });
        await worker.request({ type: 'step', dt: scene.dt, n: warmup });
        for (let b = 0; b < batches; b++) {
          const reply = await worker.request({ type: 'step', dt: scene.dt, n: steps });
          if (reply.error) throw new Error(reply.error);
          const { phyxels, fracture } = await worker.request({ type: 'readouts' });
          runs.push({ steps: reply.steps, ms: reply.ms, time: (warmup + (b + 1) * steps) * scene.dt, phyxels, cracks: fracture[0], grown: fracture[1], fragments: fracture[2] });
        }
      }
      return { threads: worker.threads, runs };
    } finally {
      worker.terminate();
    }
  }, { scene, threads: THREADS, batches, steps, warmup: WARMUP_STEPS });
}

for (const [name, batches, steps] of CASES) {
  test(name, async () => {
    const [, solver, across] = name.split(':');
    const scene = name.startsWith('fluid:') ? { fluid: true, solver, across: Number(across) } : await demoScene(name);
    const { page, context } = await openPage(env, 'bench.html');
    try {
      const { threads, runs } = await stepOnWorker(page, scene, batches, steps);
      assert.equal(threads, THREADS);
      const rates = runs.map((r) => (1000 * r.steps) / r.ms);
      // A fracture scene's batches from its first grown crack on (the notched bar's notch is a crack
      // from the start; the readouts' second number counts the cracks that grew).
      const cracking = rates.filter((_, b) => runs[b].grown > 0);
      record(
        {
          case: name,
          threads,
          steps_per_batch: steps,
          ...spread(rates, 'steps_per_s'),
          batches: runs.map((r, b) => ({
            steps_per_s: Number(rates[b].toFixed(1)),
            time: Number(r.time.toFixed(4)),
            ...(r.cracks === undefined ? {} : { phyxels: r.phyxels, cracks: r.cracks, grown: r.grown, fragments: r.fragments }),
          })),
          ...(cracking.length ? spread(cracking, 'cracking_steps_per_s') : {}),
          ...(runs[0].particles ? { particles: runs[0].particles } : {}),
          // The 3D demo's Δt as its page chose it (automatic substeps follow the page's frame rate).
          ...(scene.dt ? { dt: scene.dt } : {}),
        },
        rows,
        OUT,
      );
    } finally {
      await context.close();
    }
  });
}
