// The PBD/XPBD lesson: cloth, rope and soft box of distance constraints, projected by PBD or XPBD.
// Solver: crates/phyxel/src/lessons/pbd.rs.
import init, { PbdLesson } from '../../phyxel-web.js';
import { LessonPage, canvasPoint, fitCanvas } from '../page.js';

await init();

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly)' });
const canvas = document.getElementById('scene');
const ctx = canvas.getContext('2d');
// The classic cloth of the examples site: 2 iterations, Δt = 0.005, mass 0.5.
const params = { scene: 'cloth', solver: 'pbd', iterations: 2, stiffness: 1, compliance: 0.0001, dt: 0.005, gravity: 9.81, mass: 0.5 };
let lesson = new PbdLesson(params.scene, params.mass);
let held = false;

const c = page.controls;
c.select({
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
    rebuild();
  },
});
c.select({
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
const number = (key, label, unit, min, max, onChange) =>
  c.number({ id: `param-${key}`, label, unit, min, max, value: params[key], onChange: (v) => { params[key] = v; onChange?.(); } });
number('iterations', 'Iterations', '', 1, 100);
const stiffnessControl = number('stiffness', 'Stiffness k', '', 0, 1);
const complianceControl = number('compliance', 'Compliance α', 'm/N', 0, 10);
complianceControl.input.closest('.control').hidden = true;
number('dt', 'Δt', 's', 0.0001, 0.05);
number('gravity', 'Gravity g', 'm/s²', 0, 50);
number('mass', 'Particle mass', 'kg', 0.01, 100, () => rebuild());

const countReadout = page.readout('counts', 'Particles / constraints');
const errorReadout = page.readout('constraint-error', 'Max constraint error |C|/d');
const classicReadout = page.readout('classic-time', 'Step, timed singly (mean of 50)');
const singleTimes = [];

function rebuild() {
  const fresh = new PbdLesson(params.scene, params.mass);
  lesson.free();
  lesson = fresh;
  held = false;
  page.restart();
}

canvas.addEventListener('pointerdown', (event) => {
  held = lesson.grab(...canvasPoint(canvas, event), canvas.width, canvas.height);
  if (held) canvas.setPointerCapture(event.pointerId);
  event.preventDefault();
});
canvas.addEventListener('pointermove', (event) => {
  if (held) lesson.drag_to(...canvasPoint(canvas, event), canvas.width, canvas.height);
});
const release = () => {
  if (held) lesson.release();
  held = false;
};
canvas.addEventListener('pointerup', release);
canvas.addEventListener('pointercancel', release);

let time = 0;
page.start({
  dt: () => params.dt,
  speed: () => 1,
  time: () => time,
  step: (n) => {
    // Each step timed alone with performance.now(), as the examples site times its cloth.
    for (let k = 0; k < n; k++) {
      const start = performance.now();
      lesson.step(1, params.dt, params.iterations, params.solver, params.stiffness, params.compliance, params.gravity);
      singleTimes.push(performance.now() - start);
      if (singleTimes.length > 50) singleTimes.shift();
      time += params.dt;
    }
  },
  restart: () => {
    time = 0;
    singleTimes.length = 0;
    const fresh = new PbdLesson(params.scene, params.mass);
    lesson.free();
    lesson = fresh;
  },
  render: () => {
    fitCanvas(canvas);
    lesson.draw(ctx, canvas.width, canvas.height);
    countReadout(`${lesson.particle_count()} / ${lesson.constraint_count()}`);
    errorReadout(lesson.max_relative_error().toExponential(2));
    const mean = singleTimes.reduce((a, b) => a + b, 0) / Math.max(1, singleTimes.length);
    classicReadout(singleTimes.length ? `${mean.toPrecision(3)} ms` : '—');
  },
});
page.ready();
