// The CPU solver in a dedicated Web Worker (not on the page's thread: the thread pool's Atomics.wait
// must never block the main thread). Loads one build of crates/phyxel-worker (js/worker-builds.js
// chooses), starts its thread pool, and answers requests { id, type, … } with { id, … } or
// { id, error }.
let solver = null;

async function init({ build, threads }) {
  if (build !== 'threaded' && build !== 'single') throw new Error(`unknown build “${build}”`);
  solver = await import(`../worker/${build}/phyxel-worker.js`);
  await solver.default();
  if (build === 'threaded') await solver.initThreadPool(threads);
  return { threads: solver.thread_count(), threaded: solver.threaded() };
}

/** The benchmark cube: `warmup` untimed steps, then `steps` timed ones. */
function bench({ n, steps, warmup = 3 }) {
  const cube = new solver.BenchCube(n);
  try {
    cube.step(warmup);
    solver.reset_work_counters();
    const start = performance.now();
    cube.step(steps);
    const ms = performance.now() - start;
    const positions = new Float64Array(cube.positions());
    return {
      reply: {
        phyxels: cube.phyxels(),
        neighbourInteractions: cube.neighbour_interactions(),
        ms,
        workPerThread: Array.from(solver.work_per_thread()),
        positions,
      },
      transfer: [positions.buffer],
    };
  } finally {
    cube.free();
  }
}

self.addEventListener('message', async ({ data }) => {
  try {
    if (data.type === 'init') {
      self.postMessage({ id: data.id, ...(await init(data)) });
    } else if (data.type === 'bench') {
      if (!solver) throw new Error('the worker was not initialized');
      const { reply, transfer } = bench(data);
      self.postMessage({ id: data.id, ...reply }, transfer);
    } else {
      throw new Error(`unknown request “${data.type}”`);
    }
  } catch (error) {
    self.postMessage({ id: data.id, error: error?.message ?? String(error) });
  }
});
