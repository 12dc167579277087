// The 3D demo's default scene (the jelly cube of 1 000 phyxels dropped from 0.3 m) stepped by the CPU
// worker in the browser, through its fall, its landing and its rest (issue 17's target: the default
// scene stays ≥ 60 steps/s on the CPU worker). Not a test: run by hand on a quiet machine after
// `./dev build`, and copy the table into docs/benchmarks.md:
//
//   cd tests && PHYXEL_WEBGPU=0 node --test --test-concurrency=1 bench/demo-step-times.test.mjs
//
// Each page is opened as a user opens it (the defaults: symplectic Euler with its automatic substeps;
// then implicit Euler with background quadrature, the implicit integrator's default model, and with
// nodal integration), put on the threaded CPU worker, restarted, and read 80 times, 100 ms apart plus
// the read's own time (about 0.16 s apart on a loaded 2-core machine): the solver's step count and
// simulated time (so steps/s and the real-time factor over each interval) and the worker's own time per
// step (the page averages it over the last second, so it lags the phases a little). Each interval is
// assigned to the phase its simulated time is in: the fall (t < 0.24 s), the landing (0.24–1.0 s: the
// impact and the ringing, where the implicit solves take 20–60 CG iterations) and the rest (t ≥ 1.0 s);
// an interval in which no state arrived counts, with 0 steps/s (a stall is part of the rate). The JSON goes to stdout and to $OUT (default
// /tmp/demo-step-times.json), with the date and the machine's load. CASES (comma-separated queries)
// overrides the pages measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, solverChosen, useBrowser } from '../e2e/harness.mjs';
import { record, spread } from './sampler.mjs';

const env = useBrowser();
const QUERIES = process.env.CASES?.split(',') ?? ['', '?integrator=implicit-euler', '?integrator=implicit-euler&implicitModel=nodal'];
const OUT = process.env.OUT ?? '/tmp/demo-step-times.json';
const SAMPLE_MS = 100;
const SAMPLES = 80;
const PHASES = [
  ['fall', 0, 0.24],
  ['landing', 0.24, 1.0],
  ['rest', 1.0, Infinity],
];
const rows = [];

const read = () => {
  const text = (id) => document.getElementById(id)?.textContent;
  const demo = window.phyxelDemo.demo;
  return {
    wall: performance.now(),
    steps: demo.steps(),
    time: demo.time(),
    ms_per_step: Number.parseFloat(text('readout-step-time')),
    cg: text('readout-cg'),
    solver: text('readout-solver'),
    integration: text('readout-integration'),
  };
};

for (const query of QUERIES) {
  test(`phyxels.html${query}`, async () => {
    const { page, context } = await openPage(env, `phyxels.html${query}`);
    try {
      await page.waitForSelector('body[data-ready="true"]', { timeout: 120_000 });
      await solverChosen(page);
      await page.selectOption('#param-backend', 'cpu');
      await page.waitForSelector('body[data-cpu-worker="threaded"]', { timeout: 60_000 });
      const samples = [await page.evaluate(read)];
      await page.click('#restart');
      for (let i = 0; i < SAMPLES; i++) {
        await page.waitForTimeout(SAMPLE_MS);
        samples.push(await page.evaluate(read));
      }
      assert.match(samples.at(-1).solver, /Web Worker, threaded build/);
      // One interval per pair of consecutive samples after the restart (the first whose simulated time
      // went back): its steps/s, real-time factor and phase.
      const restarted = samples.findIndex((s, i) => i > 0 && s.time < samples[i - 1].time);
      assert.ok(restarted > 0, 'the scene restarted');
      const intervals = samples.slice(restarted + 1).map((s, i) => {
        const last = samples[restarted + i];
        const seconds = (s.wall - last.wall) / 1000;
        const middle = 0.5 * (s.time + last.time);
        return {
          phase: PHASES.find(([, from, to]) => middle >= from && middle < to)?.[0],
          steps_per_s: (s.steps - last.steps) / seconds,
          real_time: (s.time - last.time) / seconds,
          ms_per_step: s.ms_per_step,
        };
      });
      const phases = Object.fromEntries(
        PHASES.map(([name]) => {
          const inPhase = intervals.filter((i) => i.phase === name);
          return [
            name,
            {
              intervals: inPhase.length,
              ...spread(inPhase.map((i) => i.steps_per_s), 'steps_per_s'),
              ...spread(inPhase.map((i) => i.real_time), 'real_time'),
              ...spread(inPhase.map((i) => i.ms_per_step), 'ms_per_step'),
            },
          ];
        }),
      );
      record(
        {
          page: `phyxels.html${query}`,
          solver: samples.at(-1).solver,
          integration: samples.at(-1).integration,
          phases,
          cg_readings: samples.map((s) => s.cg),
          simulated_s: samples.at(-1).time,
        },
        rows,
        OUT,
      );
    } finally {
      await context.close();
    }
  });
}
