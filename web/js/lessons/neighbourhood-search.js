// The neighbourhood-search lesson: spatial hashing drawn live, timed against brute force.
// Hash grid: crates/phyxel/src/meshless/neighbours.rs; lesson: crates/phyxel/src/lessons/neighbourhood_search.rs.
import init, { NeighbourhoodLesson } from '../../phyxel-web.js';
import { LessonPage, canvasPoint, fitCanvas } from '../page.js';

await init();

/** Brute force is O(n²): above this many particles it is not run every frame. */
const BRUTE_FORCE_LIMIT = 4000;

const page = new LessonPage({ computesOn: 'the CPU (WebAssembly)' });
const canvas = document.getElementById('scene');
const ctx = canvas.getContext('2d');
const params = { count: 1000, radius: 0.1, dt: 0.01 };
let lesson = new NeighbourhoodLesson(params.count, params.radius);
let query = 0;
let time = 0;

const c = page.controls;
const countControl = c.number({
  id: 'param-count', label: 'Particles', min: 2, max: 20000, value: params.count,
  onChange: (value) => {
    params.count = Math.round(value);
    rebuild();
  },
});
c.number({
  id: 'param-radius', label: 'Search radius h', unit: 'm', min: 0.01, max: 0.5, value: params.radius,
  onChange: (value) => {
    params.radius = value;
    lesson.set_radius(value);
    search();
  },
});

const queryReadout = page.readout('query-neighbours', 'Neighbours of the red particle');
const meanReadout = page.readout('mean-neighbours', 'Mean neighbours');
const hashReadout = page.readout('hash-time', 'Hash grid: build + all queries');
const bruteReadout = page.readout('brute-time', 'Brute force: all pairs');
const agreeReadout = page.readout('agree', 'Same neighbour sets');

function rebuild() {
  try {
    const fresh = new NeighbourhoodLesson(params.count, params.radius);
    lesson.free();
    lesson = fresh;
    query = 0;
    search();
  } catch (error) {
    countControl.reject(error.message);
  }
}

function search() {
  let start = performance.now();
  const pairs = lesson.hash_search();
  const hashMs = performance.now() - start;
  hashReadout(`${hashMs.toFixed(2)} ms`);
  meanReadout((pairs / lesson.count()).toFixed(1));
  queryReadout(String(lesson.neighbours(query).length));
  if (lesson.count() <= BRUTE_FORCE_LIMIT) {
    start = performance.now();
    const [brutePairs, agree] = lesson.brute_force_search();
    const bruteMs = performance.now() - start;
    bruteReadout(`${bruteMs.toFixed(2)} ms (${(bruteMs / Math.max(hashMs, 1e-3)).toFixed(1)}× the hash)`);
    agreeReadout(agree && brutePairs === pairs ? 'yes' : 'NO');
  } else {
    bruteReadout(`skipped above ${BRUTE_FORCE_LIMIT} particles (O(n²))`);
    agreeReadout('—');
  }
}

canvas.addEventListener('pointerdown', (event) => {
  query = lesson.nearest(...canvasPoint(canvas, event), canvas.width, canvas.height);
  queryReadout(String(lesson.neighbours(query).length));
  event.preventDefault();
});

page.start({
  dt: () => params.dt,
  speed: () => 1,
  time: () => time,
  step: (n) => {
    lesson.advance(n * params.dt);
    time += n * params.dt;
  },
  afterStep: () => search(),
  restart: () => {
    time = 0;
    rebuild();
  },
  render: () => {
    fitCanvas(canvas);
    lesson.draw(ctx, canvas.width, canvas.height, query);
  },
});
search();
page.ready();
