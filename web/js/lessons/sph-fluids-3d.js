// "SPH fluids in 3D": a dam break in a channel and water poured into a glass, stepped by WCSPH, DFSPH or
// PBF in the CPU solver's worker (js/workers/solver-worker.js's `fluid-…` requests; threaded where the
// page is cross-origin isolated), or by WCSPH on WebGPU compute (GpuFluid3d, on the page), and drawn
// here as shaded spheres (PhyxelView.draw_particles: WebGPU, else WebGL2). Physics:
// crates/phyxel/src/fluids3d and crates/phyxel/src/lessons/sph_fluids_3d.rs; the GPU passes:
// crates/phyxel-gpu/src/fluid.rs; bindings: crates/phyxel-worker/src/fluid3d.rs,
// crates/phyxel-view/src/fluid.rs.
import init, { GpuDevice, GpuFluid3d, OrbitCamera, PhyxelView } from '../../phyxel-view.js';
import { defaults, fromTable } from '../site/controls.js';
import { LessonPage } from '../site/page.js';
import { setComputesOn } from '../workers/backend.js';
import { availableThreads, startSolverWorker, workerBuild } from '../workers/worker-builds.js';
import { FLUID_SOLVER_OPTIONS } from './fluid-solvers.js';

/** Wall-clock milliseconds the worker may spend stepping for one frame, at least (a frame at 60 Hz). */
const FRAME_BUDGET_MS = 14;
/** The most a frame's budget grows to where the page's own work per frame is long (workerBudget). */
const MAX_FRAME_BUDGET_MS = 250;
/** Simulated seconds one frame may ask for (a stalled tab must not ask for a burst). */
const MAX_FRAME_SECONDS = 1 / 20;
/** How long the GPU solver's device waits for the view to settle before it is made anyway (ms). */
const SETTLE_WAIT_MS = 5000;

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly, in a worker)' });
const { build, reason } = workerBuild();
const [worker] = await Promise.all([startSolverWorker(build, availableThreads()), init()]);
const CPU_COMPUTES_ON = worker.threaded
  ? `the CPU (WebAssembly, in a worker, ${worker.threads} threads)`
  : `the CPU (WebAssembly, in a worker, one thread: ${reason})`;
setComputesOn(CPU_COMPUTES_ON);
/** The page's parameter table (crates/phyxel/src/lessons/sph_fluids_3d.rs): ranges and defaults. */
const { table } = await worker.request({ type: 'fluid-parameters' });
const params = { backend: 'cpu', scene: 'dam-break', solver: 'dfsph', colour: 'speed', ...defaults(table) };

// ---- The two solvers, one interface: create, call (a setter), advance, state ---------------------

/**
 * The page's own time per frame — drawing, and whatever else the browser does between frames — over
 * the last five frames: each frame's period less the worker's stepping in it (the reply's own clock:
 * while a software renderer holds the page's thread, the reply waits in its queue, so the round trip
 * does not tell the two apart).
 */
const ownTimes = [];
let lastAdvance = null;
/** The worker's budget for a frame: as long as the page's own time per frame (median of five), so
 * that where drawing is slow (a software renderer: 0.6–0.8 s a frame of 48 778 spheres) the solver
 * steps for as long as the page draws instead of 14 ms a frame; 14–250 ms. */
function workerBudget() {
  if (ownTimes.length === 0) return FRAME_BUDGET_MS;
  const median = [...ownTimes].sort((a, b) => a - b)[ownTimes.length >> 1];
  return Math.min(MAX_FRAME_BUDGET_MS, Math.max(FRAME_BUDGET_MS, median));
}

/** The CPU solver in the worker: every call a request. */
const cpuSolver = {
  name: 'cpu',
  create: (args, colour) => worker.request({ type: 'fluid-create', args, colour }),
  call: (method, args) => worker.request({ type: 'fluid-call', method, args }),
  /** Steps for `wall` seconds of real time within the frame's budget, or exactly `steps`. */
  async advance({ wall, steps, time, colour }) {
    if (wall == null) return worker.request({ type: 'fluid-advance', steps, colour });
    const at = performance.now();
    if (lastAdvance) {
      ownTimes.push(Math.max(0, at - lastAdvance.at - lastAdvance.ms));
      if (ownTimes.length > 5) ownTimes.shift();
    }
    const reply = await worker.request({ type: 'fluid-advance', until: time + wall, budgetMs: workerBudget(), colour });
    lastAdvance = { at, ms: reply.ms ?? 0 };
    return reply;
  },
  state: (colour) => worker.request({ type: 'fluid-state', colour }),
};

/** WCSPH on WebGPU compute, on this page (a device of its own); made when first chosen. */
const gpuSolver = {
  name: 'gpu',
  device: null,
  fluid: null,
  /** The device, made once (one request for it at a time): in Chromium a WebGPU canvas that
   * cannot present takes the page's other devices down with it, so it waits until the view has
   * settled (drawn 10 frames, or fallen back). */
  async prepare() {
    if (!('gpu' in navigator)) throw new Error('this browser has no WebGPU: the fluid runs on the CPU');
    // At most a few seconds: a build the page waits for (a restart) holds its frames back.
    await Promise.race([rendererSettled, new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MS))]);
    this.devicePromise ??= GpuDevice.create().catch((error) => {
      this.devicePromise = null;
      throw error;
    });
    this.device = await this.devicePromise;
  },
  /** Let the device and its fluid go (the CPU runs the fluid, or the device failed). */
  release() {
    this.fluid?.free();
    this.fluid = null;
    this.device?.free();
    this.device = null;
    this.devicePromise = null;
  },
  async create(args, colour) {
    const fresh = new GpuFluid3d(this.device, ...args);
    this.fluid?.free();
    this.fluid = fresh;
    return { ...this.state(colour), outline: new Float32Array(fresh.outline()), bounds: Array.from(fresh.bounds()), spacing: fresh.spacing() };
  },
  async call(method, args) {
    if (method === 'set_solver' && args[0] !== 'wcsph') throw new Error('the GPU steps WCSPH only: choose the CPU backend for DFSPH and PBF');
    if (method === 'set_solver') return;
    this.fluid[method](...args);
  },
  /** The most steps a frame queues: doubled while a frame fits its budget and falls behind real
   * time, halved when one overruns it (the read-back's latency is part of a frame's time, not of a
   * step's). */
  most: 8,
  /** Queue the steps of `wall` seconds within the frame's budget (or `steps` of the last Δt, at most
   * 400), then read the state back. A fluid replaced meanwhile (a new scene, a restart) answers
   * `stale`: its frame is dropped. */
  async advance({ wall, steps, colour }) {
    const fluid = this.fluid;
    const start = performance.now();
    const queued = wall == null ? fluid.advance(steps * lastDt, Math.min(steps, 400)) : fluid.advance(Math.max(wall, 1e-6), this.most);
    const readback = await fluid.read_back();
    try {
      if (this.fluid !== fluid) return { stale: true };
      fluid.apply(readback);
    } finally {
      readback.free();
    }
    const ms = performance.now() - start;
    const report = fluid.report();
    const behind = wall != null && report.dt * queued < 0.999 * wall;
    if (wall != null && behind && ms < 0.8 * FRAME_BUDGET_MS) this.most = Math.min(400, 2 * this.most);
    else if (ms > 1.5 * FRAME_BUDGET_MS) this.most = Math.max(1, Math.floor(this.most / 2));
    return { ...this.state(colour), steps: queued, ms, behind };
  },
  state(colour) {
    return { report: this.fluid.report(), particles: new Float32Array(this.fluid.particles(colour)) };
  },
};

let solver = cpuSolver;

/** What the solver sent last: the particles to draw and the readouts; the walls' outline; the spacing. */
let state = null;
let outline = new Float32Array(0);
let spacing = 0.01;
let lastDt = 1 / 240;

const camera = new OrbitCamera();
function frameCamera(bounds) {
  const [x0, y0, z0, x1, y1, z1] = bounds;
  const radius = 0.5 * Math.hypot(x1 - x0, y1 - y0, z1 - z0);
  camera.frame(0.5 * (x0 + x1), 0.4 * (y0 + y1), 0.5 * (z0 + z1), radius);
}

/** Scene builds asked for so far: only the latest one's result is taken. */
let creating = 0;

/** The solver of the backend chosen now. */
const chosenSolver = () => (params.backend === 'gpu' ? gpuSolver : cpuSolver);

/**
 * Build the scene anew with the current parameters on the chosen backend's solver, which is in use
 * from then on; a refusal leaves the running one (and throws why). Resolves to false when a later
 * build was asked for meanwhile: that one decides.
 */
async function create() {
  const g = ++creating;
  const target = chosenSolver();
  try {
    await target.prepare?.();
  } catch (error) {
    if (g !== creating) return false;
    throw error;
  }
  if (g !== creating) return false;
  const args = [params.scene, params.solver, params.across, params.xsph, params.iterations, params.sound];
  const colour = params.colour;
  let reply;
  try {
    reply = await target.create(args, colour);
  } catch (error) {
    if (g !== creating) return false;
    throw error;
  }
  if (g !== creating) return false;
  if (target !== solver && target === cpuSolver) gpuSolver.release();
  solver = target;
  document.body.dataset.backend = target.name;
  setComputesOn(target === gpuSolver ? `WebGPU compute (${gpuSolver.fluid.adapter() || 'unnamed adapter'})` : CPU_COMPUTES_ON);
  state = { ...reply, colour };
  outline = reply.outline;
  spacing = reply.spacing;
  frameCamera(reply.bounds);
  page.resetTiming();
  page.notice('blowup', null);
  showReport(reply.report);
  return true;
}

const readouts = {
  solver: page.readout('solver', 'Solver / particles'),
  error: page.readout('density-error', 'Density error: mean / largest'),
  iterations: page.readout('iterations', 'Iterations (last step)'),
  dt: page.readout('dt', 'Time step Δt (CFL)'),
  speed: page.readout('max-speed', 'Largest speed'),
  mass: page.readout('mass', 'Mass Σm'),
  front: page.readout('front', 'Front Z = z/a at T = t√(2g/a) / Martin & Moyce'),
  glass: page.readout('glass', 'Glass: held / level / V/(πa²)'),
  renderer: page.readout('renderer', 'Drawn with'),
};

const pct = (x) => `${(100 * x).toFixed(3)} %`;

await create();

/** A select's change the solver refused: the previous value back, the reason in a notice. */
function refusedSelect(id, key, previous, error) {
  params[key] = previous;
  document.getElementById(id).value = previous;
  page.notice(key, `${error.message}`, 'error');
}

const c = page.controls;
c.select({
  param: 'backend',
  id: 'backend-select',
  label: 'Computes on',
  value: params.backend,
  options: [
    { value: 'cpu', label: 'CPU (worker; threads where isolated)' },
    { value: 'gpu', label: 'WebGPU compute (WCSPH)' },
  ],
  // A new backend starts the scene again on it; one that refuses it (no WebGPU, DFSPH or PBF on the
  // GPU) leaves the running one, and says why.
  onChange: async (value) => {
    const previous = { backend: params.backend, solver: params.solver };
    if (value === 'gpu') {
      // The device first: the running scene goes on meanwhile (it waits for the view to settle,
      // which needs frames), and builds asked for meanwhile stay on the CPU.
      try {
        await gpuSolver.prepare();
      } catch (error) {
        refusedSelect('backend-select', 'backend', previous.backend, new Error(`WebGPU compute was refused: ${error.message}`));
        return;
      }
    }
    params.backend = value;
    // The GPU steps WCSPH: choosing it chooses WCSPH.
    if (value === 'gpu') params.solver = 'wcsph';
    document.getElementById('solver-select').value = params.solver;
    try {
      if (await create()) page.notice('backend', null);
    } catch (error) {
      params.solver = previous.solver;
      document.getElementById('solver-select').value = previous.solver;
      refusedSelect('backend-select', 'backend', previous.backend, new Error(`WebGPU compute was refused: ${error.message}`));
      // A scene built meanwhile (another control) took WCSPH: the running one gets its solver back.
      await solver.call('set_solver', [previous.solver]).catch(() => {});
    }
  },
});
c.select({
  param: 'scene',
  id: 'scene-select',
  label: 'Scene',
  value: params.scene,
  options: [
    { value: 'dam-break', label: 'Dam break in a channel' },
    { value: 'glass', label: 'Pour into a glass' },
  ],
  // A scene the solver refuses (beyond a budget at this resolution) leaves the running one, and says why.
  onChange: (value) => {
    const previous = params.scene;
    params.scene = value;
    return create().then(
      (committed) => {
        if (committed) page.notice('scene', null);
      },
      (error) => refusedSelect('scene-select', 'scene', previous, new Error(`The scene “${value}” was refused: ${error.message}`)),
    );
  },
});
c.select({
  param: 'solver',
  id: 'solver-select',
  label: 'Solver',
  value: params.solver,
  options: FLUID_SOLVER_OPTIONS,
  // The particles carry over: the solver changes under the running water.
  onChange: (value) => {
    const previous = params.solver;
    params.solver = value;
    page.notice('blowup', null);
    return solver.call('set_solver', [value]).then(
      () => page.notice('solver', null),
      (error) => refusedSelect('solver-select', 'solver', previous, error),
    );
  },
});
c.select({
  param: 'colour',
  id: 'colour-select',
  label: 'Colour by',
  value: params.colour,
  options: [
    { value: 'speed', label: 'Speed |v| / √(2g·2a)' },
    { value: 'density', label: 'Density ρ/ρ₀ (0.98 … 1.02)' },
    { value: 'pressure', label: 'Pressure p / (ρ₀ g 2a)' },
  ],
  onChange: (value) => {
    params.colour = value;
  },
});
c.number({
  ...fromTable(table, 'across'),
  label: 'Particles across a',
  unit: '',
  help: 'Whole number: a is the column’s width and the glass’s radius (the dam break holds 2 × across³ particles, the glass 3.8 × across³; changing it restarts).',
  onChange: (value) => {
    const previous = params.across;
    params.across = value;
    return create().catch((error) => {
      params.across = previous;
      throw error;
    });
  },
});
const setter = (name, label, unit, help) =>
  c.number({
    ...fromTable(table, name), label, unit, help,
    onChange: (value) => {
      const previous = params[name];
      params[name] = value;
      page.notice('blowup', null);
      // The solver checks the same table: a refusal there comes back to the control (and the value
      // in force stays the previous one).
      return solver.call('set_parameters', [params.xsph, params.iterations, params.sound]).catch((error) => {
        params[name] = previous;
        throw error;
      });
    },
  });
setter('xsph', 'XSPH viscosity ξ', '', 'Between 0 and 0.5 (seed 002 eq. 53).');
setter('iterations', 'Most solver iterations per step', '', 'Whole number (DFSPH: each of its two solves; PBF).');
setter('sound', 'WCSPH speed of sound c', '× √(2g·2a)', 'Lower: softer water and longer steps; higher: stiffer and shorter.');

function showReport(r) {
  readouts.solver(`${r.solver} / ${r.particles}${r.poured < r.to_pour ? ` (pouring: ${r.to_pour})` : ''}`);
  readouts.error(`${pct(r.density_error)} / ${pct(r.max_density_error)}`);
  readouts.iterations(`${r.iterations}`);
  readouts.dt(r.dt > 0 ? `${r.dt.toExponential(2)} s` : '—');
  readouts.speed(`${r.max_speed.toFixed(3)} m/s`);
  readouts.mass(`${r.mass.toFixed(6)} kg`);
  if (r.front) {
    const [t, z, mm] = r.front;
    // No comparison before the table's first time, nor once the experiment's front is past this
    // channel's far wall (Z = 4).
    const why = t < 0.83 ? 'the table starts at T = 0.83' : 'the experiment’s front is past this channel’s far wall';
    readouts.front(mm == null
      ? `${z.toFixed(3)} at T = ${t.toFixed(2)} (${why})`
      : `${z.toFixed(3)} at T = ${t.toFixed(2)} / ${mm.toFixed(3)} (${(100 * (z / mm - 1)).toFixed(1)} %)`);
  } else {
    readouts.front('— (the dam break)');
  }
  if (r.glass) {
    const [held, level, expected] = r.glass;
    // The level is read once the pour is over and the water has settled.
    const shown = level == null ? (r.poured < r.to_pour ? 'pouring' : 'settling') : `${level.toFixed(3)} a`;
    readouts.glass(`${(100 * held).toFixed(2)} % / ${shown} / ${expected.toFixed(3)} a`);
  } else {
    readouts.glass('— (the glass)');
  }
  page.notice('blowup', r.error ? `The fluid stopped: ${r.error}. Change a setting or restart.` : null, 'error');
  if (r.dt > 0) lastDt = r.dt;
  document.body.dataset.particles = String(r.particles);
}

// ---- The view: WebGPU, else WebGL2, else an explanation ------------------------------------------

const container = document.querySelector('.view3d');
const message = document.getElementById('view-message');
let canvas = document.getElementById('scene');
let view = null;
let framesDrawn = 0;
let settleRenderer;
const rendererSettled = new Promise((resolve) => (settleRenderer = resolve));

function replaceCanvas() {
  const fresh = canvas.cloneNode(false);
  canvas.replaceWith(fresh);
  canvas = fresh;
}

async function openView(allowWebGPU) {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(canvas.clientWidth * dpr));
  canvas.height = Math.max(1, Math.round(canvas.clientHeight * dpr));
  try {
    view = await PhyxelView.create(canvas, allowWebGPU);
  } catch (error) {
    if (allowWebGPU) {
      replaceCanvas();
      return openView(false);
    }
    view = null;
    settleRenderer();
    message.hidden = false;
    message.textContent = `This browser can draw neither with WebGPU nor with WebGL2 (${error.message}). The fluid still runs: the readouts follow it.`;
    readouts.renderer('none');
    document.body.dataset.renderer = 'none';
    return;
  }
  readouts.renderer(`${view.backend()} (${view.adapter() || 'unnamed adapter'})`);
  document.body.dataset.renderer = view.backend();
}

function draw() {
  if (!view || !state) return;
  const dpr = window.devicePixelRatio || 1;
  const width = Math.max(1, Math.round(canvas.clientWidth * dpr));
  const height = Math.max(1, Math.round(canvas.clientHeight * dpr));
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  view.resize(width, height);
  camera.set_aspect(width / height);
  try {
    view.draw_particles(camera, state.particles, 0.5 * spacing, outline);
    if (++framesDrawn === 10) settleRenderer();
  } catch (error) {
    const wasWebGPU = view.backend() === 'WebGPU';
    view.free();
    view = null;
    framesDrawn = 0;
    page.notice('renderer', `${wasWebGPU ? 'WebGPU' : 'WebGL2'} stopped drawing (${error.message}); switched to WebGL2.`, 'warning');
    replaceCanvas();
    openView(false);
  }
}

// ---- Pointer: stir the water, orbit and zoom ------------------------------------------------------

/** The viewport point of a pointer event, in [−1, 1]² (y up). */
function ndc(event) {
  const rect = canvas.getBoundingClientRect();
  return [((event.clientX - rect.left) / rect.width) * 2 - 1, 1 - ((event.clientY - rect.top) / rect.height) * 2];
}

/** The particle a pointer event picks: the first along its ray within 1.5 Δx of it, as [x, y, z], or null. */
function pickParticle(event) {
  const p = state?.particles;
  if (!p) return null;
  const i = camera.pick(...ndc(event), p, 4, 1.5 * spacing);
  return i < 0 ? null : [p[4 * i], p[4 * i + 1], p[4 * i + 2]];
}

/** Tell the solver where the pointer stirs (its point and velocity), or that it stopped. */
function sendStir(point, velocity, on) {
  solver.call('set_stir', [...point, ...velocity, on]).then(
    () => page.notice('stir', null),
    (error) => page.notice('stir', `The stir was refused: ${error.message}`, 'warning'),
  );
}

const pointers = new Map();
let pinch = 0;
/**
 * A drag that grabbed the water: the plane it moves in (through the particle hit, facing the camera),
 * and its velocity over the simulated time between the frames it moved in (the water may run slower
 * than real time: measured in real time, the stir would drive it slower than the pointer is seen to
 * move); `still` the frames since it last moved.
 */
let stirring = null;
/** A pointer held still for this many frames stirs at rest. */
const STIR_REST_FRAMES = 2;
function stopStirring() {
  if (!stirring) return;
  stirring = null;
  sendStir([0, 0, 0], [0, 0, 0], false);
  delete container.dataset.action;
}
container.addEventListener('pointerdown', (event) => {
  if (event.target !== canvas) return;
  event.preventDefault();
  container.setPointerCapture(event.pointerId);
  pointers.set(event.pointerId, [event.clientX, event.clientY]);
  stopStirring();
  if (pointers.size >= 2) {
    const [a, b] = [...pointers.values()];
    pinch = Math.hypot(a[0] - b[0], a[1] - b[1]);
    return;
  }
  // On the water: stir it; elsewhere: turn the camera.
  const hit = pickParticle(event);
  if (hit) {
    stirring = { anchor: hit, from: hit, since: state.report.time, velocity: [0, 0, 0], point: hit, still: 0 };
    container.dataset.action = 'stir';
    sendStir(hit, [0, 0, 0], true);
  }
});
container.addEventListener('pointermove', (event) => {
  const last = pointers.get(event.pointerId);
  if (!last) return;
  pointers.set(event.pointerId, [event.clientX, event.clientY]);
  if (pointers.size >= 2) {
    const [a, b] = [...pointers.values()];
    const spread = Math.hypot(a[0] - b[0], a[1] - b[1]);
    if (spread > 0 && pinch > 0) camera.zoom(pinch / spread);
    pinch = spread;
  } else if (stirring) {
    const point = Array.from(camera.drag_point(...ndc(event), ...stirring.anchor));
    const elapsed = state.report.time - stirring.since;
    if (elapsed > 0) {
      stirring.velocity = point.map((x, k) => (x - stirring.from[k]) / elapsed);
      stirring.from = point;
      stirring.since = state.report.time;
    }
    stirring.point = point;
    stirring.still = 0;
    sendStir(point, stirring.velocity, true);
  } else {
    camera.orbit(-(event.clientX - last[0]) * 0.008, (event.clientY - last[1]) * 0.008);
  }
  draw();
});
for (const type of ['pointerup', 'pointercancel']) {
  container.addEventListener(type, (event) => {
    pointers.delete(event.pointerId);
    if (pointers.size === 0) stopStirring();
  });
}
container.addEventListener(
  'wheel',
  (event) => {
    if (event.target !== canvas) return;
    event.preventDefault();
    camera.zoom(Math.exp(Math.max(-1, Math.min(1, event.deltaY * 0.001))));
    draw();
  },
  { passive: false },
);

// ---- The loop: one request to the worker per frame -----------------------------------------------

await openView('gpu' in navigator);

/** Real time the next frame asks for (set by stepsForFrame; null: the Step button's exact steps). */
let frameWall = null;

page.start({
  dt: () => lastDt,
  speed: () => 1,
  time: () => state?.report.time ?? 0,
  stepsForFrame: (wall) => {
    frameWall = Math.min(wall, MAX_FRAME_SECONDS);
    return 1;
  },
  // The solver steps and says how many steps it took and how long they took.
  step: async (n) => {
    const wall = frameWall;
    frameWall = null;
    const colour = params.colour;
    const stepping = solver;
    let reply;
    try {
      reply = await stepping.advance({ wall, steps: n, time: state.report.time, colour });
    } catch (error) {
      if (stepping !== gpuSolver) throw error;
      if (stepping !== solver) return 'queued';
      // The device failed (lost, or a read-back refused): the scene starts again on the CPU, and a
      // later switch to the GPU makes a new device.
      page.notice('backend', `WebGPU compute stopped (${error.message}); the fluid starts again on the CPU.`, 'warning');
      params.backend = 'cpu';
      document.getElementById('backend-select').value = 'cpu';
      solver = cpuSolver;
      gpuSolver.release();
      await create();
      return 'queued';
    }
    if (reply.stale || stepping !== solver) return 'queued';
    state = { ...reply, colour };
    if (stirring && ++stirring.still >= STIR_REST_FRAMES && stirring.velocity.some((v) => v !== 0)) {
      // The pointer rests on the water: it holds the water there instead of pushing on.
      stirring = { ...stirring, velocity: [0, 0, 0], from: stirring.point, since: state.report.time };
      sendStir(stirring.point, stirring.velocity, true);
    }
    if (reply.steps > 0) page.recordSteps(reply.steps, reply.ms);
    page.notice('slow', reply.behind ? 'The water runs slower than real time here (each frame steps as much as its budget allows).' : null, 'info');
    showReport(reply.report);
    if (reply.report.error) page.setRunning(false);
    return 'queued';
  },
  restart: () => create(),
  render: async () => {
    if (state && state.colour !== params.colour) {
      // Paused: a new colour still shows.
      const colour = params.colour;
      state = { ...(await solver.state(colour)), colour };
    }
    draw();
  },
});
// For tests and the console: the solvers' live objects and the camera.
window.phyxelFluid = {
  get gpu() { return gpuSolver.device; },
  get solver() { return solver.name; },
  /** The steps the solver has taken in this scene, as last drawn (bench/fluid-step-times). */
  get steps() { return state?.report.steps ?? 0; },
  camera,
};
page.ready();
