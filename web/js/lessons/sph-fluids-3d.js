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

/** Wall-clock milliseconds the worker may spend stepping for one frame. */
const FRAME_BUDGET_MS = 14;
/** Simulated seconds one frame may ask for (a stalled tab must not ask for a burst). */
const MAX_FRAME_SECONDS = 1 / 20;

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

/** The CPU solver in the worker: every call a request. */
const cpuSolver = {
  name: 'cpu',
  create: (args, colour) => worker.request({ type: 'fluid-create', args, colour }),
  call: (method, args) => worker.request({ type: 'fluid-call', method, args }),
  /** Steps for `wall` seconds of real time within the frame's budget, or exactly `steps`. */
  advance: ({ wall, steps, time, colour }) =>
    worker.request(wall == null
      ? { type: 'fluid-advance', steps, colour }
      : { type: 'fluid-advance', until: time + wall, budgetMs: FRAME_BUDGET_MS, colour }),
  state: (colour) => worker.request({ type: 'fluid-state', colour }),
};

/** WCSPH on WebGPU compute, on this page (a device of its own); made when first chosen. */
const gpuSolver = {
  name: 'gpu',
  device: null,
  fluid: null,
  /** The device, made once: in Chromium a WebGPU canvas that cannot present takes the page's other
   * devices down with it, so it waits until the view has settled (drawn 10 frames, or fallen back). */
  async prepare() {
    if (!('gpu' in navigator)) throw new Error('this browser has no WebGPU: the fluid runs on the CPU');
    await rendererSettled;
    this.device ??= await GpuDevice.create();
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
  /** Milliseconds per step lately (the device's pace, read-back included). */
  msPerStep: 1,
  /** Queue the steps of `wall` seconds within the frame's budget (or `steps` of the last Δt), then
   * read the state back. */
  async advance({ wall, steps, colour }) {
    const start = performance.now();
    const most = Math.max(1, Math.min(400, Math.floor(FRAME_BUDGET_MS / this.msPerStep)));
    const queued = wall == null ? this.fluid.advance(steps * lastDt, Math.min(steps, 400)) : this.fluid.advance(wall, most);
    this.fluid.apply(await this.fluid.read_back());
    const ms = performance.now() - start;
    if (queued > 0) this.msPerStep = 0.7 * this.msPerStep + 0.3 * (ms / queued);
    const report = this.fluid.report();
    return { ...this.state(colour), steps: queued, ms, behind: wall != null && queued >= most && report.dt * queued < 0.999 * wall };
  },
  state(colour) {
    return { report: this.fluid.report(), particles: new Float32Array(this.fluid.particles(colour)) };
  },
};

let solver = cpuSolver;

/** What the worker sent last: the particles to draw, the walls' outline, the readouts. */
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

/** Build the scene anew with the current parameters, on `target` (the solver in use, or the one
 * switched to, which is in use from then on); a refusal leaves the running one. */
async function create(target = solver) {
  await target.prepare?.();
  const args = [params.scene, params.solver, params.across, params.xsph, params.iterations, params.sound];
  const reply = await target.create(args, params.colour);
  solver = target;
  state = { ...reply, colour: params.colour };
  outline = reply.outline;
  spacing = reply.spacing;
  frameCamera(reply.bounds);
  page.resetTiming();
  page.notice('blowup', null);
  showReport(reply.report);
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
    { value: 'gpu', label: 'WebGPU compute (WCSPH, dam break)' },
  ],
  // A new backend starts the scene again on it; one that refuses it (no WebGPU, the glass, DFSPH or
  // PBF on the GPU) leaves the running one, and says why.
  onChange: (value) => {
    const previous = { backend: params.backend, solver: params.solver };
    params.backend = value;
    // The GPU steps WCSPH: choosing it chooses WCSPH.
    if (value === 'gpu') params.solver = 'wcsph';
    document.getElementById('solver-select').value = params.solver;
    // Not tracked: the running scene goes on until the new one is built (the GPU's waits for the
    // view to settle, which needs frames).
    return create(value === 'gpu' ? gpuSolver : cpuSolver).then(
        () => {
          page.notice('backend', null);
          document.body.dataset.backend = value;
          setComputesOn(value === 'gpu' ? `WebGPU compute (${gpuSolver.fluid.adapter() || 'unnamed adapter'})` : CPU_COMPUTES_ON);
        },
        (error) => {
          params.solver = previous.solver;
          document.getElementById('solver-select').value = previous.solver;
          refusedSelect('backend-select', 'backend', previous.backend, new Error(`WebGPU compute was refused: ${error.message}`));
          // A scene built meanwhile (another control) took WCSPH: the running one gets its solver back.
          return solver.call('set_solver', [previous.solver]);
        },
    );
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
    return page.track(
      create().then(
        () => page.notice('scene', null),
        (error) => refusedSelect('scene-select', 'scene', previous, new Error(`The scene “${value}” was refused: ${error.message}`)),
      ),
    );
  },
});
c.select({
  param: 'solver',
  id: 'solver-select',
  label: 'Solver',
  value: params.solver,
  options: [
    { value: 'wcsph', label: 'WCSPH (weakly compressible)' },
    { value: 'dfsph', label: 'DFSPH (divergence-free)' },
    { value: 'pbf', label: 'PBF (position-based fluids)' },
  ],
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
      const next = { ...params, [name]: value };
      params[name] = value;
      page.notice('blowup', null);
      // The solver checks the same table: a refusal there comes back to the control.
      return solver.call('set_parameters', [next.xsph, next.iterations, next.sound]);
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
    readouts.front(mm == null
      ? `${z.toFixed(3)} at T = ${t.toFixed(2)} (the table covers T = 0.83 … 9.24)`
      : `${z.toFixed(3)} at T = ${t.toFixed(2)} / ${mm.toFixed(3)} (${(100 * (z / mm - 1)).toFixed(1)} %)`);
  } else {
    readouts.front('— (the dam break)');
  }
  if (r.glass) {
    const [held, level, expected] = r.glass;
    readouts.glass(`${(100 * held).toFixed(2)} % / ${level.toFixed(3)} a / ${expected.toFixed(3)} a`);
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

// ---- Pointer: orbit and zoom ---------------------------------------------------------------------

const pointers = new Map();
let pinch = 0;
container.addEventListener('pointerdown', (event) => {
  if (event.target !== canvas) return;
  event.preventDefault();
  container.setPointerCapture(event.pointerId);
  pointers.set(event.pointerId, [event.clientX, event.clientY]);
  if (pointers.size >= 2) {
    const [a, b] = [...pointers.values()];
    pinch = Math.hypot(a[0] - b[0], a[1] - b[1]);
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
  } else {
    camera.orbit(-(event.clientX - last[0]) * 0.008, (event.clientY - last[1]) * 0.008);
  }
  draw();
});
for (const type of ['pointerup', 'pointercancel']) {
  container.addEventListener(type, (event) => pointers.delete(event.pointerId));
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
    const stepping = solver;
    let reply;
    try {
      reply = await stepping.advance({ wall, steps: n, time: state.report.time, colour: params.colour });
    } catch (error) {
      if (stepping !== gpuSolver) throw error;
      // The device failed (lost, or a read-back refused): the scene starts again on the CPU.
      page.notice('backend', `WebGPU compute stopped (${error.message}); the fluid starts again on the CPU.`, 'warning');
      params.backend = 'cpu';
      document.getElementById('backend-select').value = 'cpu';
      document.body.dataset.backend = 'cpu';
      setComputesOn(CPU_COMPUTES_ON);
      // A later switch to the GPU makes a new device.
      gpuSolver.fluid?.free();
      gpuSolver.fluid = null;
      gpuSolver.device = null;
      await create(cpuSolver);
      return 'queued';
    }
    if (stepping !== solver) return 'queued';
    state = { ...reply, colour: params.colour };
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
      state = { ...(await solver.state(params.colour)), colour: params.colour };
    }
    draw();
  },
});
// For tests and the console: the solvers' live objects and the camera.
window.phyxelFluid = {
  get gpu() { return gpuSolver.device; },
  get solver() { return solver.name; },
  camera,
};
page.ready();
