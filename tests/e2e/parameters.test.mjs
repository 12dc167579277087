// Every demo's public parameters — the names teachers' links, embed snippets and messages use — are
// exactly the documented ones, whatever the markup's ids; and each lesson's page accepts exactly what
// its solver accepts: every numeric control's range is the solver's own table (the lesson binding's
// parameters(); the 3D demo's PhyxelDemo.parameters()), and set through the message API its min and
// max are taken by page and solver alike while just beyond them is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage } from './harness.mjs';

const env = useBrowser();

const METHODS = ['explicit-euler', 'symplectic-euler', 'leap-frog', 'position-verlet', 'velocity-verlet', 'rk2', 'rk4', 'implicit-euler'];
const KERNELS = ['cubic', 'wendland', 'quintic', 'poly6', 'spiky'];

/** The public parameter names of every demo: never rename one (links in course pages use them). */
const NAMES = {
  'time-integration': ['scene', 'dt', 'speed', 'm', 'k', 'x0', 'g', 'v0', 'angle', ...METHODS.map((m) => `method-${m}`)],
  kernels: ['dimension', 'h', ...KERNELS.map((k) => `kernel-${k}`)],
  'neighbourhood-search': ['count', 'radius'],
  'sph-approximation': ['function', 'expression', 'spacing', 'ratio', 'jitter', 'seed', 'kernel', 'shepard', 'correction', 'offset', 'angle', 'colour'],
  'mls-gradient': ['function', 'expression', 'spacing', 'ratio', 'jitter', 'seed', 'snap'],
  deformation: ['angle', 'sx', 'sy', 'shear', 'preset'],
  pbd: ['scene', 'solver', 'iterations', 'stiffness', 'compliance', 'dt', 'gravity', 'mass'],
  'explicit-implicit': ['young', 'poisson', 'density', 'across', 'explicitDt', 'implicitDt', 'damping', 'tolerance', 'maxIterations'],
  'integrating-solid': ['integration', 'across', 'height', 'slenderness', 'young', 'poisson', 'density', 'magnification', 'points', 'ratio', 'cylinderAcross', 'cylinderMagnification'],
  cracks: ['criterion', 'material', 'strength', 'c_prop', 'kappa', 'pull', 'omega_min'],
  'sph-fluids': ['solver', 'colour', 'across', 'xsph', 'iterations', 'sound', 'body'],
  'sph-fluids-3d': ['backend', 'scene', 'solver', 'colour', 'across', 'xsph', 'iterations', 'sound'],
  phyxels: [
    'backend', 'threads', 'scene', 'resolution', 'lattice', 'obstacle', 'young', 'poisson', 'density', 'volumeStiffness',
    'plastic', 'yieldStrain', 'creep', 'maxStrain', 'tool', 'heatRate', 'heatRadius', 'integrator', 'implicitModel', 'cgTolerance',
    'cgIterations', 'timeStep', 'cflFraction', 'dt', 'substeps', 'substepCount', 'damping', 'friction', 'colourBy',
    'showPhyxels', 'showSurface', 'strength', 'cProp', 'weights', 'kappa', 'omegaMin', 'load', 'ballSpeed', 'strikeSpeed',
  ],
};

/** How each lesson's solver table is read in its page. */
const TABLES = {
  'time-integration': 'TimeIntegrationLesson.parameters',
  kernels: 'kernel_parameters',
  'neighbourhood-search': 'NeighbourhoodLesson.parameters',
  'sph-approximation': 'SphApproximationLesson.parameters',
  'mls-gradient': 'MlsGradientLesson.parameters',
  deformation: 'DeformationLesson.parameters',
  pbd: 'PbdLesson.parameters',
  'explicit-implicit': 'ExplicitImplicitLesson.parameters',
  'integrating-solid': 'IntegratingSolidLesson.parameters',
  cracks: 'CracksLesson.parameters',
  'sph-fluids': 'SphFluidsLesson.parameters',
  'sph-fluids-3d': 'SphFluids3d.parameters',
  phyxels: 'PhyxelDemo.parameters',
};

/** The wasm module whose table a page reads: the 2D lessons' (crates/phyxel-web) unless named here (the
 * 3D fluid's solver runs in the worker's module, crates/phyxel-worker). */
const MODULES = { phyxels: './phyxel-view.js', 'sph-fluids-3d': './worker/single/phyxel-worker.js' };

/**
 * Extremes not set through messages, with the reason: the largest resolution builds more phyxels than
 * the CPU solver is offered (the phyxel cap, not the range, refuses it: a combination of scene and
 * resolution), so only its range is compared.
 */
const NOT_SET = { phyxels: ['resolution'] };

/**
 * Values set before the extremes, and set back after each parameter's, instead of the defaults: each
 * `set` of integrating-solid waits for its beam's static solve, and on the default beam (L = 1 m) the
 * extremes took 30–40 s each on the 2-core VM (E = 10⁵ Pa bends it by about 15 m under its own weight,
 * far into Newton's nonlinear range); on the shortest, coarsest beam they take a few seconds.
 */
const BASELINE = { 'integrating-solid': { across: 3, slenderness: 4 } };

/** Numeric controls that are the page's own, not its solver's (the solver never sees them). */
const PAGE_ONLY = { 'time-integration': ['speed'], phyxels: ['threads'] };

/** The demo in an iframe of a page of the site, driven by messages as a course page would. */
async function openDemo(demo) {
  const opened = await openPage(env, 'index.html');
  const { page } = opened;
  await page.evaluate((src) => {
    const frame = document.createElement('iframe');
    frame.id = 'demo';
    frame.src = src;
    frame.width = 1000;
    frame.height = 700;
    document.body.append(frame);
    const replies = new Map();
    let next = 1;
    addEventListener('message', ({ data }) => {
      if (data?.phyxel === 1 && 'ok' in data) replies.get(data.id)?.(data);
    });
    window.ask = (message) => new Promise((resolve) => {
      const id = next++;
      replies.set(id, resolve);
      frame.contentWindow.postMessage({ phyxel: 1, id, ...message }, '*');
    });
  }, `${demo}.html`);
  const frame = await (await page.$('#demo')).contentFrame();
  await frame.waitForURL(new RegExp(`/${demo}\\.html`));
  await frame.waitForFunction(() => document.body?.dataset.ready === 'true', null, { timeout: 30_000 });
  const ask = (message) => page.evaluate((m) => window.ask(m), message);
  return { ...opened, frame, ask };
}

for (const [demo, names] of Object.entries(NAMES)) {
  test(`${demo}: its public parameters are exactly the documented names`, async () => {
    const { frame, ask, context, problems } = await openDemo(demo);
    const described = await ask({ action: 'describe' });
    assert.equal(described.ok, true, described.error);
    assert.deepEqual(described.result.parameters.map((p) => p.name).sort(), [...names].sort());
    // The markup carries the same names (data-param), whatever its ids.
    const marked = await frame.evaluate(() => [...document.querySelectorAll('[data-param]')].map((e) => e.dataset.param));
    assert.deepEqual(marked.sort(), [...names].sort());
    assert.deepEqual(problems, []);
    await context.close();
  });
}

for (const [demo, table] of Object.entries(TABLES)) {
  test(`${demo}: the page accepts exactly the range its solver accepts`, async () => {
    const { frame, ask, context, problems } = await openDemo(demo);
    const solver = await frame.evaluate(async ([module, path]) => {
      const phyxel = await import(module);
      await phyxel.default();
      const [owner, method] = path.includes('.') ? path.split('.') : [null, path];
      return owner ? phyxel[owner][method]() : phyxel[method]();
    }, [MODULES[demo] ?? './phyxel-web.js', table]);
    assert.ok(solver.length > 0, 'the solver has a parameter table');
    const { kind, parameters } = (await ask({ action: 'describe' })).result;
    // A simulation stays paused: the extremes are set, not run.
    if (kind === 'simulation') assert.equal((await ask({ action: 'pause' })).ok, true, 'the demo pauses');
    for (const control of parameters.filter((p) => p.kind === 'number')) {
      const entry = solver.find((p) => p.name === control.name);
      if (!entry) {
        assert.ok(PAGE_ONLY[demo]?.includes(control.name), `${control.name} is a number the solver has no range for`);
        continue;
      }
      assert.deepEqual(
        { min: control.min, max: control.max, integer: control.integer, default: Number(control.default) },
        { min: entry.min, max: entry.max, integer: entry.integer, default: entry.default },
        `${control.name}: the page's range and default are the solver's`,
      );
    }
    const baseline = BASELINE[demo] ?? {};
    for (const [name, value] of Object.entries(baseline)) {
      const reply = await ask({ action: 'set', parameter: name, value });
      assert.equal(reply.ok, true, `${name}=${value}: ${reply.error}`);
    }
    for (const entry of solver) {
      assert.ok(parameters.some((p) => p.name === entry.name && p.kind === 'number'), `the page has a control for ${entry.name}`);
      if (NOT_SET[demo]?.includes(entry.name)) continue;
      const beyond = entry.integer ? 1 : (entry.max - entry.min) * 1e-6;
      for (const value of [entry.min, entry.max]) {
        const reply = await ask({ action: 'set', parameter: entry.name, value });
        assert.equal(reply.ok, true, `${entry.name}=${value}: ${reply.error}`);
        assert.equal(Number(reply.result[entry.name]), value, `${entry.name}=${value} is in force`);
      }
      for (const value of [entry.min - beyond, entry.max + beyond]) {
        const reply = await ask({ action: 'set', parameter: entry.name, value });
        assert.equal(reply.ok, false, `${entry.name}=${value} is refused`);
      }
      const settled = baseline[entry.name] ?? entry.default;
      const back = await ask({ action: 'set', parameter: entry.name, value: settled });
      assert.equal(back.ok, true, `${entry.name} back to ${settled}: ${back.error}`);
    }
    assert.deepEqual(problems, []);
    await context.close();
  });
}
