// "Explicit vs implicit": one clamped beam twice, symplectic Euler beside corotated implicit Euler
// with conjugate gradients. Solver: crates/phyxel/src/lessons/explicit_implicit.rs and
// crates/phyxel/src/meshless/{corotated,implicit}.rs; glue: crates/phyxel-web/src/lessons/explicit_implicit.rs.
// The solvers run in the lesson worker (js/workers/remote-lesson.js): every call on `lesson` is a promise.
import { LessonPage, fitCanvas } from '../site/page.js';
import { LessonWorker } from '../workers/remote-lesson.js';
import { defaults, fromTable } from '../site/controls.js';

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly, in a worker)' });
const solvers = await LessonWorker.start();
const canvas = document.getElementById('scene');
/** Each frame simulates 1/60 s on both sides (the implicit side's default step). */
const FRAME_TIME = 1 / 60;
/**
 * The most explicit substeps one Step or `step` request may ask of the worker (a few seconds of its
 * work): checked before any work, since n frames are n × FRAME_TIME / Δt substeps (1000 frames at
 * Δt = 1 µs would be 1.7·10⁷). A real-time frame (n ≤ 3) stays well within it at the smallest Δt.
 */
const MAX_SUBSTEPS_PER_REQUEST = 1e5;
/** The solver's parameter table (crates/phyxel/src/lessons/explicit_implicit.rs): ranges and defaults. */
const table = await solvers.static('ExplicitImplicitLesson', 'parameters');
const params = defaults(table);

function build() {
  return solvers.create(
    'ExplicitImplicitLesson',
    params.young, params.poisson, params.density, params.across, params.explicitDt, params.implicitDt,
    params.damping, params.tolerance, params.maxIterations,
  );
}

let lesson = await build();
let simulatedTime = 0;
const cost = { explicit: [], implicit: [] };

/** Both beams afresh with the parameters in force; rejects (keeping the running beams) if the solver refuses them. */
async function rebuild() {
  const fresh = await build();
  lesson.free();
  lesson = fresh;
  simulatedTime = 0;
  cost.explicit.length = 0;
  cost.implicit.length = 0;
  page.notice('explicit', null);
  page.notice('implicit', null);
}

const c = page.controls;
const number = (panel, key, label, unit, help) =>
  panel.number({
    ...fromTable(table, key), label, unit, help,
    // A value the solver refuses rejects: the control and the running beams keep the old one.
    onChange: (value) => {
      const previous = params[key];
      params[key] = value;
      const rebuilt = rebuild().then(
        () => page.resetTiming(),
        (error) => {
          // Unless a later value has taken its place meanwhile.
          if (params[key] === value) params[key] = previous;
          throw error;
        },
      );
      return page.track(rebuilt);
    },
  });
const material = c.group('Material');
number(material, 'young', 'Young’s modulus E', 'Pa', 'Raise it past what the explicit step holds');
number(material, 'poisson', 'Poisson’s ratio ν', '');
number(material, 'density', 'Density ρ', 'kg/m³');
number(material, 'across', 'Phyxels across', '', 'Resolution of the 0.1 m thickness (both faces included)');
const steps = c.group('Time steps');
number(steps, 'explicitDt', 'Explicit Δt', 's');
number(steps, 'implicitDt', 'Implicit Δt', 's');
number(steps, 'damping', 'Damping c', '1/s');
const solver = c.group('Conjugate gradients');
number(solver, 'tolerance', 'Tolerance ‖r‖/‖b‖', '');
number(solver, 'maxIterations', 'Max iterations', '');

const readout = {
  phyxels: page.readout('phyxels', 'Phyxels (each beam)'),
  cfl: page.readout('cfl', 'Estimate h√(ρ/E)'),
  bound: page.readout('bound', 'Measured bound 2/ω_max'),
  ratio: page.readout('explicit-ratio', 'Explicit Δt / measured bound'),
  explicitSteps: page.readout('explicit-steps', 'Explicit steps per frame'),
  explicitCost: page.readout('explicit-cost', 'Explicit ms per frame'),
  implicitSteps: page.readout('implicit-steps', 'Implicit steps per frame'),
  cg: page.readout('cg-iterations', 'CG iterations (last step)'),
  residual: page.readout('cg-residual', 'CG residual ‖r‖/‖b‖'),
  implicitCost: page.readout('implicit-cost', 'Implicit ms per frame'),
  tipExplicit: page.readout('tip-explicit', 'Tip deflection, explicit'),
  tipImplicit: page.readout('tip-implicit', 'Tip deflection, implicit'),
  tipTheory: page.readout('tip-theory', 'Timoshenko (static, linear)'),
  tipFem: page.readout('tip-fem', '3-D FEM (static, linear)'),
  implicitError: page.readout('implicit-error', 'Implicit vs 3-D FEM'),
};

/** Mean of the last 30 frames' costs (ms). */
function meanCost(samples) {
  return samples.length ? `${(samples.reduce((a, b) => a + b, 0) / samples.length).toPrecision(3)} ms` : '—';
}

/** Keep the last 30 frames' costs (ms, measured in the worker). */
function record(samples, ms) {
  samples.push(ms);
  if (samples.length > 30) samples.shift();
}

const mm = (metres) => (Number.isFinite(metres) ? `${(1000 * metres).toPrecision(3)} mm` : '—');

page.start({
  dt: () => FRAME_TIME,
  speed: () => 1,
  time: () => simulatedTime,
  step: async (n) => {
    const substeps = Math.ceil((n * FRAME_TIME) / params.explicitDt);
    if (substeps > MAX_SUBSTEPS_PER_REQUEST) {
      throw new Error(`${n} frames of 1/60 s at explicit Δt = ${params.explicitDt} s would be ${substeps.toExponential(1)} explicit substeps: at most ${MAX_SUBSTEPS_PER_REQUEST.toExponential(0)} are allowed in one request; ask for fewer steps or a larger explicit Δt`);
    }
    const frames = [];
    for (let k = 0; k < n; k++) frames.push(lesson.timed('advance_explicit', FRAME_TIME), lesson.timed('advance_implicit', FRAME_TIME));
    const [timings, failure, implicitFailure, time] = await Promise.all([
      Promise.all(frames),
      lesson.explicit_failure(),
      lesson.implicit_failure(),
      lesson.implicit_time(),
    ]);
    timings.forEach(({ ms }, i) => record(i % 2 ? cost.implicit : cost.explicit, ms));
    simulatedTime = time;
    // A beam that blew up stops (its last good state stays drawn) and says why; the other goes on.
    page.notice('explicit', failure ? `Explicit beam stopped: ${failure}.` : null, 'error');
    page.notice('implicit', implicitFailure ? `Implicit beam stopped: ${implicitFailure}.` : null, 'error');
    return timings.reduce((sum, { ms }) => sum + ms, 0);
  },
  restart: () => rebuild(),
  render: async () => {
    fitCanvas(canvas);
    const [, estimate, bound, phyxels, failure, explicitSteps, implicitSteps, solve, tips] = await Promise.all([
      lesson.draw(canvas),
      lesson.cfl_time_step(),
      lesson.explicit_bound(),
      lesson.phyxels(),
      lesson.explicit_failure(),
      lesson.explicit_steps(),
      lesson.implicit_steps(),
      lesson.last_solve(),
      lesson.tip_deflections(),
    ]);
    readout.phyxels(String(phyxels));
    readout.cfl(`${(1000 * estimate).toPrecision(3)} ms`);
    readout.bound(`${(1000 * bound).toPrecision(3)} ms`);
    readout.ratio((params.explicitDt / bound).toPrecision(3));
    readout.explicitSteps(failure ? 'stopped' : String(explicitSteps));
    readout.explicitCost(meanCost(cost.explicit));
    readout.implicitSteps(String(implicitSteps));
    readout.cg(solve.length ? `${solve[0]}${solve[2] ? '' : ' (limit)'}` : '—');
    readout.residual(solve.length ? solve[1].toExponential(1) : '—');
    readout.implicitCost(meanCost(cost.implicit));
    const [tipExplicit, tipImplicit, tipTheory, tipFem] = tips;
    readout.tipExplicit(mm(tipExplicit));
    readout.tipImplicit(mm(tipImplicit));
    readout.tipTheory(mm(tipTheory));
    // The 3-D reference exists for the page's shape at ν = 0.3 only.
    readout.tipFem(Number.isFinite(tipFem) ? mm(tipFem) : '— (known for ν = 0.3)');
    readout.implicitError(Number.isFinite(tipFem) && Number.isFinite(tipImplicit) ? `${(100 * (tipImplicit / tipFem - 1)).toFixed(1)} %` : '—');
  },
});
page.ready();
