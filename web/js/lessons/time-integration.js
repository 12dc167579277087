// The time-integration lesson: every integrator of the solver crate on a spring or a projectile, drawn
// live against the analytic solution. Physics: crates/phyxel/src/lessons/time_integration.rs.
// The integrators run in the lesson worker (js/workers/remote-lesson.js): every call on `lesson` is a promise.
import { LessonPage, canvasPoint as pointerPixel, fitCanvas } from '../site/page.js';
import { LessonWorker } from '../workers/remote-lesson.js';
import { LivePlot } from '../site/plot.js';
import { defaults, fromTable } from '../site/controls.js';

const EXACT_COLOR = '#2a9d3a';
const COLORS = ['#d62828', '#1d4ed8', '#9333ea', '#0891b2', '#ea580c', '#a16207', '#db2777', '#4b5563'];

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly, in a worker)' });
const solvers = await LessonWorker.start();
const methods = await solvers.static('TimeIntegrationLesson', 'methods');
/** The solver's parameter table (crates/phyxel/src/lessons/time_integration.rs): ranges and defaults. */
const table = await solvers.static('TimeIntegrationLesson', 'parameters');
const range = (name) => table.find((p) => p.name === name);
const canvas = document.getElementById('scene');

const params = { scene: 'spring', speed: 1, ...defaults(table) };
const shown = methods.map(() => true);
let lesson = await build();
/** The latest state of every integrator and of the analytic solution (lesson.snapshot()). */
let snapshot = await lesson.snapshot();
let drag = null;

function build() {
  return params.scene === 'spring'
    ? solvers.createWith('TimeIntegrationLesson', 'spring', params.k, params.m, params.x0)
    : solvers.createWith('TimeIntegrationLesson', 'projectile', params.g, params.m, params.v0, params.angle);
}

/** Rebuild after a scene parameter changed; a rejected parameter keeps the running simulation. */
function rebuild(control) {
  const rebuilt = async () => {
    try {
      const fresh = await build();
      lesson.free();
      lesson = fresh;
      await page.restart();
    } catch (error) {
      control?.reject(error.message);
    }
  };
  return page.track(rebuilt());
}

// Controls. Ranges come from the solver crate (one source of truth).
const c = page.controls;
c.select({
  param: 'scene',
  id: 'scene-select',
  label: 'Scene',
  value: params.scene,
  options: [
    { value: 'spring', label: 'Spring' },
    { value: 'projectile', label: 'Projectile' },
  ],
  onChange: (value) => {
    params.scene = value;
    springControls.setVisible(value === 'spring');
    projectileControls.setVisible(value === 'projectile');
    updatePlotLabels();
    rebuild();
  },
});
/** A control of the solver's parameter `key` (range and default from its table), or of the page's own where `extra` names it (param, min, max, value). */
const number = (group, key, label, unit, extra = {}) => {
  const control = group.number({
    ...(extra.param ? {} : fromTable(table, key)),
    label,
    unit,
    ...extra,
    onChange: (value) => {
      params[key] = value;
      extra.onChange ? extra.onChange(value) : rebuild(control);
    },
  });
  return control;
};
const common = c.group('Integration');
number(common, 'dt', 'Δt', 's', { onChange: () => updateStability() });
// The playback speed is the page's own (the solver never sees it).
number(common, 'speed', 'Speed', '×', {
  param: 'speed', min: 0.01, max: 10, value: params.speed, help: 'Simulated seconds per real second', onChange: () => {},
});
number(common, 'm', 'Mass m', 'kg');
const springControls = c.group('Spring f = −kx');
number(springControls, 'k', 'Stiffness k', 'N/m');
const x0Control = number(springControls, 'x0', 'Start x₀', 'm');
const projectileControls = c.group('Projectile');
number(projectileControls, 'g', 'Gravity g', 'm/s²');
const v0Control = number(projectileControls, 'v0', 'Speed v₀', 'm/s');
const angleControl = number(projectileControls, 'angle', 'Angle', '°');
projectileControls.setVisible(false);

const methodGroup = c.group('Methods');
methods.forEach((method, i) => {
  methodGroup.checkbox({
    param: `method-${method.id}`,
    id: `method-${method.id}`,
    label: method.name,
    checked: true,
    color: COLORS[i],
    onChange: (checked) => {
      shown[i] = checked;
      positionPlot.setShown(i + 1, checked);
      energyPlot.setShown(i + 1, checked);
      errorRows[i].hidden = !checked;
    },
  });
});

// Readouts: one error row per method.
const errorRows = methods.map((method, i) => {
  const set = page.readout(`error-${method.id}`, `<span class="swatch" data-background="${COLORS[i]}"></span>${method.name} error`);
  const row = document.getElementById(`readout-error-${method.id}`).parentElement;
  row.set = set;
  return row;
});
const stabilityReadout = page.readout('omega-dt', 'ωΔt');

// Plots: the analytic solution first, then each method.
const plotSeries = [
  { label: 'exact', stroke: EXACT_COLOR, dash: [6, 4] },
  ...methods.map((m, i) => ({ label: m.name, stroke: COLORS[i] })),
];
const positionPlot = new LivePlot(document.getElementById('plot-position'), {
  title: 'Position',
  yLabel: 'x (m)',
  series: plotSeries,
});
const energyPlot = new LivePlot(document.getElementById('plot-energy'), {
  title: 'Total energy',
  yLabel: 'E (J)',
  series: plotSeries,
});
function updatePlotLabels() {
  positionPlot.plot.axes[1].label = params.scene === 'spring' ? 'x (m)' : 'height y (m)';
}

function updateStability() {
  if (params.scene === 'spring') {
    const omegaDt = Math.sqrt(params.k / params.m) * params.dt;
    stabilityReadout(`${omegaDt.toFixed(3)}${omegaDt >= 2 ? ' ≥ 2: Verlet family unstable' : ''}`);
  } else {
    stabilityReadout('— (no oscillation)');
  }
}
updateStability();

// Pointer and touch: drag the mass to set x₀ (spring), or drag from the launch point to aim (projectile).
// A worker that fails is reported by the next frame (page.run): a lost pointer position needs no report.
function canvasPoint(event) {
  return lesson.canvas_to_world(...pointerPixel(canvas, event), canvas.width, canvas.height).catch(() => null);
}
let dragging = false;
canvas.addEventListener('pointerdown', async (event) => {
  canvas.setPointerCapture(event.pointerId);
  event.preventDefault();
  dragging = true;
  drag = await canvasPoint(event);
});
canvas.addEventListener('pointermove', async (event) => {
  if (!dragging) return;
  const point = await canvasPoint(event);
  if (dragging && point) drag = point;
});
const endDrag = async (event, apply) => {
  if (!dragging) return;
  dragging = false;
  const point = await canvasPoint(event);
  drag = null;
  if (!apply || !point) return;
  const [x, y] = point;
  const clamp = (v, name) => Math.min(range(name).max, Math.max(range(name).min, v));
  if (params.scene === 'spring') {
    x0Control.set(Number(clamp(x, 'x0').toFixed(3)));
  } else {
    // The arrow is the distance the launch velocity covers in half a second.
    const speed = clamp(Math.hypot(x, y) / 0.5, 'v0');
    const angle = clamp((Math.atan2(y, x) * 180) / Math.PI, 'angle');
    v0Control.set(Number(speed.toFixed(2)));
    angleControl.set(Number(angle.toFixed(1)));
  }
};
canvas.addEventListener('pointerup', (event) => endDrag(event, true));
canvas.addEventListener('pointercancel', (event) => endDrag(event, false));

let lastPlotFlush = 0;
function sample() {
  const yOf = (p) => (params.scene === 'spring' ? p.x : p.y);
  const live = (m) => (m.diverged ? null : m);
  positionPlot.push(snapshot.time, [yOf(snapshot.exact), ...snapshot.methods.map((m) => live(m) && yOf(m))]);
  energyPlot.push(snapshot.time, [snapshot.exact.energy, ...snapshot.methods.map((m) => live(m) && m.energy)]);
}

page.start({
  dt: () => params.dt,
  speed: () => params.speed,
  time: () => snapshot.time,
  step: async (n) => {
    const [{ ms }, state] = await Promise.all([lesson.timed('step', params.dt, n), lesson.snapshot()]);
    snapshot = state;
    return ms;
  },
  afterStep: () => sample(),
  restart: async () => {
    await lesson.restart();
    snapshot = await lesson.snapshot();
    positionPlot.clear();
    energyPlot.clear();
    sample();
    updateStability();
  },
  render: async () => {
    fitCanvas(canvas);
    await lesson.draw(canvas, COLORS, Uint8Array.from(shown, Number), drag ?? undefined);
    snapshot.methods.forEach((m, i) => {
      errorRows[i].set(m.diverged ? 'unstable — stopped' : m.error.toExponential(2) + ' m');
      errorRows[i].classList.toggle('diverged', Boolean(m.diverged));
      page.notice(`diverged-${m.id}`, m.diverged ?? null, 'warning');
    });
    const now = performance.now();
    if (now - lastPlotFlush > 100) {
      lastPlotFlush = now;
      positionPlot.flush();
      energyPlot.flush();
    }
  },
});
sample();
page.ready();
