// The cracks lesson: a notched plate under tension that cracks live (top canvas; CracksLesson, in the
// lesson worker: every call on `lesson` is a promise), and one particle's weight and MLS shape function
// beside a crack the user drags, under the visibility criterion and the transparency method (bottom
// canvas; CrackCloudLesson, on the page's thread). Physics: crates/phyxel/src/lessons/cracks (and
// cracks.rs); bindings: crates/phyxel-web/src/lessons/cracks.rs.
import init, { CrackCloudLesson, colour_scale } from '../../phyxel-web.js';
import { LessonPage, canvasPoint, fitCanvas, keepFitted } from '../site/page.js';
import { defaults, fromTable } from '../site/controls.js';
import { LessonWorker } from '../workers/remote-lesson.js';
import { colourLegend } from './scattered.js';

/** Wall-clock milliseconds one frame may spend stepping the plate (in the worker). */
const FRAME_BUDGET_MS = 12;

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly, in a worker)' });
const [solvers] = await Promise.all([LessonWorker.start(), init()]);
const canvas = document.getElementById('scene');
const cloudCanvas = document.getElementById('cloud');
const cloudCtx = cloudCanvas.getContext('2d');
/** The lesson's parameter table (crates/phyxel/src/lessons/cracks.rs): ranges and defaults. */
const table = await solvers.static('CracksLesson', 'parameters');
const params = { criterion: 'transparency', material: 'brittle', ...defaults(table) };
const lesson = await solvers.create('CracksLesson', params.strength, params.c_prop, params.kappa, params.pull, params.omega_min, params.criterion, params.material);
const cloud = new CrackCloudLesson(params.kappa);
const dt = await lesson.dt();
let time = 0;

const c = page.controls;
c.select({
  param: 'criterion',
  id: 'criterion-select',
  label: 'Plate: crack weights',
  value: params.criterion,
  options: [
    { value: 'transparency', label: 'Transparency (seed 002 eq. 70)' },
    { value: 'visibility', label: 'Visibility' },
  ],
  // The worker refuses nothing here (both names are known); a failure pauses the plate and says why.
  onChange: (value) => {
    params.criterion = value;
    return lesson.set_criterion(value);
  },
});
c.select({
  param: 'material',
  id: 'material-select',
  label: 'Plate: material',
  value: params.material,
  options: [
    { value: 'brittle', label: 'Brittle (elastic until it cracks)' },
    { value: 'ductile', label: 'Ductile (flows, necks, then tears)' },
  ],
  onChange: (value) => {
    params.material = value;
    return lesson.set_material(value);
  },
});
const number = (name, label, unit, help) =>
  c.number({
    ...fromTable(table, name), label, unit, help,
    onChange: (value) => {
      const next = { ...params, [name]: value };
      if (name === 'kappa') {
        cloud.set_kappa(value);
        drawCloud();
      }
      params[name] = value;
      // The solver checks the same table: a refusal there comes back to the control.
      return lesson.set_parameters(next.strength, next.c_prop, next.kappa, next.pull, next.omega_min);
    },
  });
number('strength', 'Tensile strength σ<sub>t</sub>', 'Pa', 'Positive: a crack starts where σ₁ exceeds it.');
number('c_prop', 'Crack speed c<sub>prop</sub>', 'm/s', 'Positive: how fast a loaded crack front advances.');
number('kappa', 'Transparency κ', '', 'Positive: how far from the front (in h) a crack stays see-through.');
number('pull', 'Pull speed (each edge)', 'm/s');
number('omega_min', 'Resampling Ω<sub>min</sub>', '', 'Positive: a particle a crack leaves with Ω = Σ ω′/ω below it is split (seed 002 eq. 71).');

const readouts = {
  cracks: page.readout('cracks', 'Cracks / fronts'),
  first: page.readout('first-crack', 'First crack'),
  stress: page.readout('max-stress', 'Largest σ₁/σ<sub>t</sub> (free particles)'),
  recomputed: page.readout('recomputed', 'Moment matrices recomputed (last step / all)'),
  deficient: page.readout('rank-deficient', 'Rank-deficient / isolated particles'),
  energy: page.readout('energy', 'Strain / kinetic energy / taken by cracks'),
  plastic: page.readout('plastic', 'Plastic work / largest plastic strain'),
  resampled: page.readout('resampled', 'Particles split / inserted / refused'),
  chosen: page.readout('chosen', 'Figure: chosen particle at'),
  weight: page.readout('probe-weight', '… ω′ at the probe: visibility / transparency (uncut)'),
  shape: page.readout('probe-shape', '… Φ at the probe: visibility / transparency'),
  unity: page.readout('unity', '… |ΣΦ − 1| at the probe: visibility / transparency'),
};

colourLegend(document.getElementById('legend'), {
  title: 'Plate: σ₁/σ<sub>t</sub>; figure: ω′ᵢ or Φᵢ over its largest',
  scale: (t) => colour_scale(t),
  low: '0',
  high: '≥ 1',
});

const exp = (x) => x.toExponential(2);
const fixed = (x, digits = 3) => x.toFixed(digits);

function plateReadouts(r) {
  readouts.cracks(`${r.cracks} / ${r.fronts}`);
  readouts.first(r.first
    ? `${r.first.kind} at step ${r.first.step}, ${fixed(r.first_from_tip, 2)} a from the notch tip, normal ${fixed(r.first.normal_from_load, 1)}° from the load`
    : '—');
  readouts.stress(fixed(r.max_stress_ratio));
  readouts.recomputed(`${r.recomputed_last} / ${r.recomputed_total}`);
  readouts.deficient(`${r.rank_deficient} / ${r.isolated}`);
  readouts.energy(`${exp(r.strain_energy)} J / ${exp(r.kinetic_energy)} J / ${exp(r.dissipated)} J`);
  readouts.plastic(`${exp(r.plastic_work)} J / ${fixed(r.largest_plastic_strain)}`);
  readouts.resampled(`${r.splits} / ${r.inserted} / ${r.refused}`);
  page.notice('resampling-cap', r.refused > 0
    ? `Resampling stopped at its cap of ${r.cap} inserted particles (as many as the plate started with, so that a step's work stays bounded): ${r.refused} more were refused.`
    : null, 'info');
}

function drawCloud() {
  cloud.draw(cloudCtx, cloudCanvas.width, cloudCanvas.height);
  const r = cloud.report();
  readouts.chosen(`#${r.chosen} (${fixed(r.x)}, ${fixed(r.y)}); probe (${fixed(r.probe[0])}, ${fixed(r.probe[1])})`);
  readouts.weight(`${exp(r.visibility[0])} / ${exp(r.transparency[0])} (${exp(r.uncut)})`);
  readouts.shape(`${exp(r.visibility[1])} / ${exp(r.transparency[1])}`);
  readouts.unity(`${exp(r.unity_error[0])} / ${exp(r.unity_error[1])}`);
}

// The cloud figure: drag the crack's ends, click a particle to choose it.
let dragging = false;
cloudCanvas.addEventListener('pointerdown', (event) => {
  const held = cloud.cloud_press(...canvasPoint(cloudCanvas, event), cloudCanvas.width, cloudCanvas.height);
  dragging = held === 'end';
  if (dragging) cloudCanvas.setPointerCapture(event.pointerId);
  event.preventDefault();
  drawCloud();
});
cloudCanvas.addEventListener('pointermove', (event) => {
  if (!dragging) return;
  if (cloud.cloud_drag(...canvasPoint(cloudCanvas, event), cloudCanvas.width, cloudCanvas.height)) drawCloud();
});
for (const type of ['pointerup', 'pointercancel']) {
  cloudCanvas.addEventListener(type, () => {
    dragging = false;
    cloud.cloud_release();
  });
}
keepFitted(cloudCanvas, drawCloud);

page.start({
  dt: () => dt,
  speed: () => 1,
  time: () => time,
  step: async (n) => {
    const { ms } = await lesson.timed('step', n);
    time += n * dt;
    return ms;
  },
  // As many steps as real time needs, within the frame's budget (the page says when it runs slower).
  stepsForFrame: (wall) => {
    const recent = page.stepStats.reduce((sum, s) => ({ ms: sum.ms + s.elapsed, n: sum.n + s.n }), { ms: 0, n: 0 });
    const perStep = recent.n ? recent.ms / recent.n : 0.5;
    const wanted = Math.ceil(wall / dt);
    const affordable = Math.max(1, Math.floor(FRAME_BUDGET_MS / Math.max(perStep, 1e-3)));
    page.notice('slow', wanted > affordable ? 'The plate runs slower than real time here (each frame steps as much as its budget allows).' : null, 'info');
    return Math.min(wanted, affordable);
  },
  restart: async () => {
    await lesson.restart();
    time = 0;
  },
  render: async () => {
    fitCanvas(canvas);
    const [, report] = await Promise.all([lesson.draw(canvas), lesson.report()]);
    plateReadouts(report);
  },
});
page.ready();
