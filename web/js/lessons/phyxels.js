// "Elastic, plastic and melting objects": the phyxel solver (crates/phyxel/src/meshless) in 3D.
// Glue: crates/phyxel-view (the page's PhyxelDemo over crates/phyxel-app's Demo, with the GPU backend; view.rs: the wgpu view).
// The solver's three backends (WebGPU compute on the page, the CPU in a Web Worker, the CPU on the
// page's thread) are behind one interface, js/lessons/phyxels-backends.js; the page keeps a copy of
// the state (solver.demo) for drawing, picking and readouts.
import init, { OrbitCamera, PhyxelDemo, PhyxelView } from '../../phyxel-view.js';
import { defaults, fromTable } from '../site/controls.js';
import { LessonPage } from '../site/page.js';
import { setComputesOn } from '../workers/backend.js';
import { availableThreads } from '../workers/worker-builds.js';
import { PhyxelSolver, READOUT_INTERVAL_MS } from './phyxels-backends.js';

await init();
/** The demo's numeric parameters with their ranges and defaults, from Rust (crates/phyxel-app/src/parameters.rs). */
const TABLE = PhyxelDemo.parameters();

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly)' });
/** Milliseconds of stepping one frame may spend; beyond it the demo runs slower than real time. */
const FRAME_BUDGET_MS = 14;

const params = {
  ...defaults(TABLE),
  backend: 'cpu',
  threads: availableThreads(),
  scene: 'cube',
  lattice: 'cubic',
  obstacle: false,
  plastic: false,
  tool: 'pull',
  timeStep: 'auto',
  substeps: 'auto',
  integrator: 'symplectic-euler',
  implicitModel: 'quadrature',
  colourBy: 'object',
  weights: 'visibility',
  showPhyxels: true,
  showSurface: false,
};

// ---- The simulation ------------------------------------------------------------------------------

/** The scene: the PhyxelDemo constructor's arguments. */
function sceneArgs() {
  return [
    params.scene,
    params.resolution,
    params.lattice === 'bcc',
    params.young,
    params.poisson,
    params.density,
    params.volumeStiffness,
    params.obstacle,
  ];
}

/** The fracture scenes (crates/phyxel-app: Demo's `notched-bar`, fracture::scenes::notched_bar,
 * `struck-slab`, fracture::slab::struck_slab, and `ductile-bar`, fracture::ductile::ductile_bar). */
const NOTCHED_BAR = 'notched-bar';
const STRUCK_SLAB = 'struck-slab';
const DUCTILE_BAR = 'ductile-bar';
const isFractureScene = () => [NOTCHED_BAR, STRUCK_SLAB, DUCTILE_BAR].includes(params.scene);
/** The ductile bar's plasticity is part of the scene (Demo::set_plasticity refuses it there). */
const hasOwnPlasticity = () => params.scene === DUCTILE_BAR;

/** The settings, as the calls that make them: the page's copy and the worker's are set up alike. */
function settingCalls() {
  const calls = [
    // First: it builds the bar or the slab anew (the other setters then apply to it).
    ...(isFractureScene() ? [['set_fracture', params.strength, params.cProp, params.weights, params.kappa, params.omegaMin, params.load, params.ballSpeed]] : []),
    ['set_implicit_solver', params.cgTolerance, Math.round(params.cgIterations)],
    ['set_implicit_model', params.implicitModel],
    ['set_integrator', params.integrator],
    ['set_damping_and_friction', params.damping, params.friction],
    ...(hasOwnPlasticity() ? [] : [['set_plasticity', params.plastic, params.yieldStrain, params.creep, params.maxStrain]]),
  ];
  // Once heated, the body keeps diffusing its heat (a source of rate 0).
  if (melting) calls.push(['set_heat_source', 0, 0, 0, params.heatRadius, 0]);
  return calls;
}

/** Whether the heat tool has switched melting on (it stays on until the scene is rebuilt). */
let melting = false;
let accumulated = 0;
let lastSubsteps = 0;
/** The solver's own count of steps done and simulated time, sampled at each readout update: the rates
 * shown come from what was done, not asked for (a busy GPU takes steps later, or not at all). */
let lastSample = null;
const solver = new PhyxelSolver({
  page,
  scene: sceneArgs,
  settings: settingCalls,
  timing: () => ({ dt: currentDt(), fixed: params.substeps === 'fixed' ? params.substepCount : 0 }),
  view: () => view,
  onChange: () => showBackend(),
  onSteps: (steps, ms) => {
    page.recordSteps(steps, ms);
    lastSubsteps = steps;
  },
});

/** Build the scene anew (a scene control changed, or Restart). Throws, keeping the old one, if refused. */
function rebuild() {
  const wasMelting = melting;
  melting = false;
  let fresh;
  try {
    fresh = solver.build();
  } catch (error) {
    melting = wasMelting;
    throw error;
  }
  endPointerAction();
  solver.replace(fresh);
  accumulated = 0;
  page.notice('step-error', null);
  frameCamera();
  solver.show();
}

/** A blow-up: the solver kept the last good state. Pause there and explain. */
function stepFailed() {
  page.setRunning(false);
  page.notice('step-error', `Paused: ${solver.demo.error()}.`, 'error');
}

/** Implicit Euler's automatic step: one step per frame at 60 Hz (no stability bound applies). */
const IMPLICIT_AUTO_DT = 1 / 60;

/** The step size in use: a fraction of the stability bound h√(ρ/E) (1/60 s implicitly), or the user's Δt. */
function currentDt() {
  if (params.timeStep !== 'auto') return params.dt;
  return solver.demo.is_implicit() ? IMPLICIT_AUTO_DT : params.cflFraction * solver.demo.cfl_time_step();
}

// ---- Controls -------------------------------------------------------------------------------------

const c = page.controls;
/** A numeric control of the demo's parameter `key`: range, whole-number flag and default from TABLE. */
const number = (panel, key, label, unit, onChange, range = fromTable(TABLE, key), help = '') =>
  panel.number({
    ...range,
    help,
    id: `param-${key}`,
    label,
    unit,
    value: params[key],
    onChange: (value) => {
      const previous = params[key];
      params[key] = value;
      let result;
      try {
        result = onChange?.(value);
      } catch (error) {
        params[key] = previous;
        throw error;
      }
      // A change that settles later (the worker's threads) and fails: the control puts its value back.
      result?.then?.(null, () => {
        if (params[key] === value) params[key] = previous;
      });
      return result;
    },
  });
const select = (panel, key, label, options, onChange) =>
  panel.select({
    param: key,
    id: `param-${key}`,
    label,
    value: params[key],
    options,
    onChange: (value) => {
      const previous = params[key];
      params[key] = value;
      try {
        onChange?.(value);
        page.notice(`param-${key}`, null);
      } catch (error) {
        params[key] = previous;
        page.notice(`param-${key}`, `${label}: ${error.message}`, 'error');
      }
    },
  });
const checkbox = (panel, key, label, onChange) =>
  panel.checkbox({
    param: key,
    id: `param-${key}`,
    label,
    checked: params[key],
    onChange: (checked) => {
      params[key] = checked;
      onChange?.(checked);
    },
  });

const backendSelect = select(c, 'backend', 'Solver runs on', [
  { value: 'cpu', label: 'CPU (WebAssembly, in a worker)' },
  { value: 'gpu', label: 'GPU (WebGPU compute)' },
], (value) => solver.switchTo(value));
// The page's own: its largest value is the browser's processor count.
const threadsRange = { param: 'threads', min: 1, max: availableThreads(), integer: true };
const threadsControl = number(c, 'threads', 'CPU threads', '', (n) => solver.setThreads(n), threadsRange);

const scene = c.group('Scene');
select(scene, 'scene', 'Objects', [
  { value: 'cube', label: 'Cube' },
  { value: 'sphere', label: 'Sphere' },
  { value: 'torus', label: 'Torus' },
  { value: 'bunny', label: 'Bunny (mesh)' },
  { value: 'several', label: 'Cube, sphere and torus' },
  { value: 'collide', label: 'Ball dropped on a cube (contact, CPU)' },
  { value: NOTCHED_BAR, label: 'Notched bar pulled apart (fracture, CPU)' },
  { value: STRUCK_SLAB, label: 'Brittle slab struck by a ball (fracture, CPU)' },
  { value: DUCTILE_BAR, label: 'Ductile bar torn (plastic fracture, CPU)' },
], () => {
  rebuild();
  showFractureControls();
});
number(scene, 'resolution', 'Phyxels across', '', rebuild);
select(scene, 'lattice', 'Lattice', [
  { value: 'cubic', label: 'Cubic' },
  { value: 'bcc', label: 'Body-centred cubic' },
], rebuild);
checkbox(scene, 'obstacle', 'Ball on the ground', () => guard('param-obstacle', rebuild));

const materialGroup = c.group('Material');
const setMaterial = () => solver.call('set_material', params.young, params.poisson, params.density, params.volumeStiffness);
number(materialGroup, 'young', 'Young’s modulus E', 'Pa', setMaterial);
number(materialGroup, 'poisson', 'Poisson’s ratio ν', '', setMaterial);
number(materialGroup, 'density', 'Density ρ', 'kg/m³', setMaterial);
number(materialGroup, 'volumeStiffness', 'Volume stiffness k<sub>v</sub>', 'Pa', setMaterial);

const plasticGroup = c.group('Plasticity');
const setPlasticity = () => {
  if (!hasOwnPlasticity()) solver.call('set_plasticity', params.plastic, params.yieldStrain, params.creep, params.maxStrain);
};
checkbox(plasticGroup, 'plastic', 'Plastic', () => {
  setPlasticity();
  plasticDetails.setVisible(params.plastic);
});
const plasticDetails = plasticGroup.group();
number(plasticDetails, 'yieldStrain', 'Yield c<sub>yield</sub>', '', setPlasticity);
number(plasticDetails, 'creep', 'Creep c<sub>creep</sub>', '1/s', setPlasticity);
number(plasticDetails, 'maxStrain', 'Max c<sub>max</sub>', '', setPlasticity);
plasticDetails.setVisible(params.plastic);

// The fracture scenes' settings (seed 000 §4.1.3; seed 002 §7.3, eq. 70): a change builds the bar or
// the slab anew; the solver refuses what it cannot take (each value positive; load × σ_t below E/2;
// the ball's speed 0 or more) with the reason.
const fractureGroup = c.group('Fracture');
const setFracture = () => {
  if (isFractureScene()) rebuild();
};
number(fractureGroup, 'strength', 'Tensile strength σ<sub>t</sub>', 'Pa', setFracture, undefined, 'Positive: a crack starts where the largest principal stress σ₁ exceeds it.');
number(fractureGroup, 'cProp', 'Crack speed c<sub>prop</sub>', 'm/s', setFracture, undefined, 'Positive: how fast a loaded crack front advances.');
select(fractureGroup, 'weights', 'Weights across a crack', [
  { value: 'visibility', label: 'Visibility (cut)' },
  { value: 'transparency', label: 'Transparency (eq. 70)' },
], () => {
  setFracture();
  showFractureControls();
});
const kappaControl = number(fractureGroup, 'kappa', 'Transparency κ', '', setFracture, undefined, 'Positive: how far from the front (in h) a crack stays see-through.');
number(fractureGroup, 'omegaMin', 'Resampling Ω<sub>min</sub>', '', setFracture, undefined, 'Positive: a phyxel a crack leaves seeing fewer neighbours than this (Ω = Σ ω′/ω) gets new phyxels beside it (seed 002 eq. 71).');
const loadControl = number(fractureGroup, 'load', 'Grips’ load (fraction of σ<sub>t</sub>, over 1 s)', '', setFracture, undefined, 'The uniaxial stress the grips reach, as a fraction of σ_t; load × σ_t must stay below E/2.');
const ballSpeedControl = number(fractureGroup, 'ballSpeed', 'Ball speed', 'm/s', setFracture, undefined, 'How fast the 33 kg steel ball strikes the slab near its centre (0 or more).');
function showFractureControls() {
  fractureGroup.setVisible(isFractureScene());
  plasticGroup.setVisible(!hasOwnPlasticity());
  loadControl.input.closest('.control').hidden = params.scene !== NOTCHED_BAR;
  ballSpeedControl.input.closest('.control').hidden = params.scene !== STRUCK_SLAB;
  kappaControl.input.closest('.control').hidden = params.weights !== 'transparency';
}

// The pointer's tool. Cut and strike act in the fracture scenes, on the solver that steps (the worker's,
// which holds the cracks: PhyxelSolver.tool); the physics is crates/phyxel's fracture::tool.
const pointerGroup = c.group('Pointer and heat');
select(pointerGroup, 'tool', 'Tool', [
  { value: 'pull', label: 'Grab: dragging pulls a phyxel' },
  { value: 'heat', label: 'Heat: dragging heats it' },
  { value: 'cut', label: 'Cut: a stroke across it (fracture scenes)' },
  { value: 'strike', label: 'Strike: a click hits it (fracture scenes)' },
], () => showHint());
number(pointerGroup, 'heatRate', 'Heating rate', 'K/s');
number(pointerGroup, 'heatRadius', 'Heat radius', 'm');
number(pointerGroup, 'strikeSpeed', 'Strike speed Δv', 'm/s', undefined, undefined, 'The velocity change a strike gives the phyxels within two spacings of the point it hits, along the view.');
const hint = document.querySelector('.view-hint');
const HINTS = {
  pull: 'Drag empty space: orbit · drag the object: pull · wheel or pinch: zoom',
  heat: 'Drag empty space: orbit · hold on the object: heat · wheel or pinch: zoom',
  cut: 'Drag a stroke across the body: cut it along the plane the stroke sweeps · wheel or pinch: zoom (Grab to orbit)',
  strike: 'Click the body: strike it along the view · drag empty space: orbit · wheel or pinch: zoom',
};
function showHint() {
  hint.textContent = HINTS[params.tool] ?? HINTS.pull;
}
showHint();

const timeGroup = c.group('Time stepping');
const integratorSelect = select(timeGroup, 'integrator', 'Integrator', [
  { value: 'symplectic-euler', label: 'Symplectic Euler' },
  { value: 'leap-frog', label: 'Leap-frog' },
  { value: 'velocity-verlet', label: 'Velocity Verlet' },
  { value: 'position-verlet', label: 'Position Verlet (thesis)' },
  { value: 'rk2', label: 'Runge–Kutta 2' },
  { value: 'rk4', label: 'Runge–Kutta 4' },
  { value: 'explicit-euler', label: 'Explicit Euler (unstable)' },
  { value: 'implicit-euler', label: 'Implicit Euler (corotated, CG)' },
], (id) => {
  solver.call('set_integrator', id);
  showTimeControls();
});
const implicitModelSelect = select(timeGroup, 'implicitModel', 'Implicit model', [
  { value: 'quadrature', label: 'Background quadrature (converges)' },
  { value: 'nodal', label: 'Nodal, volumes m/ρ (MKN04)' },
], (id) => solver.call('set_implicit_model', id));
const setImplicitSolver = () => solver.call('set_implicit_solver', params.cgTolerance, Math.round(params.cgIterations));
const cgToleranceControl = number(timeGroup, 'cgTolerance', 'CG tolerance', '', setImplicitSolver);
const cgIterationsControl = number(timeGroup, 'cgIterations', 'CG iterations at most', '', setImplicitSolver);
select(timeGroup, 'timeStep', 'Δt', [
  { value: 'auto', label: 'Automatic (a fraction of the bound; 1/60 s implicitly)' },
  { value: 'manual', label: 'Fixed' },
], () => showTimeControls());
const cflControl = number(timeGroup, 'cflFraction', 'Δt / (h√(ρ/E))', '');
const dtControl = number(timeGroup, 'dt', 'Δt', 's');
select(timeGroup, 'substeps', 'Substeps per frame', [
  { value: 'auto', label: 'Keep up with real time' },
  { value: 'fixed', label: 'Fixed number' },
], () => showTimeControls());
const substepControl = number(timeGroup, 'substepCount', 'Substeps', '');
const setDamping = () => solver.call('set_damping_and_friction', params.damping, params.friction);
number(timeGroup, 'damping', 'Damping c', '1/s', setDamping);
number(timeGroup, 'friction', 'Friction μ', '', setDamping);
function showTimeControls() {
  const implicit = params.integrator === 'implicit-euler';
  cflControl.input.closest('.control').hidden = params.timeStep !== 'auto' || implicit;
  implicitModelSelect.select.closest('.control').hidden = !implicit;
  cgToleranceControl.input.closest('.control').hidden = !implicit;
  cgIterationsControl.input.closest('.control').hidden = !implicit;
  dtControl.input.closest('.control').hidden = params.timeStep === 'auto';
  substepControl.input.closest('.control').hidden = params.substeps === 'auto';
}
showTimeControls();
showFractureControls();

const displayGroup = c.group('Display');
select(displayGroup, 'colourBy', 'Colour by', [
  { value: 'object', label: 'Object (the fracture scenes: fragment)' },
  { value: 'stress', label: 'σ₁/σ_t (the fracture scenes: 0–1)' },
  { value: 'temperature', label: 'Temperature (20–100 °C)' },
  { value: 'plastic', label: 'Plastic strain (0–c_max)' },
  { value: 'speed', label: 'Speed (0–2 m/s)' },
]);
checkbox(displayGroup, 'showPhyxels', 'Phyxels');
checkbox(displayGroup, 'showSurface', 'Surface mesh');

/** Run `action`; a refusal becomes a notice named after the control. */
function guard(key, action) {
  try {
    action();
    page.notice(key, null);
  } catch (error) {
    page.notice(key, error.message, 'error');
  }
}

// ---- Where the solver runs ------------------------------------------------------------------------

/** Start the CPU solver's worker; the thread control says whether it can take several. */
async function startWorker() {
  await solver.startWorker(params.threads);
  threadsControl.input.disabled = !solver.cpu?.threaded;
  threadsControl.input.closest('.control').title = solver.cpu?.threaded
    ? `1 to ${availableThreads()} (this browser's logical processors)`
    : `Only the threaded build runs several: ${solver.workerBuild.reason}.`;
}

/** The select and the readout follow where the solver really runs (the CPU's worker once ready). */
function showBackend() {
  params.backend = solver.backend;
  backendSelect.select.value = solver.backend;
  const where = solver.where();
  readouts.solver(where);
  setComputesOn(where);
  document.body.dataset.solver = solver.backend;
  document.body.dataset.cpuThreads = String(solver.threads);
}

// ---- Readouts -------------------------------------------------------------------------------------

const readouts = {
  drawn: page.readout('drawn', 'Drawn'),
  cracks: page.readout('cracks', 'Cracks (grown)'),
  fragments: page.readout('fragments', 'Fragments'),
  free: page.readout('free-particles', 'Free particles'),
  peak: page.readout('peak-stress', 'Peak σ₁/σ_t'),
  load: page.readout('load', 'Grips’ load / ball speed / elongation'),
  plasticStrain: page.readout('peak-plastic-strain', 'Peak plastic strain ‖ε_p‖'),
  tool: page.readout('tool-result', 'Last cut / strike'),
  solver: page.readout('solver', 'Solver'),
  threads: page.readout('thread-work', 'Work per CPU thread'),
  renderer: page.readout('renderer', 'Renderer'),
  phyxels: page.readout('phyxels', 'Phyxels'),
  neighbours: page.readout('mean-neighbours', 'Mean neighbours'),
  regularized: page.readout('regularized', 'Singular moment matrices'),
  cfl: page.readout('cfl', 'Stability bound h√(ρ/E)'),
  dt: page.readout('dt', 'Δt'),
  substeps: page.readout('substeps', 'Substeps per frame'),
  stepsPerSecond: page.readout('steps-per-second', 'Steps per second'),
  realTime: page.readout('real-time', 'Real-time factor'),
  cg: page.readout('cg', 'CG iterations (residual)'),
  integration: page.readout('integration', 'Elastic energy integrated'),
  updates: page.readout('reference-updates', 'Reference updates'),
  temperature: page.readout('max-temperature', 'Hottest phyxel'),
  height: page.readout('height', 'Top of the objects'),
};
let lastReadout = 0;

function updateReadouts(now) {
  if (now - lastReadout < READOUT_INTERVAL_MS) return;
  lastReadout = now;
  const demo = solver.demo;
  readouts.phyxels(String(demo.phyxel_count()));
  readouts.neighbours(demo.mean_neighbours().toFixed(1));
  readouts.regularized(String(demo.regularized_count()));
  readouts.cfl(`${(demo.cfl_time_step() * 1e3).toPrecision(3)} ms`);
  readouts.dt(`${(currentDt() * 1e3).toPrecision(3)} ms`);
  readouts.substeps(String(lastSubsteps));
  // The solver's own count of phyxels each pool thread computed: who really did the work.
  const work = solver.workPerThread();
  const total = work.reduce((a, b) => a + b, 0);
  if (!solver.workerSteps) readouts.threads('—');
  else if (total > 0) readouts.threads(work.map((w) => `${Math.round((100 * w) / total)} %`).join(' · '));
  const sample = { demo, wall: now, steps: demo.steps(), time: demo.time() };
  if (lastSample?.demo === demo && now > lastSample.wall) {
    const seconds = (now - lastSample.wall) / 1000;
    readouts.stepsPerSecond(String(Math.round((sample.steps - lastSample.steps) / seconds)));
    readouts.realTime(`${((sample.time - lastSample.time) / seconds).toFixed(2)}×`);
  }
  lastSample = sample;
  const iterations = demo.cg_iterations();
  readouts.cg(iterations < 0 ? '— (explicit)' : `${iterations} (${demo.cg_residual().toExponential(1)})`);
  readouts.integration(demo.integration() === 'quadrature' ? 'at Gauss points (background quadrature)' : 'at the phyxels (nodal)');
  readouts.updates(String(demo.reference_updates()));
  readouts.temperature(`${demo.max_temperature().toFixed(1)} °C`);
  readouts.height(`${demo.height().toFixed(3)} m`);
  // The fracture scene's own: computed by the solver that cuts (the worker's), carried with its state.
  const fracture = demo.fracture_readouts();
  if (fracture.length) {
    const [cracks, grown, fragments, free, peak, load, plastic] = fracture;
    const colouredBy = { stress: 'σ₁/σ_t', plastic: 'plastic strain ‖ε_p‖ (0–c_max)' }[colouring()] ?? 'fragment (free particles one more colour)';
    // The surface: the lattice's cell faces outside and along the cracks (fracture::cells).
    const [faces, crackFaces] = demo.surface_faces();
    const surface = `the surface, ${faces} cell faces (${crackFaces} on cracks)`;
    readouts.drawn(params.showPhyxels && params.showSurface ? `phyxels and ${surface}, coloured by ${colouredBy}`
      : params.showSurface ? `${surface}, coloured by ${colouredBy}`
        : params.showPhyxels ? `phyxels as spheres, coloured by ${colouredBy} (tick Surface mesh for the surface split along the cracks)`
          : 'nothing (tick Phyxels or Surface mesh)');
    readouts.cracks(`${cracks} (${grown})`);
    readouts.fragments(String(fragments));
    readouts.free(String(free));
    readouts.peak(peak.toFixed(3));
    readouts.load(params.scene === STRUCK_SLAB ? `ball ${load.toFixed(2)} m/s`
      : params.scene === DUCTILE_BAR ? `elongation ${(load * 1e3).toFixed(1)} mm`
        : `${(load * params.load).toFixed(3)} σ_t`);
    readouts.plasticStrain(plastic.toFixed(3));
    document.body.dataset.fracture = JSON.stringify({ cracks, grown, fragments, free, peak, load, plastic, faces, crackFaces });
  } else {
    delete document.body.dataset.fracture;
  }
  showFractureReadouts(fracture.length > 0);
}

/** The fracture readouts' rows show in the fracture scene only. */
const FRACTURE_READOUTS = ['drawn', 'cracks', 'fragments', 'free-particles', 'peak-stress', 'load', 'peak-plastic-strain', 'tool-result'];
function showFractureReadouts(shown) {
  for (const id of FRACTURE_READOUTS) document.getElementById(`readout-${id}`).closest('tr').hidden = !shown;
}
showFractureReadouts(false);

/** Cut or strike (PhyxelDemo.cut / strike) on the solver that steps; what it did shows in the readout,
 * a refusal at the tool's control. */
function useTool(method, ...args) {
  const name = method === 'cut' ? 'Cut' : 'Strike';
  solver.tool(method, ...args).then(
    (result) => {
      page.notice('param-tool', null);
      if (method === 'cut') {
        const [passed, refitted, released, fragments, free, before, after] = result;
        readouts.tool(`cut: ${refitted} phyxels refitted (${passed} passed, ${released} released), ${fragments} fragments, ${free} free; U ${(before * 1e3).toPrecision(4)} → ${(after * 1e3).toPrecision(4)} mJ`);
        document.body.dataset.toolResult = JSON.stringify({ method, passed, refitted, released, fragments, free, before, after });
      } else {
        const [struck, mass, jx, jy, jz] = result;
        const impulse = Math.hypot(jx, jy, jz);
        readouts.tool(`strike: ${struck} phyxels (${mass.toPrecision(3)} kg), impulse ${impulse.toPrecision(3)} N·s`);
        document.body.dataset.toolResult = JSON.stringify({ method, struck, mass, impulse });
      }
    },
    (error) => page.notice('param-tool', `${name}: ${error.message}`, 'error'),
  );
}

/** The colouring drawn: the fracture scene colours by fragment ("object") or σ₁/σ_t, the others
 * have no stress colouring (σ₁/σ_t falls back to the object). */
function colouring() {
  if (isFractureScene()) return params.colourBy === 'stress' ? 'stress' : params.colourBy === 'object' ? 'fragment' : params.colourBy;
  return params.colourBy === 'stress' ? 'object' : params.colourBy;
}

// ---- The view: WebGPU, else WebGL2, else an explanation ------------------------------------------

const container = document.querySelector('.view3d');
const strokeOverlay = document.getElementById('stroke');
const message = document.getElementById('view-message');
const camera = new OrbitCamera();
let canvas = document.getElementById('scene');
let view = null;
// The renderer has settled once it drew 10 frames (a WebGPU canvas that cannot present fails before
// that, and in Chromium it takes the other WebGPU devices of the page down with it).
let framesDrawn = 0;
let settleRenderer;
const rendererSettled = new Promise((resolve) => (settleRenderer = resolve));

function frameCamera() {
  const [x, , z, r] = solver.demo.bounds();
  camera.frame(x, 0.35, z, Math.max(r, 0.45));
}
frameCamera();

/** A fresh canvas in place of the old one: a canvas keeps the first kind of context it gave out. */
function replaceCanvas() {
  const fresh = canvas.cloneNode(false);
  canvas.replaceWith(fresh);
  canvas = fresh;
}

function sizeCanvas() {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.max(1, Math.round(canvas.clientWidth * dpr));
  canvas.height = Math.max(1, Math.round(canvas.clientHeight * dpr));
}

async function openView(allowWebGPU) {
  sizeCanvas();
  try {
    view = await PhyxelView.create(canvas, allowWebGPU);
  } catch (error) {
    if (allowWebGPU) {
      // No adapter is the common case (the footer badge says why); a failure after that is news.
      if (!/grants no WebGPU adapter/.test(error.message)) {
        page.notice('renderer', `WebGPU could not draw (${error.message}); drawing with WebGL2.`, 'info');
      }
      replaceCanvas();
      return openView(false);
    }
    view = null;
    settleRenderer();
    message.hidden = false;
    message.textContent = `This browser can draw neither with WebGPU nor with WebGL2 (${error.message}). The simulation still runs: the readouts follow it.`;
    readouts.renderer('none');
    document.body.dataset.renderer = 'none';
    return;
  }
  readouts.renderer(`${view.backend()} (${view.adapter() || 'unnamed adapter'})`);
  document.body.dataset.renderer = view.backend();
}

/** The view failed (a GPU error or a lost device): say so and draw with WebGL2 from the next frame. */
function viewFailed(reason) {
  const failed = view;
  view = null;
  const wasWebGPU = failed?.backend() === 'WebGPU';
  // A solver on the view's device went down with it (its next read-back says so): a later switch to
  // the GPU opens a device of its own.
  solver.viewLost();
  failed?.free();
  framesDrawn = 0;
  page.notice('renderer', `${wasWebGPU ? 'WebGPU' : 'WebGL2'} stopped drawing (${reason}); switched to WebGL2.`, 'warning');
  replaceCanvas();
  openView(false);
}

function draw() {
  if (!view) return;
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
    view.draw(solver.demo, camera, colouring(), params.showPhyxels, params.showSurface);
    document.body.dataset.phyxelsFrom = view.draws_from_solver() ? 'solver-buffers' : 'page-copy';
    if (++framesDrawn === 10) settleRenderer();
  } catch (error) {
    viewFailed(error.message);
  }
}

// ---- Pointer: orbit, pull, heat, zoom ------------------------------------------------------------

const pointers = new Map();
let action = null;

function ndc(event) {
  const rect = canvas.getBoundingClientRect();
  return [((event.clientX - rect.left) / rect.width) * 2 - 1, 1 - ((event.clientY - rect.top) / rect.height) * 2];
}

function applyAction(event) {
  const target = camera.drag_point(...ndc(event), ...action.anchor);
  if (action.kind === 'pull') {
    solver.call('drag', action.phyxel, ...target, currentDt());
  } else {
    melting = true;
    solver.call('set_heat_source', ...target, params.heatRadius, params.heatRate);
  }
}

function endPointerAction() {
  if (action?.kind === 'pull') solver.call('drag', -1, 0, 0, 0, 1);
  if (action?.kind === 'heat') solver.call('set_heat_source', 0, 0, 0, params.heatRadius, 0);
  action = null;
  container.dataset.action = 'none';
  strokeOverlay.toggleAttribute('hidden', true);
}

container.addEventListener('pointerdown', (event) => {
  if (event.target !== canvas) return;
  event.preventDefault();
  container.setPointerCapture(event.pointerId);
  pointers.set(event.pointerId, [event.clientX, event.clientY]);
  endPointerAction();
  if (pointers.size >= 2) {
    const [a, b] = [...pointers.values()];
    action = { kind: 'pinch', spread: Math.hypot(a[0] - b[0], a[1] - b[1]) };
  } else if (params.tool === 'cut') {
    // A stroke: its start's eye ray now, its end's at release (finishStroke).
    action = { kind: 'cut', start: camera.ray(...ndc(event)), from: [event.clientX, event.clientY] };
    drawStroke(event);
  } else {
    const ray = camera.ray(...ndc(event));
    const hit = solver.demo.pick(ray.slice(0, 3), ray.slice(3), 0.75 * solver.demo.spacing());
    if (hit >= 0 && params.tool === 'strike') {
      useTool('strike', ray.slice(0, 3), ray.slice(3), params.strikeSpeed);
      action = { kind: 'strike' };
    } else if (hit >= 0) {
      action = { kind: params.tool, phyxel: hit, anchor: solver.demo.position(hit) };
      applyAction(event);
    } else {
      action = { kind: 'orbit', last: [event.clientX, event.clientY] };
    }
  }
  container.dataset.action = action.kind;
});

container.addEventListener('pointermove', (event) => {
  if (!pointers.has(event.pointerId) || !action) return;
  pointers.set(event.pointerId, [event.clientX, event.clientY]);
  if (action.kind === 'pinch' && pointers.size >= 2) {
    const [a, b] = [...pointers.values()];
    const spread = Math.hypot(a[0] - b[0], a[1] - b[1]);
    if (spread > 0 && action.spread > 0) camera.zoom(action.spread / spread);
    action.spread = spread;
  } else if (action.kind === 'orbit') {
    const [x, y] = action.last;
    camera.orbit(-(event.clientX - x) * 0.008, (event.clientY - y) * 0.008);
    action.last = [event.clientX, event.clientY];
  } else if (action.kind === 'pull' || action.kind === 'heat') {
    applyAction(event);
  } else if (action.kind === 'cut') {
    drawStroke(event);
  }
});

/** The cut's stroke over the canvas (whose top-left corner is the view's), from where it began to the
 * pointer; hidden once it ends. */
function drawStroke(event) {
  const rect = canvas.getBoundingClientRect();
  strokeOverlay.setAttribute('width', String(rect.width));
  strokeOverlay.setAttribute('height', String(rect.height));
  const line = strokeOverlay.firstElementChild;
  const [x0, y0] = action.from;
  line.setAttribute('x1', String(x0 - rect.left));
  line.setAttribute('y1', String(y0 - rect.top));
  line.setAttribute('x2', String(event.clientX - rect.left));
  line.setAttribute('y2', String(event.clientY - rect.top));
  strokeOverlay.toggleAttribute('hidden', false);
}

/** The end of a cut's stroke: the plane through the eye rays of its start and end. */
function finishStroke(event) {
  const end = camera.ray(...ndc(event));
  useTool('cut', action.start.slice(0, 3), action.start.slice(3), end.slice(3));
}

const release = (event) => {
  if (event.type === 'pointerup' && action?.kind === 'cut' && pointers.size === 1) finishStroke(event);
  pointers.delete(event.pointerId);
  if (pointers.size === 0 || action?.kind === 'pinch') endPointerAction();
};
container.addEventListener('pointerup', release);
container.addEventListener('pointercancel', release);
container.addEventListener(
  'wheel',
  (event) => {
    if (event.target !== canvas) return;
    event.preventDefault();
    camera.zoom(Math.exp(Math.max(-1, Math.min(1, event.deltaY * 0.001))));
  },
  { passive: false },
);

// ---- The loop -------------------------------------------------------------------------------------

await openView('gpu' in navigator);
solver.show();

page.start({
  dt: currentDt,
  speed: () => 1,
  time: () => solver.demo.time(),
  // Auto: as many steps as real time needs, within the frame's compute budget; fixed: the user's count.
  stepsForFrame: (wall) => {
    // The worker steps on its own; its states are counted as they come (page.recordSteps).
    if (solver.stepsElsewhere) return 0;
    const dt = currentDt();
    const recent = page.stepStats.reduce((sum, s) => ({ ms: sum.ms + s.elapsed, n: sum.n + s.n }), { ms: 0, n: 0 });
    const msPerStep = recent.n ? recent.ms / recent.n : 1;
    const budget = Math.max(1, Math.floor(FRAME_BUDGET_MS / msPerStep));
    let n;
    if (params.substeps === 'fixed') {
      // The page's own CPU steps (before the worker has taken over, or where it cannot run): at most
      // a frame's budget of them, so that up to 1000 fixed substeps never hold the page's thread.
      n = solver.demo.backend() === 'cpu' ? Math.min(params.substepCount, budget) : params.substepCount;
    } else {
      accumulated += wall;
      const wanted = Math.floor(accumulated / dt);
      n = Math.min(wanted, budget);
      accumulated = n < wanted ? 0 : accumulated - n * dt;
    }
    lastSubsteps = n;
    return n;
  },
  step: (n) => {
    // The worker's (the Step button or the message API) are queued behind its current work; the
    // page's own are taken in slices (PhyxelSolver.stepInSlices).
    const stepped = solver.step(currentDt(), n);
    if (stepped?.then) return stepped.then((result) => (result === false ? stepFailed() : result));
    if (!stepped) stepFailed();
  },
  restart: () => guard('restart', rebuild),
  render: () => {
    solver.frame();
    draw();
    updateReadouts(performance.now());
  },
});

// For tests and the console: the live objects (the page's copy of the solver, the view, the camera).
window.phyxelDemo = {
  get demo() { return solver.demo; },
  get cpuWorker() { return solver.cpu; },
  get readBacks() { return solver.readBacks; },
  get view() { return view; },
  get gpu() { return solver.gpuDevice; },
  solver,
  camera,
};
page.ready();
startWorker();

// The solver runs on WebGPU compute where the browser grants a device, else on the CPU — chosen once
// the renderer has settled, unless the address names the backend (`?backend=cpu`, an embedding page).
const namedBackend = new URLSearchParams(location.search).get('backend');
rendererSettled
  .then(() => {
    if (namedBackend === 'gpu') return solver.switchTo('gpu');
    if (namedBackend === null && 'gpu' in navigator) return solver.switchTo('gpu', { quiet: true });
  })
  .finally(() => {
    document.body.dataset.solverChosen = 'true';
  });
