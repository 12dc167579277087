// "Integrating a meshless solid": one clamped beam under its own weight, solved statically with nodal
// integration (MKN04's m/ρ volumes, or cell volumes) or background quadrature, its phyxels coloured by
// their volume share, its tip against Euler–Bernoulli and Timoshenko; and a convergence plot whose
// points are solved one by one. Solver: crates/phyxel/src/lessons/integrating_solid.rs and
// crates/phyxel/src/meshless/{quadrature,implicit}.rs; glue: crates/phyxel-web/src/lessons/integrating_solid.rs.
// Both run in lesson workers (js/workers/remote-lesson.js): the beam in one, the convergence sweep in a
// second, which is stopped and started afresh when the parameters it depends on change; the two-material
// cylinder (seed 003 §4.2: crates/phyxel/src/lessons/integrating_solid/two_materials.rs, glue
// crates/phyxel-web/src/lessons/integrating_solid_cylinder.rs) in a third.
import { LessonPage, keepFitted } from '../site/page.js';
import { LessonWorker } from '../workers/remote-lesson.js';
import { defaults, fromTable } from '../site/controls.js';
import { LivePlot } from '../site/plot.js';
import { paint } from '../site/painted.js';

const CLASS = 'IntegratingSolidLesson';
/** The most phyxels (beam and wall) one beam may have here: more would take minutes in a browser. */
const MAX_PHYXELS = 5000;
/** The convergence plot's resolutions (phyxels across H), and the most phyxels one of its solves may have. */
const SWEEP_ACROSS = [3, 4, 5, 6];
const MAX_SWEEP_PHYXELS = 2000;
/** A new sweep starts this long after the last change (typing a number changes it several times). */
const SWEEP_DELAY_MS = 300;
/** The parameters the convergence sweep depends on (not the resolution, not the integration). */
const SWEEP_KEYS = ['height', 'slenderness', 'young', 'poisson', 'density'];
/** The parameters the beam depends on, and those the two-material cylinder depends on. */
const BEAM_KEYS = ['across', 'height', 'slenderness', 'young', 'poisson', 'density'];
const CYLINDER_KEYS = ['cylinderAcross', 'height', 'slenderness', 'young', 'poisson', 'density', 'ratio'];
const CYLINDER_CLASS = 'TwoMaterialCylinderLesson';
/** The most phyxels the cylinder may have: its solve takes seconds in a browser at about 2000. */
const MAX_CYLINDER_PHYXELS = 2000;
const SERIES_COLOURS = { nodal: '#dc2626', cell: '#d97706', quadrature: '#2563eb' };

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly, in a worker)', simulation: false });
const [solvers, cylinderSolvers] = await Promise.all([LessonWorker.start(), LessonWorker.start()]);
const canvas = document.getElementById('scene');
const cylinderCanvas = document.getElementById('cylinder');
/** The solver's parameter table (crates/phyxel/src/lessons/integrating_solid.rs): ranges and defaults. */
const [table, integrations, legendStops, materialColours] = await Promise.all([
  solvers.static(CLASS, 'parameters'),
  solvers.static(CLASS, 'integrations'),
  solvers.static(CLASS, 'share_legend'),
  solvers.static(CYLINDER_CLASS, 'colours'),
]);
const params = { ...defaults(table), integration: 'nodal', magnification: 10, points: false, cylinderMagnification: 100 };
const names = Object.fromEntries(integrations.map(({ id, name }) => [id, name]));

/**
 * Solves run one after another, each with the parameters in force when it starts; one still queued
 * when a later one is asked for resolves without running (the later one solves the parameters then in
 * force: typing a number asks several times). `idle()`: settles when the solves asked for so far have.
 */
function latestSolves() {
  let tail = Promise.resolve();
  let asked = 0;
  return {
    run(solve) {
      const request = ++asked;
      const work = tail.then(() => (request === asked ? solve() : undefined));
      tail = work.catch(() => {});
      return work;
    },
    idle: () => tail,
  };
}

// ---- The beam -------------------------------------------------------------------------------------

/** The solved beam shown (null until the first solve). */
let lesson = null;
/** The worker's time for that solve (ms). */
let solveMs = NaN;
const beamSolves = latestSolves();

/**
 * Solve the beam with the parameters in force, after any solve already asked for. Rejects, keeping the
 * beam shown, when the parameters are refused (too many phyxels, or out of the solver's range); a
 * solve that fails (no convergence) shows the beam unsolved and says why in a notice. Queued behind the
 * beam's other solves, and skipped if a later one is asked for meanwhile (`latestSolves`).
 */
function rebuild() {
  return beamSolves.run(async () => {
    const p = { ...params };
    const count = await solvers.static(CLASS, 'phyxel_count', p.height, p.slenderness, p.across);
    if (count > MAX_PHYXELS) {
      throw new Error(`${p.across} across at L/H = ${p.slenderness} make ${count} phyxels; this page solves at most ${MAX_PHYXELS} (fewer across, or a shorter beam)`);
    }
    const fresh = await solvers.create(CLASS, p.height, p.slenderness, p.across, p.young, p.poisson, p.density, p.integration);
    readout.status('solving…');
    let solved;
    try {
      solved = await fresh.timed('solve');
    } catch (error) {
      fresh.free();
      throw error;
    }
    lesson?.free();
    lesson = fresh;
    solveMs = solved.ms;
    const failure = solved.result;
    page.notice('solve', failure ? `The static solve failed: ${failure}. The beam is drawn unsolved.` : null, 'error');
    await show();
  });
}

// ---- The two-material cylinder -------------------------------------------------------------------

/** The solved cylinder shown (null until the first solve), and the worker's time for its solve (ms). */
let cylinder = null;
let cylinderMs = NaN;
const cylinderSolves = latestSolves();

/** Refuse parameters `p` that give the cylinder more phyxels than the page solves. */
async function checkCylinder(p) {
  const count = await cylinderSolvers.static(CYLINDER_CLASS, 'phyxel_count', p.height, p.slenderness, p.cylinderAcross);
  if (count > MAX_CYLINDER_PHYXELS) {
    throw new Error(`${p.cylinderAcross} across the cylinder at L/D = ${p.slenderness} make ${count} phyxels; this page solves at most ${MAX_CYLINDER_PHYXELS} for it (fewer across, or a shorter cylinder)`);
  }
}

/** Solve the cylinder with the parameters in force, queued behind its other solves as the beam's. */
function rebuildCylinder() {
  return cylinderSolves.run(async () => {
    const p = { ...params };
    await checkCylinder(p);
    const fresh = await cylinderSolvers.create(CYLINDER_CLASS, p.height, p.slenderness, p.cylinderAcross, p.young, p.poisson, p.density, p.ratio);
    readout.cylinderStatus('solving…');
    let solved;
    try {
      solved = await fresh.timed('solve');
    } catch (error) {
      fresh.free();
      throw error;
    }
    cylinder?.free();
    cylinder = fresh;
    cylinderMs = solved.ms;
    const failure = solved.result;
    page.notice('cylinder', failure ? `The cylinder's static solve failed: ${failure}.` : null, 'error');
    await showCylinder();
  });
}

/** Solve the cylinder again after a change the controls accepted; a failure is a notice. */
function followCylinder() {
  page.track(rebuildCylinder()).catch((error) => page.notice('cylinder', `The cylinder was not solved: ${error.message}`, 'error'));
}

const c = page.controls;
/**
 * A number of the solver's table; a value it refuses is refused at the control, the beam and the
 * cylinder shown stay. A change of the beam or the material solves the beam (the control waits for it)
 * and then the cylinder; the cylinder's own numbers solve only the cylinder.
 */
const number = (panel, key, label, unit, help) =>
  panel.number({
    ...fromTable(table, key), label, unit, help,
    onChange: (value) => {
      const previous = params[key];
      params[key] = value;
      const work = BEAM_KEYS.includes(key)
        ? (async () => {
          if (CYLINDER_KEYS.includes(key)) await checkCylinder({ ...params });
          await rebuild();
          if (CYLINDER_KEYS.includes(key)) followCylinder();
        })()
        : rebuildCylinder();
      if (SWEEP_KEYS.includes(key)) requestSweep(work);
      return page.track(work.catch((error) => {
        // Unless a later value has taken its place meanwhile.
        if (params[key] === value) {
          params[key] = previous;
          if (SWEEP_KEYS.includes(key)) requestSweep();
        }
        throw error;
      }));
    },
  });

const method = c.group('Integration');
method.select({
  param: 'integration',
  id: 'integration-select',
  label: 'Elastic energy integrated',
  value: params.integration,
  options: integrations.map(({ id, name }) => ({ value: id, label: name })),
  onChange: (id) => {
    params.integration = id;
    page.track(rebuild().then(
      () => page.notice('integration', null),
      (error) => page.notice('integration', `Integration: ${error.message}`, 'error'),
    ));
  },
});
number(method, 'across', 'Phyxels across H', '', 'Resolution: phyxels over the height (both faces included)');
const geometry = c.group('Beam and material');
number(geometry, 'height', 'Height H (= depth)', 'm');
number(geometry, 'slenderness', 'Slenderness L/H', '');
number(geometry, 'young', 'Young’s modulus E', 'Pa');
number(geometry, 'poisson', 'Poisson’s ratio ν', '');
number(geometry, 'density', 'Density ρ', 'kg/m³');
const view = c.group('View');
view.select({
  param: 'magnification',
  id: 'magnification-select',
  label: 'Displacements drawn',
  value: String(params.magnification),
  options: [1, 10, 100].map((m) => ({ value: String(m), label: `×${m}` })),
  onChange: (value) => {
    params.magnification = Number(value);
    draw();
  },
});
view.checkbox({
  param: 'points',
  id: 'show-points',
  label: 'Integration points (×, quadrature)',
  checked: params.points,
  onChange: (on) => {
    params.points = on;
    draw();
  },
});

const twoMaterials = c.group('Two materials (cylinder)');
number(twoMaterials, 'ratio', 'E<sub>stiff</sub> / E<sub>soft</sub>', '', 'The right half’s Young’s modulus over the left half’s (the material above)');
number(twoMaterials, 'cylinderAcross', 'Phyxels across D', '', 'Resolution of the cylinder: phyxels over its diameter D = H');
twoMaterials.select({
  param: 'cylinderMagnification',
  id: 'cylinder-magnification-select',
  label: 'Cylinder displacements drawn',
  value: String(params.cylinderMagnification),
  options: [10, 100, 1000].map((m) => ({ value: String(m), label: `×${m}` })),
  onChange: (value) => {
    params.cylinderMagnification = Number(value);
    drawCylinder();
  },
});

const readout = {
  status: page.readout('status', 'Beam'),
  phyxels: page.readout('phyxels', 'Phyxels (held by the wall)'),
  points: page.readout('points', 'Integration points'),
  volumeTrue: page.readout('volume-true', 'True volume L·H²'),
  volumePhyxels: page.readout('volume-phyxels', 'ΣV<sub>i</sub>, the beam’s phyxels'),
  volumePoints: page.readout('volume-points', 'Σv<sub>I</sub>, integration points'),
  shares: page.readout('shares', 'Volume shares, min – max'),
  tip: page.readout('tip', 'Tip deflection (solver)'),
  tipEulerBernoulli: page.readout('tip-euler-bernoulli', 'Euler–Bernoulli'),
  errorEulerBernoulli: page.readout('error-euler-bernoulli', 'Error vs Euler–Bernoulli'),
  tipTimoshenko: page.readout('tip-timoshenko', 'Timoshenko'),
  errorTimoshenko: page.readout('error-timoshenko', 'Error vs Timoshenko'),
  tipFem: page.readout('tip-fem', '3-D FEM reference (tests)'),
  errorFem: page.readout('error-fem', 'Error vs 3-D FEM'),
  newton: page.readout('newton', 'Newton steps'),
  cg: page.readout('cg', 'CG iterations (all steps)'),
  residual: page.readout('residual', 'Residual ‖f‖/‖f<sub>ext</sub>‖'),
  solveTime: page.readout('solve-time', 'Solve time (in the worker)'),
  convergence: page.readout('convergence', 'Convergence plot'),
  cylinderStatus: page.readout('cylinder-status', 'Two materials: cylinder'),
  cylinderPhyxels: page.readout('cylinder-phyxels', 'Phyxels (integration points)'),
  softEnd: page.readout('soft-end', 'Soft end x = 0 sinks (solver)'),
  softTimoshenko: page.readout('soft-timoshenko', 'Soft end, Timoshenko'),
  stiffEnd: page.readout('stiff-end', 'Stiff end x = L sinks (solver)'),
  stiffTimoshenko: page.readout('stiff-timoshenko', 'Stiff end, Timoshenko'),
  endRatio: page.readout('end-ratio', 'δ<sub>soft</sub> / δ<sub>stiff</sub> (solver)'),
  theoryRatio: page.readout('theory-ratio', 'Beam theory: E<sub>stiff</sub> / E<sub>soft</sub>'),
  ratioError: page.readout('ratio-error', 'Error of the ratio'),
  cylinderSolve: page.readout('cylinder-solve', 'Cylinder solve (Newton, CG, time)'),
};

const mm = (metres) => (Number.isFinite(metres) ? `${(1000 * metres).toPrecision(4)} mm` : '—');
/** A signed percentage with an ASCII sign (readable by parseFloat): "+5.58 %", "-53.46 %". */
const percent = (fraction) => (Number.isFinite(fraction) ? `${fraction < 0 ? '-' : '+'}${Math.abs(100 * fraction).toFixed(2)} %` : '—');
const ofTrueVolume = (volume, exact) => (Number.isFinite(volume) ? `${(volume / exact).toFixed(4)} × L·H²` : '—');

/** Readouts and picture of the beam shown. */
async function show() {
  const [failure, phyxels, points, volumes, tips, report, shares] = await Promise.all([
    lesson.failure(),
    lesson.phyxels(),
    lesson.integration_points(),
    lesson.volumes(),
    lesson.tips(),
    lesson.report(),
    lesson.share_range(),
    draw(),
  ]);
  const [sumPhyxels, sumPoints, exact] = volumes;
  const [tip, eulerBernoulli, timoshenko, fem] = tips;
  readout.status(failure ? 'not solved' : `solved (${names[params.integration]})`);
  readout.phyxels(phyxels[0] ? `${phyxels[0]} (${phyxels[1]} held)` : '—');
  readout.points(points ? String(points) : '— (nodal: the phyxels)');
  readout.volumeTrue(`${exact.toPrecision(4)} m³`);
  readout.volumePhyxels(ofTrueVolume(sumPhyxels, exact));
  readout.volumePoints(ofTrueVolume(sumPoints, exact));
  readout.shares(shares.length ? `${shares[0].toFixed(3)} – ${shares[1].toFixed(3)}` : '—');
  readout.tip(mm(tip));
  readout.tipEulerBernoulli(mm(eulerBernoulli));
  readout.errorEulerBernoulli(percent(tip / eulerBernoulli - 1));
  readout.tipTimoshenko(mm(timoshenko));
  readout.errorTimoshenko(percent(tip / timoshenko - 1));
  readout.tipFem(Number.isFinite(fem) ? mm(fem) : '— (known for L/H = 10, ν = 0.45)');
  readout.errorFem(percent(tip / fem - 1));
  readout.newton(report.length ? String(report[0]) : '—');
  readout.cg(report.length ? String(report[1]) : '—');
  readout.residual(report.length ? report[2].toExponential(1) : '—');
  readout.solveTime(!Number.isFinite(solveMs) ? '—' : solveMs < 1000 ? `${solveMs.toPrecision(3)} ms` : `${(solveMs / 1000).toPrecision(3)} s`);
}

/** Readouts and picture of the cylinder shown. */
async function showCylinder() {
  const [failure, counts, ends, report] = await Promise.all([
    cylinder.failure(),
    cylinder.counts(),
    cylinder.ends(),
    cylinder.report(),
    drawCylinder(),
  ]);
  const [soft, stiff, softTheory, stiffTheory, ratio, theory] = ends;
  readout.cylinderStatus(failure ? 'not solved' : 'solved');
  readout.cylinderPhyxels(counts[0] ? `${counts[0]} (${counts[1]})` : '—');
  readout.softEnd(mm(soft));
  readout.softTimoshenko(`${mm(softTheory)} (solver ${percent(soft / softTheory - 1)})`);
  readout.stiffEnd(mm(stiff));
  readout.stiffTimoshenko(`${mm(stiffTheory)} (solver ${percent(stiff / stiffTheory - 1)})`);
  readout.endRatio(Number.isFinite(ratio) ? ratio.toFixed(3) : '—');
  readout.theoryRatio(theory.toFixed(3));
  readout.ratioError(percent(ratio / theory - 1));
  const time = !Number.isFinite(cylinderMs) ? '—' : cylinderMs < 1000 ? `${cylinderMs.toPrecision(3)} ms` : `${(cylinderMs / 1000).toPrecision(3)} s`;
  readout.cylinderSolve(report.length ? `${report[0]}, ${report[1]}, ${time}` : '—');
}

/** Draw the cylinder shown (in its worker). */
function drawCylinder() {
  return cylinder ? page.track(cylinder.draw(cylinderCanvas, params.cylinderMagnification)) : Promise.resolve();
}

/** Draw the beam shown (in the worker) with the view's settings. */
function draw() {
  return lesson ? page.track(lesson.draw(canvas, params.magnification, params.points)) : Promise.resolve();
}

// The colour legend, from the same scale the canvas is coloured with.
const legend = document.getElementById('legend');
const stops = legendStops.map(({ colour }, k) => `${colour} ${(100 * k) / (legendStops.length - 1)}%`).join(', ');
legend.innerHTML = `<span>Volume share V<sub>i</sub> / cell</span>
  <span class="legend-bar"><span>½</span><span class="legend-gradient" data-background="linear-gradient(to right, ${stops})"></span><span>2</span></span>
  <span><span class="swatch" data-background="${legendStops[0].colour}"></span>&lt; 1 under-counted</span>
  <span><span class="swatch exact-swatch" data-background="${legendStops[5].colour}"></span>1 exact</span>
  <span><span class="swatch" data-background="${legendStops[10].colour}"></span>&gt; 1 over-counted</span>
  <span><span class="swatch held-swatch"></span>held by the wall</span>
  <span>× integration point</span>
  <span><span class="arrow-key" data-background="#16a34a"></span>Timoshenko's tip</span>
  <span>dotted: the beam undeformed</span>`;
paint(legend);

const cylinderLegend = document.getElementById('cylinder-legend');
cylinderLegend.innerHTML = `<span><span class="swatch" data-background="${materialColours[0]}"></span>soft, E</span>
  <span><span class="swatch" data-background="${materialColours[1]}"></span>stiff, r·E</span>
  <span>between: phyxels whose integration points are of both</span>
  <span><span class="swatch held-swatch"></span>held centre section</span>
  <span><span class="arrow-key" data-background="#16a34a"></span>Timoshenko's end deflections</span>
  <span>dotted: the cylinder undeformed</span>`;
paint(cylinderLegend);

// ---- The convergence sweep ----------------------------------------------------------------------

const plot = new LivePlot(document.getElementById('plot-convergence'), {
  title: 'Tip error |δ/δ_ref − 1| against a/H (ref: 3-D FEM where known, else Timoshenko)',
  xLabel: 'a/H',
  yLabel: '|error|',
  xLog: true,
  yLog: true,
  xTicks: SWEEP_ACROSS.map((n) => 1 / (n - 1)),
  points: true,
  series: integrations.map(({ id, name }) => ({ label: name, stroke: SERIES_COLOURS[id] })),
});
const sweepTable = document.querySelector('#convergence-table tbody');
document.querySelector('#convergence-table thead tr').insertAdjacentHTML(
  'beforeend',
  integrations.map(({ id }) => `<th scope="col" data-integration="${id}"></th>`).join(''),
);
for (const { id, name } of integrations) {
  document.querySelector(`#convergence-table th[data-integration="${id}"]`).textContent = name;
}

/** The sweep whose points count (older ones are abandoned), the worker it runs in, and its point in flight. */
let sweepGeneration = 0;
let sweepKey = null;
let sweepSolvers = null;
let sweepInFlight = null;
let sweepTimer = null;
let sweepRequests = 0;

/** The sweep's parameters in force, and their key. */
const sweepParameters = () => Object.fromEntries(SWEEP_KEYS.map((key) => [key, params[key]]));

/**
 * Start a new sweep once the beam's and the cylinder's solves asked for so far are done (`after`: the
 * change's own solve) and SWEEP_DELAY_MS have passed since the last call, if the parameters it depends
 * on changed. The beam the reader asked for comes first: the sweep's solves would share the cores with
 * it. A sweep of parameters no longer in force stops at once.
 */
function requestSweep(after = Promise.resolve()) {
  clearTimeout(sweepTimer);
  const request = ++sweepRequests;
  if (JSON.stringify(sweepParameters()) !== sweepKey) stopSweep();
  after.catch(() => {})
    .then(() => Promise.all([beamSolves.idle(), cylinderSolves.idle()]))
    .then(() => {
      if (request === sweepRequests) sweepTimer = setTimeout(startSweep, SWEEP_DELAY_MS);
    });
}

/** Abandon the sweep under way: its results stop counting, and a point still being solved goes with its worker. */
function stopSweep() {
  sweepKey = null;
  sweepGeneration += 1;
  if (sweepInFlight !== null && sweepSolvers) {
    sweepSolvers.then((s) => s.terminate());
    sweepSolvers = null;
  }
  sweepInFlight = null;
}

function startSweep() {
  const p = sweepParameters();
  const key = JSON.stringify(p);
  if (key === sweepKey) return;
  stopSweep();
  sweepKey = key;
  const generation = sweepGeneration;
  runSweep(generation, p).catch((error) => {
    if (generation === sweepGeneration) page.notice('convergence', `Convergence plot: ${error.message}`, 'error');
  });
}

/** Solve every point of the convergence plot for parameters `p`, one by one, showing each as it comes. */
async function runSweep(generation, p) {
  const current = () => generation === sweepGeneration;
  document.body.dataset.convergence = 'running';
  page.notice('convergence', null);
  const rows = new Map();
  sweepTable.replaceChildren();
  for (const across of SWEEP_ACROSS) {
    const row = document.createElement('tr');
    row.dataset.across = String(across);
    row.innerHTML = `<td>${across}</td><td>${(1 / (across - 1)).toFixed(3)}</td>${integrations.map(({ id }) => `<td data-integration="${id}">…</td>`).join('')}`;
    sweepTable.append(row);
    rows.set(across, row);
  }
  const errors = Object.fromEntries(integrations.map(({ id }) => [id, new Map()]));
  const failed = new Set();
  const total = SWEEP_ACROSS.length * integrations.length;
  let done = 0;
  const started = performance.now();
  const redraw = () => {
    const xs = SWEEP_ACROSS.map((n) => 1 / (n - 1)).sort((a, b) => a - b);
    const across = xs.map((x) => Math.round(1 / x + 1));
    plot.replace(xs, integrations.map(({ id }) => across.map((n) => Math.abs(errors[id].get(n) ?? NaN))));
  };
  redraw();
  readout.convergence(`0 of ${total} points`);
  sweepSolvers ??= LessonWorker.start();
  const workers = await sweepSolvers;
  for (const across of SWEEP_ACROSS) {
    const row = rows.get(across);
    const cell = (id) => row.querySelector(`td[data-integration="${id}"]`);
    if (!current()) return;
    const count = await workers.static(CLASS, 'phyxel_count', p.height, p.slenderness, across);
    if (!current()) return;
    if (count > MAX_SWEEP_PHYXELS) {
      for (const { id } of integrations) cell(id).textContent = `skipped: ${count} phyxels > ${MAX_SWEEP_PHYXELS}`;
      done += integrations.length;
      continue;
    }
    for (const { id } of integrations) {
      if (!current()) return;
      if (failed.has(id)) {
        cell(id).textContent = 'skipped (failed at fewer across)';
        done += 1;
        continue;
      }
      sweepInFlight = generation;
      let point;
      try {
        point = await workers.static(CLASS, 'convergence_point', p.height, p.slenderness, p.young, p.poisson, p.density, id, across);
      } catch (error) {
        if (!current()) return;
        failed.add(id);
        done += 1;
        cell(id).textContent = `failed: ${error.message}`;
        continue;
      } finally {
        if (sweepInFlight === generation) sweepInFlight = null;
      }
      if (!current()) return;
      done += 1;
      errors[id].set(across, point.relative_error);
      cell(id).textContent = percent(point.relative_error);
      cell(id).dataset.error = String(point.relative_error);
      cell(id).title = `δ = ${mm(point.tip_deflection)}, ${point.cg_iterations} CG iterations`;
      redraw();
      readout.convergence(`${done} of ${total} points`);
    }
  }
  if (!current()) return;
  readout.convergence(`done: ${done} of ${total} points in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  document.body.dataset.convergence = 'done';
}

keepFitted(canvas, () => draw());
keepFitted(cylinderCanvas, () => drawCylinder());
const first = rebuild();
page.track(first).catch((error) => page.notice('solve', `The beam was not solved: ${error.message}`, 'error'));
followCylinder();
page.ready();
requestSweep(first);
