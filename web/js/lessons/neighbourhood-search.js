// The neighbourhood-search lesson: spatial hashing drawn live, timed against brute force.
// Hash grid: crates/phyxel/src/meshless/neighbours.rs; lesson: crates/phyxel/src/lessons/neighbourhood_search.rs.
// The solver runs in the lesson worker (js/workers/remote-lesson.js): every call on `lesson` is a promise.
import { LessonPage, canvasPoint, fitCanvas } from '../site/page.js';
import { LessonWorker } from '../workers/remote-lesson.js';
import { defaults, fromTable } from '../site/controls.js';

/** Brute force is O(n²): above this many particles it is not run every frame. */
const BRUTE_FORCE_LIMIT = 4000;

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly, in a worker)' });
const solvers = await LessonWorker.start();
const canvas = document.getElementById('scene');
/** The solver's parameter table (crates/phyxel/src/lessons/neighbourhood_search.rs). */
const table = await solvers.static('NeighbourhoodLesson', 'parameters');
const params = { ...defaults(table), dt: 0.01 };
let lesson = await solvers.create('NeighbourhoodLesson', params.count, params.radius);
let query = 0;
let time = 0;

const c = page.controls;
/** Count and radius changes, one after another: each meets the lesson the one before left. */
let changes = Promise.resolve();
const serial = (work) => {
  const next = changes.then(work);
  changes = next.catch(() => {});
  return next;
};

c.number({
  ...fromTable(table, 'count'), label: 'Particles',
  // A count the solver refuses (its range, or the work budget with this radius) rejects, and the
  // control keeps the last one.
  onChange: (value) => page.track(serial(() => rebuild(value))),
});
c.number({
  ...fromTable(table, 'radius'), label: 'Search radius h', unit: 'm',
  // The solver checks the work budget (pairs from count and radius) first: a refusal rejects, and the
  // control keeps the last radius.
  onChange: (value) => page.track(serial(async () => {
    await lesson.set_radius(value);
    params.radius = value;
    return page.run(search);
  })),
});

const queryReadout = page.readout('query-neighbours', 'Neighbours of the red particle');
const meanReadout = page.readout('mean-neighbours', 'Mean neighbours');
const hashReadout = page.readout('hash-time', 'Hash grid: build + all queries');
const bruteReadout = page.readout('brute-time', 'Brute force: all pairs');
const agreeReadout = page.readout('agree', 'Same neighbour sets');

/**
 * A fresh set of `count` particles, swapped in once the worker has made it and searched it; a count
 * the solver refuses rejects and the old set stays.
 */
async function rebuild(count = params.count) {
  const fresh = await solvers.create('NeighbourhoodLesson', count, params.radius);
  // The radius may have changed while the worker made it (a shared link sets count, then radius).
  try {
    await fresh.set_radius(params.radius);
  } catch (error) {
    fresh.free();
    throw error;
  }
  lesson.free();
  lesson = fresh;
  params.count = count;
  query = 0;
  await search();
}

/** Both searches on the current positions, timed in the worker; the readouts compare them. */
async function search() {
  // One lesson throughout, even if a rebuild swaps in another meanwhile.
  const searched = lesson;
  const [hash, count, neighbours] = await Promise.all([
    searched.timed('hash_search'),
    searched.count(),
    searched.neighbours(query),
  ]);
  const pairs = hash.result;
  hashReadout(`${hash.ms.toFixed(2)} ms`);
  meanReadout((pairs / count).toFixed(1));
  queryReadout(String(neighbours.length));
  if (count <= BRUTE_FORCE_LIMIT) {
    const brute = await searched.timed('brute_force_search');
    const [brutePairs, agree] = brute.result;
    bruteReadout(`${brute.ms.toFixed(2)} ms (${(brute.ms / Math.max(hash.ms, 1e-3)).toFixed(1)}× the hash)`);
    agreeReadout(agree && brutePairs === pairs ? 'yes' : 'NO');
  } else {
    bruteReadout(`skipped above ${BRUTE_FORCE_LIMIT} particles (O(n²))`);
    agreeReadout('—');
  }
}

canvas.addEventListener('pointerdown', (event) => {
  event.preventDefault();
  const pick = async () => {
    query = await lesson.nearest(...canvasPoint(canvas, event), canvas.width, canvas.height);
    queryReadout(String((await lesson.neighbours(query)).length));
  };
  page.run(pick);
});

page.start({
  dt: () => params.dt,
  speed: () => 1,
  time: () => time,
  step: async (n) => {
    const { ms } = await lesson.timed('advance', n * params.dt);
    time += n * params.dt;
    return ms;
  },
  afterStep: () => search(),
  restart: async () => {
    await rebuild();
    time = 0;
  },
  render: () => {
    fitCanvas(canvas);
    return lesson.draw(canvas, query);
  },
});
await search();
page.ready();
