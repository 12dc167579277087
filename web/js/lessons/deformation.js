// The deformation-gradient lesson: map a phyxel's neighbourhood by T = R·S·U and watch the MLS estimate
// of F and the Green and Cauchy strains. Estimate: crates/phyxel/src/lessons/deformation.rs.
import init, { DeformationLesson } from '../../phyxel-web.js';
import { LessonPage, keepFitted } from '../site/page.js';
import { matrixLatex, renderLatex } from '../site/typeset.js';
import { defaults, fromTable } from '../site/controls.js';

await init();

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly)', simulation: false });
const lesson = new DeformationLesson();
const canvas = document.getElementById('scene');
const ctx = canvas.getContext('2d');
/** The lesson's parameter table (crates/phyxel/src/lessons/deformation.rs): ranges and defaults. */
const table = DeformationLesson.parameters();
const params = defaults(table);

const c = page.controls;
const controls = {};
const number = (key, label, unit) => {
  controls[key] = c.number({
    ...fromTable(table, key),
    label,
    unit,
    onChange: (value) => {
      params[key] = value;
      update(controls[key]);
    },
  });
};
number('angle', 'Rotation θ', '°');
number('sx', 'Scale s<sub>x</sub>', '');
number('sy', 'Scale s<sub>y</sub>', '');
number('shear', 'Shear γ', '');
const PRESETS = {
  identity: { angle: 0, sx: 1, sy: 1, shear: 0 },
  rotation: { angle: 90, sx: 1, sy: 1, shear: 0 },
  stretch: { angle: 0, sx: 1.5, sy: 0.8, shear: 0 },
  shear: { angle: 0, sx: 1, sy: 1, shear: 0.5 },
  all: { angle: 30, sx: 1.3, sy: 0.7, shear: 0.4 },
};
c.select({
  param: 'preset',
  id: 'preset-select',
  label: 'Preset',
  value: 'identity',
  options: [
    { value: 'identity', label: 'Identity' },
    { value: 'rotation', label: 'Pure rotation (90°)' },
    { value: 'stretch', label: 'Stretch' },
    { value: 'shear', label: 'Shear' },
    { value: 'all', label: 'Rotate, scale and shear' },
  ],
  onChange: (name) => {
    for (const [key, value] of Object.entries(PRESETS[name])) controls[key].set(value);
  },
});

const neighbourReadout = page.readout('neighbours', 'Neighbours');
const exactnessReadout = page.readout('exactness', 'max |F − T|');
neighbourReadout(String(lesson.neighbour_count()));

function update(control) {
  try {
    lesson.set_map(params.angle, params.sx, params.sy, params.shear);
  } catch (error) {
    control?.reject(error.message);
    return;
  }
  const m = lesson.matrices();
  for (const [id, values] of [
    ['matrix-map', m.map],
    ['matrix-f', m.deformation_gradient],
    ['matrix-green', m.green],
    ['matrix-cauchy', m.cauchy],
  ]) {
    const element = document.getElementById(id);
    element.dataset.values = JSON.stringify(values);
    renderLatex(element, matrixLatex(values));
  }
  const error = Math.max(...m.map.map((t, i) => Math.abs(t - m.deformation_gradient[i])));
  exactnessReadout(error.toExponential(1));
  draw();
}

function draw() {
  lesson.draw(ctx, canvas.width, canvas.height);
}

keepFitted(canvas, draw);
update();
page.ready();
