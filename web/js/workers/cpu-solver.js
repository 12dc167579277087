// The 3D demo's CPU solver in a dedicated Web Worker (js/workers/solver-worker.js runs crates/phyxel-worker,
// threaded or single-threaded as js/workers/worker-builds.js chooses). The page keeps its own copy of the
// simulation (a PhyxelDemo of the same scene) for drawing, picking and readouts; the worker steps on
// its own while running and sends its state whenever the page has taken the last one.
import { startSolverWorker } from './worker-builds.js';

export class WorkerSolver {
  #worker;
  #onState;
  #onFailure;
  /** Scenes built: states of an older one are stale. */
  #generation = 0;

  /**
   * A worker running `build` ('threaded' with a pool of `threads`, or 'single'); resolves once ready.
   * `onState(state, solver)` receives each state it sends while running: { state (for PhyxelDemo.restore),
   * steps and ms (done since the last one), workPerThread, error (a blow-up stopped it) }; call
   * `taken()` once it is in the page's copy. `onFailure(message, solver)` hears of a crash outside any
   * request (a trap while running).
   */
  static async start(build, threads, onState, onFailure = () => {}) {
    const solver = new WorkerSolver(build, onState, onFailure);
    solver.#worker = await startSolverWorker(build, threads, (message) => solver.#event(message));
    solver.threads = solver.#worker.threads;
    solver.threaded = solver.#worker.threaded;
    return solver;
  }

  constructor(build, onState, onFailure) {
    this.build = build;
    this.#onState = onState;
    this.#onFailure = onFailure;
    /** The last { running, dt, fixed } sent. */
    this.lastRun = null;
  }

  /** When the worker was last heard from: a state, a reply, a failure (performance.now()). */
  get lastHeard() {
    return this.#worker.lastHeard;
  }

  #event(message) {
    if (message.event === 'state' && message.generation === this.#generation) this.#onState(message, this);
    if (message.event === 'failed') this.#onFailure(message.message, this);
  }

  /** Build the worker's copy: the PhyxelDemo constructor's `args`, then `calls` [method, ...args]. */
  create(args, calls) {
    this.#generation++;
    return this.#worker.request({ type: 'create', args, calls });
  }

  /** Mirror a setter the page's copy accepted. */
  call(method, args) {
    return this.#worker.request({ type: 'call', method, args });
  }

  /** The pointer's cut or strike on the worker's solver: resolves to what it did, rejects with why not. */
  async tool(method, args) {
    return (await this.#worker.request({ type: 'tool', method, args })).result;
  }

  /** Run in real time (`fixed` 0) or `fixed` steps per page frame, with steps of `dt`; or pause. */
  run({ running, dt, fixed }) {
    this.lastRun = { running, dt, fixed };
    this.#worker.post({ type: 'run', running, dt, fixed });
  }

  /** The page has taken the last state: the worker may send the next. */
  taken() {
    this.#worker.post({ type: 'ack' });
  }

  /** `n` steps of `dt` now (paused); resolves to a state as onState receives them, or null if stale. */
  async step(dt, n) {
    const generation = this.#generation;
    const reply = await this.#worker.request({ type: 'step', dt, n });
    return generation === this.#generation ? reply : null;
  }

  /** The current state (after a pause), or null if stale. */
  async state() {
    const generation = this.#generation;
    const reply = await this.#worker.request({ type: 'state' });
    return generation === this.#generation ? reply : null;
  }

  /** Continue from `state` (PhyxelDemo.snapshot of the page's copy). */
  restore(state) {
    const copy = new Float64Array(state);
    return this.#worker.request({ type: 'restore', state: copy }, [copy.buffer]);
  }

  terminate() {
    this.#worker.terminate();
  }
}
