// The CPU solver in a dedicated Web Worker (not on the page's thread: the thread pool's Atomics.wait
// must never block the main thread). Loads one build of crates/phyxel-worker (js/workers/worker-builds.js
// chooses), starts its thread pool, and answers requests { id, type, … } with { id, … } or
// { id, error }: `bench` times the benchmark cube; `create`, `call`, `tool`, `run`, `ack`, `step`, `state`
// and `restore` drive the 3D demo's solver, which sends its state as { event: 'state', … } (`readouts`
// reads its phyxel count and fracture readouts); the `fluid-…` requests drive the 3D fluid page's
// (SphFluids3d, web/js/lessons/sph-fluids-3d.js).
let solver = null;

async function init({ build, threads }) {
  if (build !== 'threaded' && build !== 'single') throw new Error(`unknown build “${build}”`);
  solver = await import(`../../worker/${build}/phyxel-worker.js`);
  await solver.default();
  if (build === 'threaded') await solver.initThreadPool(threads);
  return { threads: solver.thread_count(), threaded: solver.threaded() };
}

/** Untimed warm-up before a bench run, on a cube of its own (the timed cube takes the same steps in
 * every run, so that runs compare exactly): at least this long, for the browser's optimizing compiler to
 * take over from its baseline one and the pool's threads to be up. */
const WARMUP_MS = 250;
/** Untimed steps of the timed cube itself. */
const WARMUP_STEPS = 3;

/** The benchmark cube: the warm-up, then `steps` timed steps. */
function bench({ n, steps }) {
  const warmup = new solver.BenchCube(n);
  try {
    for (const begun = performance.now(); performance.now() - begun < WARMUP_MS; ) warmup.step(1);
  } finally {
    warmup.free();
  }
  const cube = new solver.BenchCube(n);
  try {
    cube.step(WARMUP_STEPS);
    solver.reset_work_counters();
    const start = performance.now();
    cube.step(steps);
    const ms = performance.now() - start;
    const positions = new Float64Array(cube.positions());
    return {
      reply: {
        phyxels: cube.phyxels(),
        neighbourInteractions: cube.neighbour_interactions(),
        ms,
        workPerThread: Array.from(solver.work_per_thread()),
        positions,
      },
      transfer: [positions.buffer],
    };
  } finally {
    cube.free();
  }
}

// ---- The 3D demo's solver (PhyxelDemo of crates/phyxel-worker, over crates/phyxel-app), mirrored by the page ----------------
//
// While the page runs the simulation, the worker steps on its own, as many steps as real time needs
// (within a batch of about BATCH_MS), and sends its state ({ event: 'state', … }) whenever the page has
// taken the previous one ('ack'): the solver never waits for the page's frames, and the page never
// receives more states than it can draw.

/** Milliseconds of stepping between two looks at the page's messages (setters, drag, pause). */
const BATCH_MS = 12;
/** Longest wall-clock interval one batch may make up for (a stalled tab must not trigger a burst). */
const MAX_CATCH_UP_S = 0.1;

let demo = null;
/** Scenes built so far: each state says which one it belongs to. */
let generation = 0;
/** Reference updates already sent to the page: the rest shape travels only when one happened. */
let updatesSent = 0;
/** How the page wants the simulation run: { running, dt, fixed } (fixed: steps per page frame, or 0
 * for real time). */
let run = { running: false, dt: 0, fixed: 0 };
/** Real time the steps still owe (s), and when it was last counted. */
let owed = 0;
let lastCounted = 0;
/** Whether the page has taken the last state sent (it then wants the next one). */
let pageWaits = true;
/** Steps, their time and each thread's work since the last state sent. */
let unsent = { steps: 0, ms: 0, work: [] };
let msPerStep = 1;
let scheduled = false;

/** Build the demo anew: `args` for its constructor, then `calls` [method, ...args] to set it up. */
function create({ args, calls }) {
  const fresh = new solver.PhyxelDemo(...args);
  try {
    for (const [method, ...rest] of calls) call(fresh, method, rest);
  } catch (error) {
    fresh.free();
    throw error;
  }
  demo?.free();
  demo = fresh;
  generation++;
  updatesSent = 0;
  // A state of the old scene on its way will be dropped by the page, unanswered.
  pageWaits = true;
  unsent = { steps: 0, ms: 0, work: [] };
  return { reply: { phyxels: demo.phyxel_count(), generation } };
}

/** The page's setters, mirrored (the page checked them on its own copy first). */
function call(target, method, args) {
  if (!/^(set_|drag$)/.test(method) || typeof target[method] !== 'function') {
    throw new Error(`the solver worker does not take “${method}”`);
  }
  return target[method](...args);
}

/** Take `n` steps of `dt`, counting their time and work; null, or why the simulation stopped (a
 * blow-up, a refused Δt: the demo keeps its last good state). */
function advance(dt, n) {
  solver.reset_work_counters();
  const start = performance.now();
  let stopped = null;
  let taken = n;
  try {
    if (!demo.step(dt, n)) stopped = demo.error();
  } catch (error) {
    // Refused before any step (a Δt out of range, a count that is not a whole number).
    stopped = error.message;
    taken = 0;
  }
  const ms = performance.now() - start;
  unsent.steps += taken;
  unsent.ms += ms;
  Array.from(solver.work_per_thread()).forEach((w, k) => (unsent.work[k] = (unsent.work[k] ?? 0) + w));
  if (taken > 0) msPerStep = 0.8 * msPerStep + 0.2 * (ms / taken);
  return stopped;
}

/** The state for the page's copy (PhyxelDemo.restore) and what was done since the last one. */
function stateMessage(extra = {}) {
  const updates = demo.reference_updates();
  const state = new Float64Array(demo.snapshot(updates !== updatesSent));
  updatesSent = updates;
  const message = { generation, state, steps: unsent.steps, ms: unsent.ms, workPerThread: unsent.work, ...extra };
  unsent = { steps: 0, ms: 0, work: [] };
  return { message, transfer: [state.buffer] };
}

function sendState(extra) {
  const { message, transfer } = stateMessage(extra);
  pageWaits = false;
  self.postMessage({ event: 'state', ...message }, transfer);
}

/** One batch: the steps real time needs (or the page's fixed count per frame), then the state. */
function tick() {
  scheduled = false;
  if (!demo || !run.running) return;
  const now = performance.now();
  owed += Math.min((now - lastCounted) / 1000, MAX_CATCH_UP_S);
  lastCounted = now;
  let n;
  if (run.fixed > 0) {
    n = pageWaits ? run.fixed : 0;
  } else {
    const wanted = Math.floor(owed / run.dt);
    n = Math.min(wanted, Math.max(1, Math.floor(BATCH_MS / msPerStep)));
    owed = n < wanted ? 0 : owed - n * run.dt;
  }
  const stopped = n > 0 ? advance(run.dt, n) : null;
  if (stopped) {
    // A blow-up (or a refused Δt): the demo kept its last good state; stop there and tell the page why.
    run = { ...run, running: false };
    sendState({ error: stopped });
    return;
  }
  if (pageWaits && unsent.steps > 0) sendState();
  // Ahead of real time: wait for the next step's time; else go on after the page's messages.
  const wait = run.fixed > 0 ? 4 : Math.max(0, (run.dt - owed) * 1000);
  schedule(n > 0 ? 0 : wait);
}

/** A zero-delay turn that still lets queued messages in first (setTimeout(0) is clamped to 4 ms). */
const turn = new MessageChannel();
turn.port1.onmessage = tick;
function schedule(ms) {
  if (scheduled) return;
  scheduled = true;
  if (ms > 1) setTimeout(tick, ms);
  else turn.port2.postMessage(null);
}

// ---- The 3D fluid page's solver (SphFluids3d of crates/phyxel-worker) ------------------------------
//
// The page asks for each frame's work ('fluid-advance': steps until the clock reaches `until`, within
// `budgetMs`, or exactly `steps` for the Step button) and gets back the particles to draw and the
// readouts: one request per frame, so the page never receives more than it draws.

let fluid = null;
/** Longest a request for a number of steps may take (ms): the rest are not taken. */
const STEP_BUDGET_MS = 2000;

/** The readouts and the particles (x, y, z, colour value each), the particles' buffer transferred. */
function fluidState(colour, extra = {}) {
  const particles = new Float32Array(fluid.particles(colour));
  return { reply: { report: fluid.report(), particles, ...extra }, transfer: [particles.buffer] };
}

const FLUID_HANDLERS = {
  'fluid-parameters': () => ({ reply: { table: solver.SphFluids3d.parameters() } }),
  /** A new scene: the SphFluids3d constructor's `args`; the old one stays if it is refused. */
  'fluid-create': ({ args, colour }) => {
    const fresh = new solver.SphFluids3d(...args);
    fluid?.free();
    fluid = fresh;
    const outline = new Float32Array(fluid.outline());
    const state = fluidState(colour, { outline, bounds: Array.from(fluid.bounds()), spacing: fluid.spacing() });
    return { reply: state.reply, transfer: [...state.transfer, outline.buffer] };
  },
  /** A setter of the running scene (set_solver, set_parameters). */
  'fluid-call': ({ method, args }) => {
    if (!/^set_/.test(method) || typeof fluid[method] !== 'function') throw new Error(`the fluid does not take “${method}”`);
    fluid[method](...args);
    return { reply: {} };
  },
  /** Steps until the clock reaches `until` within `budgetMs` (at least one), or `steps` within
   * STEP_BUDGET_MS (the Step button, the message API: the reply says how many were taken). */
  'fluid-advance': ({ until, budgetMs, steps, colour }) => {
    const start = performance.now();
    let taken = 0;
    if (steps > 0) {
      while (taken < steps && !fluid.error() && (taken === 0 || performance.now() - start < STEP_BUDGET_MS)) {
        const n = fluid.advance(1, Number.MAX_VALUE);
        if (n === 0) break;
        taken += n;
      }
    } else {
      while (!fluid.error() && fluid.time() < until && (taken === 0 || performance.now() - start < budgetMs)) {
        const n = fluid.advance(1, until);
        if (n === 0) break;
        taken += n;
      }
    }
    return fluidState(colour, { steps: taken, ms: performance.now() - start, behind: fluid.time() < until && !fluid.error() });
  },
  'fluid-state': ({ colour }) => fluidState(colour),
};

const HANDLERS = {
  ...FLUID_HANDLERS,
  bench,
  create,
  call: ({ method, args }) => ({ reply: { result: call(demo, method, args) ?? null } }),
  /** The pointer's cut or strike on the solver that steps (the page's copy holds no cracks to cut):
   * the reply carries what it did, a refusal its reason; paused, the state follows at once. */
  tool: ({ method, args }) => {
    if (method !== 'cut' && method !== 'strike') throw new Error(`the solver worker has no tool “${method}”`);
    const result = Array.from(demo[method](...args));
    if (!run.running) sendState();
    return { reply: { result } };
  },
  /** Run (real time or a fixed count per page frame) or pause. */
  run: ({ running, dt, fixed }) => {
    if (running && !run.running) lastCounted = performance.now();
    run = { running, dt, fixed };
    if (running) schedule(0);
    // Paused: the steps taken since the last state sent must reach the page all the same.
    else if (unsent.steps > 0) sendState();
    return { reply: null };
  },
  /** The page took the last state: the next may come. */
  ack: () => {
    pageWaits = true;
    if (run.running) schedule(0);
    else if (unsent.steps > 0) sendState();
    return { reply: null };
  },
  /** `n` steps now, paused (the Step button, the message API); the reply carries the state. */
  step: ({ dt, n }) => {
    const { message, transfer } = stateMessage({ error: advance(dt, n) });
    return { reply: message, transfer };
  },
  /** The phyxel count and the fracture readouts (Demo::fracture_readouts; empty without fracture),
   * for a bench that drives the worker without a page copy (tests/bench/worker-rates.test.mjs). */
  readouts: () => ({ reply: { phyxels: demo.phyxel_count(), fracture: Array.from(demo.fracture_readouts()) } }),
  /** The current state (before the page hands the simulation to another backend). */
  state: () => {
    const { message, transfer } = stateMessage();
    return { reply: message, transfer };
  },
  /** Continue from the page's state (after the GPU ran, or in a new worker). */
  restore: ({ state }) => {
    demo.restore(state);
    updatesSent = demo.reference_updates();
    pageWaits = true;
    return { reply: {} };
  },
};

self.addEventListener('message', async ({ data }) => {
  try {
    if (data.type === 'init') {
      self.postMessage({ id: data.id, ...(await init(data)) });
    } else if (HANDLERS[data.type]) {
      if (!solver) throw new Error('the worker was not initialized');
      if (data.type.startsWith('fluid-')) {
        if (!fluid && data.type !== 'fluid-create' && data.type !== 'fluid-parameters') throw new Error('no fluid was created');
      } else if (data.type !== 'bench' && data.type !== 'create' && !demo) {
        throw new Error('no demo was created');
      }
      const { reply, transfer = [] } = HANDLERS[data.type](data);
      if (reply) self.postMessage({ id: data.id, ...reply }, transfer);
    } else {
      throw new Error(`unknown request “${data.type}”`);
    }
  } catch (error) {
    self.postMessage({ id: data.id, error: error?.message ?? String(error) });
  }
});
