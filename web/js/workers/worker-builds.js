// Which build of the CPU solver's worker module (crates/phyxel-worker, built by web/build-worker.sh)
// this page can run, and the worker that runs it (js/workers/solver-worker.js).
//
// The threaded build shares its memory with a pool of Web Workers: that needs SharedArrayBuffer, which
// browsers grant only to cross-origin isolated pages (served with COOP/COEP; an iframe also needs
// allow="cross-origin-isolated" from its parent), and WebAssembly threads. Everywhere else the
// single-threaded build runs the same code.

import { withTimeout } from './backend.js';

/** How long a solver worker may take to load its module and start its pool (ms) before it is given up. */
const START_TIMEOUT_MS = 30_000;

// A module with a shared memory and one atomic instruction: valid only where WebAssembly threads are
// (the check of GoogleChromeLabs' wasm-feature-detect, `threads`).
const THREADS_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 5, 4, 1, 3, 1, 1, 10, 11, 1, 9, 0, 65, 0, 254, 16, 2, 0, 26, 11,
]);

/** { build: 'threaded' | 'single', reason } — the reason says why the other build was not chosen. */
export function workerBuild() {
  if (!globalThis.crossOriginIsolated) {
    return { build: 'single', reason: 'the page is not cross-origin isolated (no COOP/COEP headers, or embedded without allow="cross-origin-isolated")' };
  }
  if (typeof SharedArrayBuffer !== 'function' || !WebAssembly.validate(THREADS_PROBE)) {
    return { build: 'single', reason: 'this browser has no WebAssembly threads' };
  }
  return { build: 'threaded', reason: 'cross-origin isolated, with WebAssembly threads' };
}

/** Threads the threaded build may use here: the browser's logical processors. */
export function availableThreads() {
  return Math.max(1, navigator.hardwareConcurrency || 1);
}

/**
 * Start a solver worker with `build` and (threaded) a pool of `threads`, its unrequested messages
 * ({ event, … }) going to `onEvent`; resolves to
 * { request(message) → Promise of the reply, post(message) (no reply), terminate(), lastHeard (when
 * it last sent anything, performance.now()), threads, threaded } once it is ready.
 */
export async function startSolverWorker(build, threads = 1, onEvent = () => {}) {
  const worker = new Worker(new URL('./solver-worker.js', import.meta.url), { type: 'module', name: `phyxel solver (${build})` });
  let next = 0;
  const pending = new Map();
  /** When the worker was last heard from (performance.now()): any message, reply or event. */
  let lastHeard = performance.now();
  worker.addEventListener('message', ({ data }) => {
    lastHeard = performance.now();
    if (data.event) {
      onEvent(data);
      return;
    }
    const reply = pending.get(data.id);
    if (!reply) return;
    pending.delete(data.id);
    if (data.error) reply.reject(new Error(data.error));
    else reply.resolve(data);
  });
  worker.addEventListener('error', (event) => {
    lastHeard = performance.now();
    const message = `the solver worker failed: ${event.message}`;
    for (const reply of pending.values()) reply.reject(new Error(message));
    pending.clear();
    onEvent({ event: 'failed', message });
  });
  const request = (message, transfer = []) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id }, transfer);
    });
  const ready = await withTimeout(request({ type: 'init', build, threads }), START_TIMEOUT_MS, null);
  if (!ready) {
    worker.terminate();
    throw new Error(`the ${build} solver worker did not start within ${START_TIMEOUT_MS / 1000} s`);
  }
  const post = (message) => worker.postMessage(message);
  return {
    request,
    post,
    terminate: () => worker.terminate(),
    get lastHeard() {
      return lastHeard;
    },
    threads: ready.threads,
    threaded: ready.threaded,
  };
}
