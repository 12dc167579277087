// The PBD/XPBD lesson: cloth, rope and soft box of distance constraints, projected by PBD or XPBD.
// Solver: crates/phyxel/src/lessons/pbd.rs.
// The solver runs in the lesson worker (js/workers/remote-lesson.js): every call on `lesson` is a promise.
import { LessonPage, canvasPoint, fitCanvas } from '../site/page.js';
import { defaults, fromTable } from '../site/controls.js';
import { LessonWorker } from '../workers/remote-lesson.js';

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly, in a worker)' });
const solvers = await LessonWorker.start();
const canvas = document.getElementById('scene');
/** The solver's parameter table (crates/phyxel/src/lessons/pbd.rs): ranges and defaults of the controls. */
const table = await solvers.static('PbdLesson', 'parameters');
// The classic cloth of the examples site: 2 iterations, Δt = 0.005, mass 0.5 (the table's defaults).
const params = { scene: 'cloth', solver: 'pbd', ...defaults(table) };
let lesson = await solvers.create('PbdLesson', params.scene, params.mass);
let pointerDown = false;
/** Steps per frame timed one by one for the "timed singly" readout. */
const SINGLY_TIMED_PER_FRAME = 4;

const c = page.controls;
c.select({
  param: 'scene',
  id: 'scene-select',
  label: 'Scene',
  value: params.scene,
  options: [
    { value: 'cloth', label: 'Cloth 40 × 30 (classic)' },
    { value: 'rope', label: 'Rope' },
    { value: 'box', label: 'Soft box' },
  ],
  onChange: (value) => {
    params.scene = value;
    page.restart();
  },
});
c.select({
  param: 'solver',
  id: 'solver-select',
  label: 'Solver',
  value: params.solver,
  options: [
    { value: 'pbd', label: 'PBD (stiffness)' },
    { value: 'xpbd', label: 'XPBD (compliance)' },
  ],
  onChange: (value) => {
    params.solver = value;
    stiffnessControl.input.closest('.control').hidden = value !== 'pbd';
    complianceControl.input.closest('.control').hidden = value !== 'xpbd';
  },
});
const number = (name, label, unit, onChange) =>
  c.number({ ...fromTable(table, name), label, unit, onChange: (v) => { params[name] = v; onChange?.(); } });
number('iterations', 'Iterations', '');
const stiffnessControl = number('stiffness', 'Stiffness k', '');
const complianceControl = number('compliance', 'Compliance α', 'm/N');
complianceControl.input.closest('.control').hidden = true;
number('dt', 'Δt', 's');
number('gravity', 'Gravity g', 'm/s²');
number('mass', 'Particle mass', 'kg', () => page.restart());

const countReadout = page.readout('counts', 'Particles / constraints');
const errorReadout = page.readout('constraint-error', 'Max constraint error |C|/d');
const classicReadout = page.readout('classic-time', 'Step, timed singly (mean of 50)');
const singleTimes = [];

/** A fresh lesson for the scene and mass in force, swapped in once the worker has made it. */
async function rebuild() {
  const fresh = await solvers.create('PbdLesson', params.scene, params.mass);
  lesson.free();
  lesson = fresh;
}

// The worker grabs the particle nearest the pointer (if any is near) and ignores drags when none is held.
// A worker that fails is reported by the next frame (page.run): the pointer's calls need no report.
const quietly = (call) => call.catch(() => {});
canvas.addEventListener('pointerdown', (event) => {
  pointerDown = true;
  canvas.setPointerCapture(event.pointerId);
  quietly(lesson.grab(...canvasPoint(canvas, event), canvas.width, canvas.height));
  event.preventDefault();
});
canvas.addEventListener('pointermove', (event) => {
  if (pointerDown) quietly(lesson.drag_to(...canvasPoint(canvas, event), canvas.width, canvas.height));
});
const release = () => {
  if (pointerDown) quietly(lesson.release());
  pointerDown = false;
};
canvas.addEventListener('pointerup', release);
canvas.addEventListener('pointercancel', release);

let time = 0;
page.start({
  dt: () => params.dt,
  speed: () => 1,
  time: () => time,
  step: async (n) => {
    const step = (count) =>
      lesson.timed('step', count, params.dt, params.iterations, params.solver, params.stiffness, params.compliance, params.gravity);
    // The first few steps of a frame timed alone (in the worker), as the examples site times its
    // cloth; the rest in one call (a small Δt asks for hundreds of steps a frame).
    const single = Math.min(n, SINGLY_TIMED_PER_FRAME);
    const calls = Array.from({ length: single }, () => step(1));
    if (n > single) calls.push(step(n - single));
    const timings = await Promise.all(calls);
    for (const { ms } of timings.slice(0, single)) {
      singleTimes.push(ms);
      if (singleTimes.length > 50) singleTimes.shift();
    }
    time += n * params.dt;
    return timings.reduce((sum, { ms }) => sum + ms, 0);
  },
  restart: async () => {
    await rebuild();
    time = 0;
    singleTimes.length = 0;
  },
  render: async () => {
    fitCanvas(canvas);
    const [, particles, constraints, error] = await Promise.all([
      lesson.draw(canvas),
      lesson.particle_count(),
      lesson.constraint_count(),
      lesson.max_relative_error(),
    ]);
    countReadout(`${particles} / ${constraints}`);
    errorReadout(error.toExponential(2));
    const mean = singleTimes.reduce((a, b) => a + b, 0) / Math.max(1, singleTimes.length);
    classicReadout(singleTimes.length ? `${mean.toPrecision(3)} ms` : '—');
  },
});
page.ready();
