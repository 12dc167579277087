// The SPH-approximation lesson: a function sampled at jittered particles, reconstructed along a line by
// the SPH sum (optionally Shepard-filtered), and its gradient by the difference formula (optionally
// with the kernel-gradient correction). Solver: crates/phyxel/src/lessons/sph_approximation.rs.
import init, { SphApproximationLesson, kernel_list, colour_scale } from '../../phyxel-web.js';
import { LessonPage, canvasPoint, keepFitted } from '../site/page.js';
import { LivePlot } from '../site/plot.js';
import { functionControls, sample, colourLegend } from './scattered.js';
import { defaults, fromTable } from '../site/controls.js';

await init();

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly)', simulation: false });
const canvas = document.getElementById('scene');
const ctx = canvas.getContext('2d');
/** The lesson's parameter table (crates/phyxel/src/lessons/sph_approximation.rs): ranges and defaults. */
const table = SphApproximationLesson.parameters();
const params = {
  ...defaults(table),
  kernel: 'cubic', shepard: false, corrected: false, colour: 'value',
};
let lesson = new SphApproximationLesson(params.spacing, params.ratio, params.jitter, params.seed, params.kernel);
lesson.set_line(params.offset, params.angle);

const c = page.controls;
/** Sample `fn` at the particles and along the line: null and a message when it is not finite there. */
const sampleAll = (fn, target = lesson) => {
  const particles = sample(fn, target.positions());
  if (!particles.ok) return { message: particles.message };
  const line = sample(fn, target.line_points());
  if (!line.ok) return { message: line.message };
  return { particles, line };
};
const functions = functionControls(c, {
  value: 'trigonometric',
  check: (fn) => sampleAll(fn).message ?? null,
  onChange: () => update(),
});

const samplingGroup = c.group('Sampling');
const resampleControls = {};
const resampleNumber = (key, label, unit) => {
  resampleControls[key] = samplingGroup.number({
    ...fromTable(table, key), label, unit,
    onChange: (value) => resample(key, value),
  });
};
resampleNumber('spacing', 'Spacing Δx', '');
resampleNumber('ratio', 'Support radius h / Δx', '');
resampleNumber('jitter', 'Jitter (fraction of a cell)', '');
resampleNumber('seed', 'Random seed', '');
samplingGroup.select({
  param: 'kernel',
  id: 'kernel-select',
  label: 'Kernel',
  value: params.kernel,
  options: kernel_list().map((k) => ({ value: k.id, label: k.name })),
  onChange: (id) => {
    try {
      resample('kernel', id);
      page.notice('kernel', null);
    } catch (error) {
      page.notice('kernel', `Kernel: ${error.message}`, 'error');
    }
  },
});

const methodGroup = c.group('Approximation');
methodGroup.checkbox({
  param: 'shepard',
  id: 'shepard', label: 'Shepard filter (divide by Σ V_j W)', checked: params.shepard,
  onChange: (on) => { params.shepard = on; update(); },
});
methodGroup.checkbox({
  param: 'correction',
  id: 'correction', label: 'Kernel-gradient correction L', checked: params.corrected,
  onChange: (on) => { params.corrected = on; update(); },
});

const lineGroup = c.group('Line (drag it on the figure)');
const lineControl = (key, label, unit) =>
  lineGroup.number({
    ...fromTable(table, key), label, unit,
    onChange: (value) => {
      const previous = params[key];
      params[key] = value;
      const refused = moveLine();
      if (refused) {
        // Thrown back to the control: it shows the reason and keeps the previous value.
        params[key] = previous;
        throw new Error(refused);
      }
    },
  });
const controls = {};
controls.offset = lineControl('offset', 'Offset', '');
controls.angle = lineControl('angle', 'Angle θ', '°');

c.select({
  param: 'colour',
  id: 'colour-select',
  label: 'Colour particles by',
  value: params.colour,
  options: [
    { value: 'value', label: 'f at the particle' },
    { value: 'value-error', label: 'Error of ⟨f⟩' },
    { value: 'gradient-error', label: 'Error of ⟨∇f⟩' },
  ],
  onChange: (value) => { params.colour = value; update(); },
});

const readouts = {
  particles: page.readout('particles', 'Particles'),
  neighbours: page.readout('neighbours', 'Mean neighbours'),
  valueMax: page.readout('value-max', 'max |⟨f⟩ − f| on the line'),
  valueRms: page.readout('value-rms', 'RMS |⟨f⟩ − f| on the line'),
  gradientMax: page.readout('gradient-max', 'max |⟨∇f⟩ − ∇f| on the line'),
  gradientRms: page.readout('gradient-rms', 'RMS |⟨∇f⟩ − ∇f| on the line'),
  sampleValueMax: page.readout('sample-value-max', 'max |⟨f⟩ − f|, all particles'),
  sampleGradientMax: page.readout('sample-gradient-max', 'max |⟨∇f⟩ − ∇f|, all particles'),
};

const valuePlot = new LivePlot(document.getElementById('plot-value'), {
  title: 'f along the line', xLabel: 's', yLabel: 'f',
  series: [{ label: 'exact f', stroke: '#111' }, { label: 'SPH ⟨f⟩', stroke: '#d62828' }],
});
const gradientPlot = new LivePlot(document.getElementById('plot-gradient'), {
  title: '∇f along the line', xLabel: 's', yLabel: '∂f',
  series: [
    { label: '∂f/∂x exact', stroke: '#111' },
    { label: '⟨∂f/∂x⟩', stroke: '#d62828' },
    { label: '∂f/∂y exact', stroke: '#6b7280', dash: [6, 4] },
    { label: '⟨∂f/∂y⟩', stroke: '#2563eb', dash: [6, 4] },
  ],
});
const legend = document.getElementById('legend');

const exp = (x) => x.toExponential(2);

/** Build a new sampling; throws (the control explains it) if refused, and the old one stays. */
function resample(key, value) {
  const next = { ...params, [key]: value };
  let fresh;
  try {
    fresh = new SphApproximationLesson(next.spacing, next.ratio, next.jitter, next.seed, next.kernel);
    fresh.set_line(next.offset, next.angle);
  } catch (error) {
    throw error;
  }
  const sampled = sampleAll(functions.fn, fresh);
  if (sampled.message) {
    fresh.free();
    throw new Error(sampled.message);
  }
  lesson.free();
  lesson = fresh;
  params[key] = value;
  update();
}

/** Apply params.offset / params.angle; returns an error message if refused. */
function moveLine() {
  try {
    lesson.set_line(params.offset, params.angle);
  } catch (error) {
    return error.message;
  }
  const sampled = sampleAll(functions.fn);
  if (sampled.message) return sampled.message;
  update();
  return null;
}

function update() {
  const sampled = sampleAll(functions.fn);
  if (sampled.message) {
    page.notice('function', sampled.message, 'error');
    return;
  }
  page.notice('function', null);
  const { particles, line } = sampled;
  const report = lesson.evaluate(particles.values, particles.gradients, line.values, line.gradients, params.shepard, params.corrected);
  const every = (array, offset, stride) => Array.from({ length: array.length / stride }, (_, k) => array[stride * k + offset]);
  valuePlot.replace(report.s, [Array.from(line.values), report.value]);
  gradientPlot.replace(report.s, [every(line.gradients, 0, 2), report.gradient_x, every(line.gradients, 1, 2), report.gradient_y]);
  readouts.particles(String(lesson.count()));
  readouts.neighbours(lesson.mean_neighbours().toFixed(1));
  readouts.valueMax(exp(report.value_line.max));
  readouts.valueRms(exp(report.value_line.rms));
  readouts.gradientMax(exp(report.gradient_line.max));
  readouts.gradientRms(exp(report.gradient_line.rms));
  readouts.sampleValueMax(exp(report.value_samples.max));
  readouts.sampleGradientMax(exp(report.gradient_samples.max));
  colourParticles(particles, report);
  canvas.dataset.expression = functions.fn.text;
  draw();
}

/** Colour by f, or by the per-particle error of ⟨f⟩ or ⟨∇f⟩. */
function colourParticles(particles, report) {
  const [scalars, title] = {
    value: [particles.values, 'f'],
    'value-error': [report.value_error, '|⟨f⟩ − f|'],
    'gradient-error': [report.gradient_error, '|⟨∇f⟩ − ∇f|'],
  }[params.colour];
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of scalars) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  if (params.colour !== 'value') lo = 0;
  lesson.colour_by(Float64Array.from(scalars), lo, hi);
  colourLegend(legend, { title: `Particles coloured by ${title}:`, scale: colour_scale, low: lo.toPrecision(3), high: hi.toPrecision(3) });
}

function draw() {
  lesson.draw(ctx, canvas.width, canvas.height);
}

// Drag the line (pointer or touch): it follows the pointer at its current angle.
let dragging = false;
const dragTo = (event) => {
  const offset = lesson.offset_through(...canvasPoint(canvas, event), canvas.width, canvas.height);
  controls.offset.set(Number(offset.toFixed(3)));
};
canvas.addEventListener('pointerdown', (event) => {
  dragging = true;
  canvas.setPointerCapture(event.pointerId);
  dragTo(event);
  event.preventDefault();
});
canvas.addEventListener('pointermove', (event) => {
  if (dragging) dragTo(event);
});
for (const type of ['pointerup', 'pointercancel']) canvas.addEventListener(type, () => { dragging = false; });

keepFitted(canvas, draw);
update();
page.ready();
