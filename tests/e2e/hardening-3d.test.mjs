// Hardening of the 3D demo and of the WebAssembly boundary (issue 20): rapid thread-count changes
// leave exactly one solver worker, running the last count asked for; the page's own steps (before the
// worker has taken over, or where it cannot run) never hold its thread for a second, with 1000 fixed
// substeps or a 1000-step request; a fine bunny is refused from its volume before it is sampled;
// whole numbers handed to the wasm modules directly (fractions, negatives, 1e10) are refused by
// name, never truncated or wrapped into another value.
// Run with WebGPU only: every page here is opened with backend=cpu, whose worker and page-thread steps
// are the same either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage } from './harness.mjs';
import { OBSERVE_LONG_TASKS, addFrame } from './fuzz-driver.mjs';

const env = useBrowser({ browserPerTest: true });

/** The bound on a page-thread task: no run of the solver's steps on the page may reach it. */
const LONG_TASK_MS = 1000;
/**
 * Any page-thread task, drawing included: the 3D view alone makes tasks of 0.5–1.7 s here (software
 * rendering on a loaded 2-core machine; fuzz.test.mjs has the same limit), so the steps are timed
 * on their own (`stepRuns`) against LONG_TASK_MS.
 */
const ANY_TASK_MS = 3000;

/** Run in every frame: count the solver workers the page starts and has not terminated. */
const COUNT_SOLVER_WORKERS = `
  (() => {
    const Native = window.Worker;
    if (!Native) return;
    const live = new Set();
    window.__liveSolverWorkers = () => [...live].filter((w) => w.phyxelName.startsWith('phyxel solver')).length;
    window.Worker = class extends Native {
      constructor(url, options) {
        super(url, options);
        this.phyxelName = options?.name ?? '';
        live.add(this);
      }
      terminate() {
        live.delete(this);
        super.terminate();
      }
    };
  })();`;

/** Run in every frame: no Web Worker can start (the 3D page then steps on its own thread). */
const NO_WORKERS = `
  window.Worker = class {
    constructor() {
      throw new Error('Web Workers are switched off in this test');
    }
  };`;

/** Poll `read()` in Node until `accept(value)`; returns the value. */
async function until(read, accept, what, timeout = 30_000) {
  const end = Date.now() + timeout;
  let value = await read();
  while (!accept(value)) {
    if (Date.now() > end) assert.fail(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
}

/** The holding page with the 3D demo in frame `p3d`; returns { page, context, problems, frame, ask }. */
async function holdDemo(query, initScript) {
  const opened = await openPage(env, 'index.html', {}, { initScript: `${OBSERVE_LONG_TASKS}\n${initScript}` });
  await addFrame(opened.page, 'p3d', `phyxels.html?embed=1&backend=cpu${query}`, { width: 320, height: 240 });
  await opened.page.waitForFunction(() => window.fuzz.ready.has('p3d'), null, { timeout: 60_000 });
  const frame = opened.page.frames().find((f) => f.url().includes('phyxels.html'));
  const ask = (message, wait = 30_000) => opened.page.evaluate(([m, w]) => window.fuzz.ask('p3d', m, { wait: w }), [message, wait]);
  return { ...opened, frame, ask };
}

const simTime = async (ask) => (await ask({ phyxel: 1, action: 'readouts' })).result.values['sim-time'];
const longTasks = (frame) => frame.evaluate(() => window.__longTasks.splice(0));

/** In the 3D frame: time every PhyxelDemo.step call on the page (its start and end, in ms). */
const timeSteps = (frame) =>
  frame.evaluate(() => {
    window.__stepCalls = [];
    const proto = Object.getPrototypeOf(window.phyxelDemo.demo);
    const step = proto.step;
    proto.step = function (...args) {
      const start = performance.now();
      try {
        return step.apply(this, args);
      } finally {
        window.__stepCalls.push([start, performance.now()]);
      }
    };
  });

/**
 * The durations (ms) of the runs of steps since the last call: calls less than 1 ms apart belong to
 * one run (one task); a turn of the page's other work between slices ends a run.
 */
const stepRuns = (frame) =>
  frame.evaluate(() => {
    const runs = [];
    let run = null;
    for (const [start, end] of window.__stepCalls.splice(0)) {
      if (run && start - run[1] < 1) run[1] = end;
      else runs.push((run = [start, end]));
    }
    return runs.map(([start, end]) => Math.round(end - start));
  });

test('rapid thread-count changes: one solver worker at a time, the last count asked for runs on', async () => {
  const { context, problems, frame, ask } = await holdDemo('', COUNT_SOLVER_WORKERS);
  await frame.waitForSelector('body[data-cpu-worker="threaded"]', { timeout: 60_000 });
  const processors = await frame.evaluate(() => navigator.hardwareConcurrency);
  assert.ok(processors >= 2, `this machine offers ${processors} thread(s)`);
  const solverText = () => frame.locator('#readout-solver').textContent();
  const state = () => frame.evaluate(() => ({ live: window.__liveSolverWorkers(), threads: document.body.dataset.cpuThreads }));

  // Ten changes typed into the control within one task (typing “12” asks for 1, then 12): each waits
  // for the one before, and those superseded meanwhile start no pool.
  const typed = [1, 2, 1, 2, 2, 1, 2, 1, 2, 1].map((n) => Math.min(n, processors));
  await frame.evaluate((values) => {
    const input = document.getElementById('param-threads');
    for (const v of values) {
      input.value = String(v);
      input.dispatchEvent(new Event('input'));
    }
  }, typed);
  await until(solverText, (t) => t === 'CPU: Web Worker, threaded build, 1 thread', 'the solver after the typed changes');
  assert.deepEqual(await state(), { live: 1, threads: '1' }, 'one worker, with the last count typed');
  assert.equal(await frame.inputValue('#param-threads'), '1');

  // Ten `set` messages at once: answered in order; the last count wins.
  const sent = [2, 1, 2, 1, 1, 2, 1, 2, 1, 2];
  const replies = await Promise.all(sent.map((n) => ask({ phyxel: 1, action: 'set', parameter: 'threads', value: n })));
  assert.deepEqual(replies.at(-1), { phyxel: 1, id: replies.at(-1).id, ok: true, result: { threads: '2' } });
  for (const [k, reply] of replies.entries()) {
    assert.ok(reply.ok || /^threads=\d was not applied: a later set of threads replaced it while it waited \(the last one wins\)\.$/.test(reply.error), `${k}: ${JSON.stringify(reply)}`);
  }
  await until(solverText, (t) => t === 'CPU: Web Worker, threaded build, 2 threads', 'the solver after the messages');
  await until(state, (s) => s.live === 1 && s.threads === '2', 'one live worker with 2 threads');
  assert.deepEqual((await ask({ phyxel: 1, action: 'get', parameter: 'threads' })).result, { threads: '2' });
  // A moment later still one (no late adoption of a superseded pool), and the demo runs.
  const t = await simTime(ask);
  await until(() => simTime(ask), (s) => s > t + 0.05, 'simulated time');
  assert.deepEqual(await state(), { live: 1, threads: '2' });
  assert.equal(await frame.locator('#param-threads-error').textContent(), '');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the page’s own steps (no worker): 1000 fixed substeps a frame and a 1000-step request never hold its thread a second', async () => {
  const { context, problems, frame, ask } = await holdDemo('&substeps=fixed&substepCount=1000', NO_WORKERS);
  await frame.waitForSelector('body[data-cpu-worker="none"]', { timeout: 60_000 });
  assert.match(await frame.locator('#readout-solver').textContent(), /^CPU: the page’s thread/);
  await timeSteps(frame);
  await longTasks(frame);
  // Running: each frame takes what fits its budget, not 1000 substeps (about 1.5 s of steps here).
  const t = await simTime(ask);
  await until(() => simTime(ask), (s) => s > t, 'simulated time', 10_000);
  await frame.waitForTimeout(3000);
  const substeps = Number(await frame.locator('#readout-substeps').textContent());
  assert.ok(substeps >= 1 && substeps < 1000, `${substeps} substeps a frame on the page's thread`);
  const runs = await stepRuns(frame);
  assert.ok(runs.length > 10 && runs.every((ms) => ms < LONG_TASK_MS), `runs of steps while running: ${runs.join(', ')} ms`);
  const running = await longTasks(frame);
  assert.ok(running.every((ms) => ms < ANY_TASK_MS), `long tasks while running: ${running.join(', ')} ms`);

  // A request for 1000 steps: taken in slices, all of them.
  const paused = await ask({ phyxel: 1, action: 'pause' });
  const dt = paused.result.dt ?? null;
  const stepped = await ask({ phyxel: 1, action: 'step', steps: 1000 }, 120_000);
  assert.equal(stepped?.ok, true, JSON.stringify(stepped));
  const taken = stepped.result.time - paused.result.time;
  if (dt) assert.ok(Math.abs(taken - 1000 * dt) < 1e-6, `1000 steps of ${dt} s: ${taken} s`);
  else assert.ok(taken > 0, `${taken} s`);
  const sliced = await stepRuns(frame);
  assert.ok(sliced.length > 1 && sliced.every((ms) => ms < LONG_TASK_MS), `runs of steps for the request: ${sliced.join(', ')} ms`);
  const requested = await longTasks(frame);
  assert.ok(requested.every((ms) => ms < ANY_TASK_MS), `long tasks while the request was stepped: ${requested.join(', ')} ms`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('whole numbers at the wasm boundary: fractions, negatives and 1e10 are refused by name, never truncated or wrapped', async () => {
  const { page, context, problems } = await openPage(env, 'phyxels.html?backend=cpu');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  await page.waitForSelector('body[data-cpu-worker]:not([data-cpu-worker="none"])', { timeout: 60_000 });
  const refusals = await page.evaluate(async () => {
    const refused = (call) => {
      try {
        const value = call();
        return `accepted: ${JSON.stringify(value ?? null)}`;
      } catch (error) {
        return error.message;
      }
    };
    const view = await import('./phyxel-view.js');
    const web = await import('./phyxel-web.js');
    await web.default();
    const demo = window.phyxelDemo.demo;
    const args = (resolution) => ['cube', resolution, false, 3e4, 0.3, 1000, 0, false];
    const out = {
      resolution: [10.5, -1, 1e10].map((r) => refused(() => new view.PhyxelDemo(...args(r)))),
      steps: [2.5, -1, 1e10].map((n) => refused(() => demo.step(demo.recommended_time_step(), n))),
      cgIterations: [10.5, -1, 1e10].map((n) => refused(() => demo.set_implicit_solver(1e-5, n))),
      drag: [1.5, -2, 1e10].map((n) => refused(() => demo.drag(n, 0, 0, 0, 0.01))),
      count: [1000.5, -1, 1e10].map((n) => refused(() => new web.NeighbourhoodLesson(n, 0.1))),
      dimension: [2.5, -1, 1e10].map((d) => refused(() => web.kernel_normalization('cubic', d))),
      samples: [10.5, -1, 1e10].map((n) => refused(() => web.kernel_curves('cubic', 2, 1, n))),
      // In range, whole: taken.
      fine: refused(() => web.kernel_normalization('cubic', 2)),
    };
    // Through the solver worker's requests (its own build of the bindings).
    const worker = window.phyxelDemo.cpuWorker;
    out.workerCreate = await worker.create(args(10.5), []).then(() => 'accepted', (error) => error.message);
    // (A refused step is answered with the state, unchanged, and the reason.)
    out.workerStep = await worker.step(0.001, 2.5).then((reply) => reply?.error ?? 'accepted', (error) => error.message);
    return out;
  });
  const expect = (list, pattern) => list.forEach((text) => assert.match(text, pattern));
  expect(refusals.resolution.slice(0, 1), /^resolution: must be a whole number$/);
  expect(refusals.resolution.slice(1), /^resolution: must lie between 3 and 60/);
  expect(refusals.steps.slice(0, 1), /^steps: must be a whole number$/);
  expect(refusals.steps.slice(1), /^steps: must lie between 0 and 1000000$/);
  expect(refusals.cgIterations.slice(0, 1), /^CG iterations: must be a whole number$/);
  expect(refusals.cgIterations.slice(1), /^CG iterations: must lie between 1 and 5000$/);
  expect(refusals.drag.slice(0, 1), /^the phyxel: must be a whole number$/);
  expect(refusals.drag.slice(1), /^the phyxel: must lie between -1 and 2147483647$/);
  expect(refusals.count, /^count: must (be a whole number|lie between 2 and 20000)/);
  expect(refusals.dimension, /^the dimension: must (be a whole number|lie between 1 and 3)/);
  expect(refusals.samples, /^samples: must (be a whole number|lie between 2 and 4096)/);
  assert.match(refusals.fine, /^accepted: \d/);
  assert.match(refusals.workerCreate, /^resolution: must be a whole number$/);
  assert.match(refusals.workerStep, /^steps: must be a whole number$/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a fine bunny is refused at its control from its volume, the phyxel cap named, without sampling it', async () => {
  const { page, context, problems } = await openPage(env, 'phyxels.html?backend=cpu&scene=bunny&lattice=bcc');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  const phyxels = Number(await page.locator('#readout-phyxels').textContent());
  assert.ok(phyxels > 100, `the bunny at 10 across: ${phyxels} phyxels`);
  // Typed in: the refusal (or, before, the sampling) happens within the input event, timed in the page.
  const ms = await page.evaluate(() => {
    const input = document.getElementById('param-resolution');
    const start = performance.now();
    input.value = '60';
    input.dispatchEvent(new Event('input'));
    return performance.now() - start;
  });
  const refusal = await page.locator('#param-resolution-error').textContent();
  assert.match(refusal, /^about \d+ phyxels are more than this backend handles \(60000\): lower the resolution\. Still using 10\.$/);
  assert.ok(ms < LONG_TASK_MS, `refused after ${ms} ms`);
  assert.equal(await page.inputValue('#param-resolution'), '60', 'the text stays for the reader to correct');
  assert.equal(Number(await page.locator('#readout-phyxels').textContent()), phyxels, 'the bunny at 10 across runs on');
  assert.deepEqual(problems, []);
  await context.close();
});
