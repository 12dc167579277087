// The kernels lesson: W, dW/dr and ∇²W of the SPH kernels, normalized in 1D, 2D or 3D, with a live
// check that ∫W dV = 1. Kernels: crates/phyxel/src/kernels.rs.
import init, { kernel_parameters, kernel_list, kernel_curves, kernel_lattice_integral, kernel_normalization } from '../../phyxel-web.js';
import { LessonPage } from '../site/page.js';
import { LivePlot } from '../site/plot.js';
import { fromTable } from '../site/controls.js';

await init();

const COLORS = ['#1d4ed8', '#d62828', '#2a9d3a', '#9333ea', '#ea580c'];
const kernels = kernel_list();
const page = new LessonPage({ computesOn: 'the CPU (WebAssembly)', simulation: false });
/** The lesson's parameter table (crates/phyxel/src/lessons/kernels.rs). */
const table = kernel_parameters();
const params = { dimension: 3, h: fromTable(table, 'h').value };
const shown = kernels.map(() => true);

const c = page.controls;
c.select({
  param: 'dimension',
  id: 'dimension-select',
  label: 'Dimension',
  value: '3',
  options: [
    { value: '1', label: '1D' },
    { value: '2', label: '2D' },
    { value: '3', label: '3D' },
  ],
  onChange: (value) => {
    params.dimension = Number(value);
    update();
  },
});
c.number({
  ...fromTable(table, 'h'),
  label: 'Support radius h',
  unit: 'm',
  onChange: (value) => {
    params.h = value;
    update();
  },
});
const kernelGroup = c.group('Kernels');
kernels.forEach((kernel, i) => {
  kernelGroup.checkbox({
    param: `kernel-${kernel.id}`,
    id: `kernel-${kernel.id}`,
    label: kernel.name,
    checked: true,
    color: COLORS[i],
    onChange: (checked) => {
      shown[i] = checked;
      for (const plot of plots) plot.setShown(i, checked);
      integralRows[i].hidden = !checked;
    },
  });
});

const integralRows = kernels.map((kernel, i) => {
  const set = page.readout(`integral-${kernel.id}`, `<span class="swatch" data-background="${COLORS[i]}"></span>∫W dV, ${kernel.name}`);
  const row = document.getElementById(`readout-integral-${kernel.id}`).parentElement;
  row.set = set;
  return row;
});
const peakReadout = page.readout('peak', 'W(0), cubic spline');

const series = kernels.map((k, i) => ({ label: k.name, stroke: COLORS[i] }));
const plot = (id, title, yLabel) => new LivePlot(document.getElementById(id), { title, xLabel: 'r (m)', yLabel, series });
const plots = [
  plot('plot-value', 'Kernel W(r)', 'W'),
  plot('plot-derivative', 'Derivative dW/dr', 'dW/dr'),
  plot('plot-laplacian', 'Laplacian ∇²W', '∇²W'),
];

function update() {
  const { dimension, h } = params;
  const curves = kernels.map((k) => kernel_curves(k.id, dimension, h, 400));
  const r = curves[0].r;
  plots[0].replace(r, curves.map((c) => c.value));
  plots[1].replace(r, curves.map((c) => c.derivative));
  plots[2].replace(r, curves.map((c) => c.laplacian.map((v) => v ?? null)));
  kernels.forEach((k, i) => {
    const integral = kernel_lattice_integral(k.id, dimension, h);
    integralRows[i].set(integral.toFixed(4));
  });
  peakReadout(`${(kernel_normalization('cubic', dimension) / h ** dimension).toPrecision(4)} m⁻${'¹²³'[dimension - 1]}`);
  const note = document.getElementById('lattice-note');
  note.textContent = `Lattice sum over the support with spacing h/${dimension === 3 ? 24 : 40}`;
}
update();
page.ready();
