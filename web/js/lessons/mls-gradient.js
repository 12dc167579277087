// The MLS-gradient lesson: the gradient at scattered particles by SPH and by first-order MLS (the phyxel
// solver's MlsWeights), particles coloured by the condition number of their moment matrix, draggable to
// make a neighbourhood degenerate. Solver: crates/phyxel/src/lessons/mls_gradient.rs.
import init, { MlsGradientLesson, condition_colour } from '../../phyxel-web.js';
import { LessonPage, canvasPoint, keepFitted } from '../site/page.js';
import { LivePlot } from '../site/plot.js';
import { functionControls, sample, colourLegend } from './scattered.js';
import { defaults, fromTable } from '../site/controls.js';

await init();

/** How close (CSS pixels) a pointer must come to a particle to pick it up. */
const PICK_RADIUS = 18;

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly)', simulation: false });
const canvas = document.getElementById('scene');
const ctx = canvas.getContext('2d');
/** The lesson's parameter table (crates/phyxel/src/lessons/mls_gradient.rs): ranges and defaults. */
const table = MlsGradientLesson.parameters();
const params = { ...defaults(table), snap: true };
let lesson = new MlsGradientLesson(params.spacing, params.ratio, params.jitter, params.seed);
/** f and ∇f at the particles (kept in step with their positions). */
let sampled = null;

const c = page.controls;
const functions = functionControls(c, {
  value: 'linear',
  check: (fn) => {
    const result = sample(fn, lesson.positions());
    return result.ok ? null : result.message;
  },
  onChange: (fn) => {
    sampled = sample(fn, lesson.positions());
    update();
  },
});

const samplingGroup = c.group('Sampling');
const resampleControls = {};
const resampleNumber = (key, label) => {
  resampleControls[key] = samplingGroup.number({
    ...fromTable(table, key), label,
    onChange: (value) => resample(key, value),
  });
};
resampleNumber('spacing', 'Spacing Δx');
resampleNumber('ratio', 'Support radius h / Δx');
resampleNumber('jitter', 'Jitter (fraction of a cell)');
resampleNumber('seed', 'Random seed');
const reset = document.createElement('button');
reset.type = 'button';
reset.id = 'reset-particles';
reset.textContent = 'Put the particles back';
reset.addEventListener('click', () => {
  try {
    resample('seed', params.seed, true);
    page.notice('reset', null);
  } catch (error) {
    page.notice('reset', error.message, 'error');
  }
});
samplingGroup.container.append(reset);
c.checkbox({
  param: 'snap',
  id: 'snap', label: 'Snap dragged particles to a Δx/4 grid', checked: params.snap,
  onChange: (on) => { params.snap = on; },
});

const readouts = {
  particles: page.readout('particles', 'Particles'),
  regularized: page.readout('regularized', 'Rank-deficient (safe inverse)'),
  sphMax: page.readout('sph-max', 'SPH: max |∇f − ∇f<sub>exact</sub>|'),
  sphRms: page.readout('sph-rms', 'SPH: RMS error'),
  mlsMax: page.readout('mls-max', 'MLS: max |∇f − ∇f<sub>exact</sub>|'),
  mlsRms: page.readout('mls-rms', 'MLS: RMS error'),
  chosen: page.readout('chosen', 'Chosen particle at'),
  neighbours: page.readout('chosen-neighbours', '… its neighbours'),
  rank: page.readout('chosen-rank', '… rank of A<sub>i</sub>'),
  condition: page.readout('chosen-condition', '… condition λ₁/λ₂'),
  exact: page.readout('chosen-exact', '… ∇f exact'),
  sph: page.readout('chosen-sph', '… ∇f SPH'),
  mls: page.readout('chosen-mls', '… ∇f MLS'),
};

const shapePlot = new LivePlot(document.getElementById('plot-shape'), {
  title: 'Shape functions of the chosen particle, along x through it',
  xLabel: 'x − xᵢ',
  yLabel: 'Φᵢ',
  series: [{ label: 'MLS Φᵢ (linear basis)', stroke: '#2563eb' }, { label: 'SPH Vᵢ W', stroke: '#ea580c' }],
});

colourLegend(document.getElementById('legend'), {
  title: 'Condition number λ₁/λ₂ of the moment matrix:',
  scale: (t) => condition_colour(10 ** t),
  low: '1',
  high: '≥ 10',
  extras: `<span><span class="swatch" data-background="${condition_colour(Infinity)}"></span>rank-deficient: safe inverse</span>
    <span><span class="arrow-key" data-background="#111"></span>∇f exact</span>
    <span><span class="arrow-key" data-background="#ea580c"></span>SPH</span>
    <span><span class="arrow-key" data-background="#2563eb"></span>MLS</span>`,
});

const exp = (x) => x.toExponential(2);
const vector = ([x, y]) => `(${x.toFixed(3)}, ${y.toFixed(3)})`;

/** New particles (a control changed, or "put back"); throws (the control explains it) if refused. */
function resample(key, value, force = false) {
  if (!force && params[key] === value) return;
  let fresh;
  try {
    const next = { ...params, [key]: value };
    fresh = new MlsGradientLesson(next.spacing, next.ratio, next.jitter, next.seed);
  } catch (error) {
    throw error;
  }
  const result = sample(functions.fn, fresh.positions());
  if (!result.ok) {
    fresh.free();
    throw new Error(result.message);
  }
  lesson.free();
  lesson = fresh;
  params[key] = value;
  sampled = result;
  update();
}

function update() {
  const report = lesson.evaluate(sampled.values, sampled.gradients);
  readouts.particles(String(lesson.count()));
  readouts.regularized(String(report.regularized));
  readouts.sphMax(exp(report.sph.max));
  readouts.sphRms(exp(report.sph.rms));
  readouts.mlsMax(exp(report.mls.max));
  readouts.mlsRms(exp(report.mls.rms));
  const chosen = report.chosen;
  readouts.chosen(vector([chosen.x, chosen.y]));
  readouts.neighbours(String(chosen.neighbours));
  readouts.rank(String(chosen.rank));
  readouts.condition(chosen.condition == null ? '∞' : chosen.condition.toPrecision(3));
  readouts.exact(vector(chosen.exact));
  readouts.sph(vector(chosen.sph));
  readouts.mls(vector(chosen.mls));
  page.notice(
    'regularized',
    report.regularized > 0
      ? `${report.regularized} particle${report.regularized > 1 ? 's have' : ' has'} a rank-deficient moment matrix ` +
        '(collinear neighbours, a single neighbour or none): the safe inverse drops the missing direction, so MLS ' +
        'finds only the part of ∇f along the neighbours — finite, but not the whole gradient.'
      : null,
    'info',
  );
  const shapes = lesson.shape_functions(201);
  shapePlot.replace(shapes.s, [shapes.mls.map((v) => v ?? null), shapes.sph.map((v) => v ?? null)]);
  canvas.dataset.expression = functions.fn.text;
  draw();
}

function draw() {
  lesson.draw(ctx, canvas.width, canvas.height);
}

// Pick a particle (pointer or touch) and drag it; the MLS data follow every move.
let dragging = false;
canvas.addEventListener('pointerdown', (event) => {
  const [px, py] = canvasPoint(canvas, event);
  const dpr = canvas.width / canvas.clientWidth;
  const index = lesson.pick(px, py, canvas.width, canvas.height, PICK_RADIUS * dpr);
  if (index < 0) return;
  lesson.choose(index);
  dragging = true;
  canvas.setPointerCapture(event.pointerId);
  event.preventDefault();
  update();
});
canvas.addEventListener('pointermove', (event) => {
  if (!dragging) return;
  const i = lesson.chosen();
  const [x, y] = lesson.drop_position(...canvasPoint(canvas, event), canvas.width, canvas.height, params.snap);
  const moved = sample(functions.fn, [x, y]);
  if (!moved.ok) {
    // f is not finite there: the particle stays where it was.
    page.notice('function', `Cannot move the particle there: ${moved.message}`, 'warning');
    return;
  }
  page.notice('function', null);
  lesson.move_chosen(x, y);
  // Only the moved particle's sample changes.
  sampled.values[i] = moved.values[0];
  sampled.gradients[2 * i] = moved.gradients[0];
  sampled.gradients[2 * i + 1] = moved.gradients[1];
  update();
});
for (const type of ['pointerup', 'pointercancel']) canvas.addEventListener(type, () => { dragging = false; });

keepFitted(canvas, draw);
sampled = sample(functions.fn, lesson.positions());
update();
page.ready();
