// The SPH fluids lesson: a dam break in a box stepped by WCSPH, DFSPH or PBF (SphFluidsLesson, in the
// lesson worker: every call on `lesson` is a promise), switched live; colour by density, pressure or
// speed; the density error and the solver's iterations plotted; stir with the pointer; drop a deformable
// body of density body · ρ₀ into WCSPH's or DFSPH's water (coupled both ways) and read its submerged fraction. Physics:
// crates/phyxel/src/fluids and crates/phyxel/src/lessons/sph_fluids.rs; bindings:
// crates/phyxel-web/src/lessons/sph_fluids.rs.
import init, { colour_scale } from '../../phyxel-web.js';
import { LessonPage, canvasPoint, fitCanvas } from '../site/page.js';
import { defaults, fromTable } from '../site/controls.js';
import { LessonWorker } from '../workers/remote-lesson.js';
import { LivePlot } from '../site/plot.js';
import { colourLegend } from './scattered.js';
import { FLUID_SOLVER_OPTIONS } from './fluid-solvers.js';

/** Wall-clock milliseconds one frame may spend stepping the fluid (in the worker). */
const FRAME_BUDGET_MS = 14;
/** A step count asked of the worker never exceeds this. */
const MAX_STEPS_PER_FRAME = 200;

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly, in a worker)' });
const [solvers] = await Promise.all([LessonWorker.start(), init()]);
const canvas = document.getElementById('scene');
/** The lesson's parameter table (crates/phyxel/src/lessons/sph_fluids.rs): ranges and defaults. */
const table = await solvers.static('SphFluidsLesson', 'parameters');
const params = { solver: 'dfsph', colour: 'density', ...defaults(table) };
const lesson = await solvers.create('SphFluidsLesson', params.solver, params.across, params.xsph, params.iterations, params.sound, params.body);
let time = 0;
let lastDt = 1 / 240;

const errorPlot = new LivePlot(document.getElementById('plot-error'), {
  title: 'Density error (mean compression)',
  yLabel: '%',
  series: [{ label: 'mean', stroke: '#2563eb' }, { label: 'largest', stroke: '#dc2626', dash: [4, 3] }],
});
const iterationPlot = new LivePlot(document.getElementById('plot-iterations'), {
  title: 'Solver iterations per step',
  yLabel: 'iterations',
  series: [{ label: 'iterations', stroke: '#059669' }],
});

const c = page.controls;
c.select({
  param: 'solver',
  id: 'solver-select',
  label: 'Solver',
  value: params.solver,
  options: FLUID_SOLVER_OPTIONS,
  // The particles carry over: the solver changes under the running water.
  onChange: (value) => {
    params.solver = value;
    page.notice('blowup', null);
    return lesson.set_solver(value);
  },
});
c.select({
  param: 'colour',
  id: 'colour-select',
  label: 'Colour by',
  value: params.colour,
  options: [
    { value: 'density', label: 'Density ρ/ρ₀ (0.98 … 1.02)' },
    { value: 'pressure', label: 'Pressure p / (ρ₀ g 2a)' },
    { value: 'speed', label: 'Speed |v| / √(2g·2a)' },
  ],
  onChange: (value) => {
    params.colour = value;
  },
});
const number = (name, label, unit, help) =>
  c.number({
    ...fromTable(table, name), label, unit, help,
    onChange: (value) => {
      const next = { ...params, [name]: value };
      params[name] = value;
      page.notice('blowup', null);
      // The solver checks the same table: a refusal there comes back to the control.
      return lesson.set_parameters(next.across, next.xsph, next.iterations, next.sound, next.body);
    },
  });
number('across', 'Particles across the column', '', 'Whole number: the column is a × 2a, so 2 × across² particles (changing it restarts).');
number('xsph', 'XSPH viscosity ξ', '', 'Between 0 and 0.5 (seed 002 eq. 53).');
number('iterations', 'Most solver iterations per step', '', 'Whole number (DFSPH: each of its two solves; PBF).');
number('sound', 'WCSPH speed of sound c', '× √(2g·2a)', 'Lower: softer water and longer steps; higher: stiffer and shorter.');
number('body', 'Body density ρ_body/ρ₀', '', '0: no body; 0.3 … 3 drops a deformable block 0.6a × 0.3a into the tank (with any solver; changing it restarts).');

const readouts = {
  solver: page.readout('solver', 'Solver / particles'),
  error: page.readout('density-error', 'Density error: mean / largest'),
  iterations: page.readout('iterations', 'Iterations (last step)'),
  dt: page.readout('dt', 'Time step Δt (CFL)'),
  speed: page.readout('max-speed', 'Largest speed'),
  mass: page.readout('mass', 'Mass Σm'),
  submerged: page.readout('submerged', 'Body: submerged fraction / ρ_body/ρ₀'),
};

colourLegend(document.getElementById('legend'), {
  title: 'Particles: the quantity chosen under “Colour by”',
  scale: (t) => colour_scale(t),
  low: 'low',
  high: 'high',
});

const pct = (x) => `${(100 * x).toFixed(3)} %`;

function showReport(r) {
  readouts.solver(`${r.solver} / ${r.particles}`);
  readouts.error(`${pct(r.density_error)} / ${pct(r.max_density_error)}`);
  readouts.iterations(`${r.iterations}`);
  readouts.dt(`${r.dt.toExponential(2)} s`);
  readouts.speed(`${r.max_speed.toFixed(3)} m/s`);
  readouts.mass(`${r.mass.toFixed(6)} kg/m`);
  readouts.submerged(r.submerged == null ? 'no body' : `${r.submerged.toFixed(3)} / ${r.archimedes.toFixed(3)}`);
  page.notice('blowup', r.error ? `The fluid stopped: ${r.error}. Change a setting or restart.` : null, 'error');
  if (r.dt > 0) lastDt = r.dt;
}

// Stir: drag on the canvas; the worker pulls the particles near the pointer to its velocity.
let stirring = null;
canvas.addEventListener('pointerdown', (event) => {
  const [x, y] = canvasPoint(canvas, event);
  stirring = { x, y, t: performance.now() };
  canvas.setPointerCapture(event.pointerId);
  lesson.stir(x, y, 0, 0, canvas.width, canvas.height);
  event.preventDefault();
});
canvas.addEventListener('pointermove', (event) => {
  if (!stirring) return;
  const [x, y] = canvasPoint(canvas, event);
  const now = performance.now();
  const seconds = Math.max((now - stirring.t) / 1000, 1e-3);
  lesson.stir(x, y, (x - stirring.x) / seconds, (y - stirring.y) / seconds, canvas.width, canvas.height);
  stirring = { x, y, t: now };
});
for (const type of ['pointerup', 'pointercancel']) {
  canvas.addEventListener(type, () => {
    stirring = null;
    lesson.stop_stir();
  });
}

page.start({
  dt: () => lastDt,
  speed: () => 1,
  time: () => time,
  step: async (n) => {
    const { ms } = await lesson.timed('advance', 1e6, n);
    time = await lesson.time();
    return ms;
  },
  // As many CFL steps as real time needs, within the frame's budget (the page says when it runs slower).
  stepsForFrame: (wall) => {
    const recent = page.stepStats.reduce((sum, s) => ({ ms: sum.ms + s.elapsed, n: sum.n + s.n }), { ms: 0, n: 0 });
    const perStep = recent.n ? recent.ms / recent.n : 1;
    const wanted = Math.max(1, Math.ceil(wall / lastDt));
    const affordable = Math.max(1, Math.floor(FRAME_BUDGET_MS / Math.max(perStep, 1e-3)));
    page.notice('slow', wanted > affordable ? 'The water runs slower than real time here (each frame steps as much as its budget allows).' : null, 'info');
    return Math.min(wanted, affordable, MAX_STEPS_PER_FRAME);
  },
  restart: async () => {
    await lesson.restart();
    time = 0;
    errorPlot.clear();
    iterationPlot.clear();
    page.notice('blowup', null);
  },
  render: async () => {
    fitCanvas(canvas);
    const [, report] = await Promise.all([lesson.draw(canvas, params.colour), lesson.report()]);
    showReport(report);
    errorPlot.push(report.time, [100 * report.density_error, 100 * report.max_density_error]);
    iterationPlot.push(report.time, [report.iterations]);
    errorPlot.flush();
    iterationPlot.flush();
  },
});
page.ready();
