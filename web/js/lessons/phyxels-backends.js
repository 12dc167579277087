// The 3D demo's solver behind one interface, whichever of its three backends steps it:
//
//   GPU     WebGPU compute on the page (PhyxelDemo.use_gpu): its state is read back into the page's
//           copy every frame while the view draws from that copy, a few times a second (readouts,
//           picking) while the view draws the solver's own buffers; in a fracture scene after every
//           batch of steps, whose cracks the page's copy cuts before the next (stepFracture);
//   worker  the CPU solver in a Web Worker (js/workers/cpu-solver.js; threaded where the page is
//           cross-origin isolated): it steps on its own against real time and each state it sends
//           brings the page's copy up to date;
//   page    the page's copy stepped on the page's thread: until the worker is ready, or where it
//           cannot run.
//
//   const solver = new PhyxelSolver({ page, scene, settings, timing, view, onChange, onSteps });
//   solver.demo                  the page's copy (a PhyxelDemo): drawing, picking, readouts
//   solver.step(dt, n)           n steps now: true, false after a blow-up, or a promise: the worker's of
//                                'queued', the page's (in slices of PAGE_SLICE_MS) of the ms stepped or false
//   solver.call(method, ...args) a setter: checked on the page's copy (throws if refused), mirrored
//   solver.tool(method, ...args) the pointer's cut or strike, on the solver that steps (a promise)
//   solver.build() / replace(fresh)   a new scene (build throws, keeping the old one, if refused)
//   solver.switchTo('gpu' | 'cpu')    the state carries over; a refusal says why and stays on the CPU
//   solver.setThreads(n)         a new pool for the threaded worker, continuing the motion (changes run
//                                one after another, the latest wins: a promise, settled once in force)
//   solver.frame()               once per page frame: notices, the GPU's read-back, the worker's pace
//                                and its silence (a worker silent for WORKER_SILENCE_MS while it should step is given up)
//   solver.where()               where it runs, in words
//   solver.dispose()
import { GpuDevice, PhyxelDemo } from '../../phyxel-view.js';
import { workerBuild } from '../workers/worker-builds.js';
import { WorkerSolver } from '../workers/cpu-solver.js';

/** Readouts refresh this often (ms): the GPU's state is read back at least this often for them. */
export const READOUT_INTERVAL_MS = 250;
/**
 * Longest run of steps on the page's thread (ms) before its other work (drawing, input, messages)
 * gets a turn: a Step or `step` request of up to 1000 steps before the worker has taken over is
 * taken in slices this long, never as one task of seconds.
 */
export const PAGE_SLICE_MS = 14;
/**
 * Longest the worker may say nothing (no state, no reply) while it should be stepping — the page
 * running and shown — before the page gives it up and steps its own copy, with a notice (ms). A hung
 * worker would otherwise stop the simulation without a word: a thread of its pool that traps leaves
 * the others waiting for it for ever, and a browser may stop a worker without an error event. Far
 * beyond one step of any scene the demo builds (under a second on the 2-core VM).
 */
export const WORKER_SILENCE_MS = 30_000;
/** A gap between two page frames longer than this (a hidden tab, a long task) restarts the silence's count (ms). */
const FRAME_GAP_MS = 1000;

export class PhyxelSolver {
  /**
   * @param {object} options
   * @param {import('../site/page.js').LessonPage} options.page  for notices, pausing and step timings
   * @param {() => any[]} options.scene  the PhyxelDemo constructor's arguments
   * @param {() => any[][]} options.settings  the setter calls [method, ...args] that set a scene up
   * @param {() => {dt: number, fixed: number}} options.timing  the step size, and steps per frame (0: real time)
   * @param {() => any} options.view  the 3D view (PhyxelView) or null
   * @param {(solver: PhyxelSolver) => void} options.onChange  the backend or its threads changed
   * @param {(steps: number, ms: number) => void} options.onSteps  the worker took steps
   */
  constructor({ page, scene, settings, timing, view, onChange, onSteps }) {
    Object.assign(this, { page, scene, settings, timing, view, onChange, onSteps });
    /** The threaded build where this page may run it, else the single-threaded one, and why. */
    this.workerBuild = workerBuild();
    /** 'cpu' or 'gpu': where the solver runs, as last shown. */
    this.backend = 'cpu';
    /** The WebGPU device of the GPU backend, once chosen. */
    this.gpuDevice = null;
    /** The CPU solver's worker once it runs (null before, or where it cannot: the page then steps). */
    this.cpu = null;
    /** Whether the worker steps the simulation (the CPU backend, with a worker); else the page does. */
    this.workerSteps = false;
    /** Bumped by each new scene: a worker started meanwhile builds the scene again. */
    this.sceneVersion = 0;
    /** Set while the page leaves the GPU: no steps are queued there meanwhile. */
    this.leavingGpu = false;
    /** When the GPU's state was last asked for, and how often (for the tests and the console). */
    this.lastReadBack = -Infinity;
    this.readBacks = 0;
    /** A fracture scene's steps owed on the GPU ({ dt, n }; stepFracture). */
    this.owed = null;
    /** Per-thread work of the worker's steps since workPerThread() was last asked. */
    this.work = [];
    /** Worker starts and pool changes, one after another: each begins once the one before has settled. */
    this.poolChanges = Promise.resolve();
    /** The threads last asked for: a change superseded before it could start its pool is skipped. */
    this.wantedThreads = null;
    /** The worker's silence that gives it up (ms; the tests shorten it), and since when the page has watched it without a break. */
    this.workerSilenceMs = WORKER_SILENCE_MS;
    this.watchedSince = 0;
    this.lastWatched = -Infinity;
    this.demo = this.build();
  }

  /** Whether the steps are taken elsewhere than by step() on the page (the worker, or none while leaving the GPU). */
  get stepsElsewhere() {
    return this.workerSteps || this.leavingGpu;
  }

  /** Threads stepping the CPU solver (1 on the page's thread). */
  get threads() {
    return this.workerSteps ? this.cpu.threads : 1;
  }

  /**
   * A fresh scene from scene() and settings(), on the GPU if the solver is there and is not being left
   * (a scene asked for while a switch to the CPU reads the GPU's last state back is the CPU's: the
   * switch then sees its scene replaced and ends, and the user's choice stands). Throws if refused.
   */
  build() {
    const fresh = new PhyxelDemo(...this.scene());
    try {
      for (const [method, ...args] of this.settings()) fresh[method](...args);
    } catch (error) {
      fresh.free();
      throw error;
    }
    if (this.backend === 'gpu' && !this.leavingGpu && this.gpuDevice) {
      try {
        fresh.use_gpu(this.gpuDevice);
      } catch (error) {
        this.gpuUnavailable(error.message);
      }
    }
    return fresh;
  }

  /** Continue with `fresh` (from build()); the worker builds the same scene. */
  replace(fresh) {
    this.demo.free();
    this.demo = fresh;
    this.sceneVersion++;
    this.cpu?.create(this.scene(), this.settings()).catch(this.workerFailed);
  }

  /** A setter of the solver: checked on the page's copy (a refusal throws), then mirrored to the worker's. */
  call(method, ...args) {
    const result = this.demo[method](...args);
    this.cpu?.call(method, args).catch(this.workerFailed);
    return result;
  }

  /**
   * The pointer's cut or strike (PhyxelDemo.cut / strike): on the solver that steps — the worker's,
   * which holds the cracks, else the page's copy. A promise of what it did; rejected with the reason.
   */
  async tool(method, ...args) {
    if (this.workerSteps) return this.cpu.tool(method, args);
    return Array.from(this.demo[method](...args));
  }

  /**
   * `n` steps of `dt`: by the worker (a promise of 'queued', settled once the worker has taken them
   * and its state has arrived through onSteps — so that a Step or a `step` message is work in flight
   * that the page waits for, never a request piled up in the worker), else on the GPU or the page
   * (false: a blow-up, the last good state kept; demo.error() says why). On the page's CPU more than
   * one step is a promise, taken in slices of PAGE_SLICE_MS (see stepInSlices).
   */
  step(dt, n) {
    if (this.workerSteps) {
      return this.cpu.step(dt, n).then(this.takeWorkerState, this.workerFailed).then(() => 'queued');
    }
    if (n > 1 && this.demo.backend() === 'cpu') return this.stepInSlices(dt, n);
    if (this.demo.backend() === 'gpu' && this.demo.is_fracture_scene()) return this.stepFracture(dt, n);
    return this.demo.step(dt, n);
  }

  /**
   * `n` steps of `dt` of a fracture scene on the GPU (a frame's worth; they replace those still owed):
   * the demo takes a batch when the last one's cracks are cut (one step where anything may crack, more
   * where nothing can), and each read-back that brings a batch back takes the next of those owed at
   * once (readBack) — the device's pace, not the frames'. False after a blow-up.
   */
  stepFracture(dt, n) {
    this.owed = { dt, n };
    return this.takeOwed();
  }

  /** The next batch of the fracture scene's owed steps, if the demo takes one now. */
  takeOwed() {
    const owed = this.owed;
    if (!owed || owed.n <= 0) return true;
    const before = this.demo.steps();
    if (!this.demo.step(owed.dt, owed.n)) return false;
    owed.n -= this.demo.steps() - before;
    return true;
  }

  /**
   * `n` steps of `dt` on the page's thread, at most PAGE_SLICE_MS of them at a time with a turn of the
   * page's other work between: resolves to the ms spent stepping, or false after a blow-up. If the
   * worker or the GPU takes over meanwhile, it takes the steps still owed; a new scene ends them.
   */
  async stepInSlices(dt, n) {
    const owner = this.demo;
    let ms = 0;
    for (let done = 0; done < n; ) {
      const start = performance.now();
      while (done < n && performance.now() - start < PAGE_SLICE_MS) {
        if (!owner.step(dt, 1)) return false;
        done += 1;
      }
      ms += performance.now() - start;
      if (done === n) break;
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (owner !== this.demo) break;
      if (this.stepsElsewhere || owner.backend() !== 'cpu') return this.step(dt, n - done);
    }
    return ms;
  }

  /** Once per page frame: the solver's notices, the GPU's state, the worker's pace. */
  frame() {
    const notice = this.demo.take_notice();
    if (notice) {
      this.page.notice('backend', `${notice}.`, 'warning');
      this.show();
    }
    this.readBack();
    this.syncWorkerRun();
    this.watchWorker();
  }

  /**
   * Give the worker up once it has said nothing for workerSilenceMs while it should have been
   * stepping (workerFailed: the page's copy, which holds the last state it sent, steps on and a notice
   * says why). The silence counts only while the page runs, is shown and draws its frames.
   */
  watchWorker() {
    const now = performance.now();
    const gap = now - this.lastWatched;
    this.lastWatched = now;
    if (!this.cpu || !this.workerSteps || !this.page.running || !this.page.visible || gap > FRAME_GAP_MS) {
      this.watchedSince = now;
      return;
    }
    const silent = now - Math.max(this.cpu.lastHeard, this.watchedSince);
    if (silent > this.workerSilenceMs) {
      this.workerFailed(new Error(`it sent nothing for ${(silent / 1000).toFixed(0)} s while it should have been stepping`));
    }
  }

  /** The phyxels each CPU thread computed since the last call (empty while the page steps). */
  workPerThread() {
    const work = this.work;
    this.work = [];
    return work;
  }

  /** Where the solver runs, in words. */
  where() {
    if (this.backend === 'gpu') {
      return `GPU: ${this.gpuDevice?.adapter() || 'WebGPU'}${this.gpuDevice?.shared_with_view() ? ', the view’s device' : ''}`;
    }
    if (!this.workerSteps) return 'CPU: the page’s thread (one thread)';
    return this.cpu.threaded
      ? `CPU: Web Worker, threaded build, ${this.cpu.threads} thread${this.cpu.threads === 1 ? '' : 's'}`
      : `CPU: Web Worker, single-threaded build (${this.workerBuild.reason})`;
  }

  /** Follow where the solver really runs (the CPU's worker once ready) and tell onChange. */
  show() {
    const backend = this.demo.backend();
    if (backend === 'cpu') this.useWorker();
    this.backend = backend;
    this.onChange(this);
  }

  /** The view that lent its device went down: a later switch to the GPU opens a device of its own. */
  viewLost() {
    if (this.gpuDevice?.shared_with_view()) this.gpuDevice = null;
  }

  dispose() {
    this.cpu?.terminate();
    this.cpu = null;
    this.workerSteps = false;
    this.demo.free();
  }

  // ---- The CPU worker ------------------------------------------------------------------------------

  /** Start the CPU solver's worker (the build this page can run; `threads` if threaded); until it is ready the page steps. */
  startWorker(threads) {
    const build = this.workerBuild.build;
    this.wantedThreads = build === 'threaded' ? threads : 1;
    return this.afterPoolChanges(async () => {
      try {
        // A thread count from the page's URL may have started it already.
        if (!this.cpu) await this.adoptWorker(await this.startWorkerSolver(build, this.wantedThreads));
      } catch (error) {
        this.workerFailed(error);
      } finally {
        document.body.dataset.cpuWorker = this.cpu ? this.cpu.build : 'none';
        this.show();
      }
    });
  }

  /**
   * Restart the worker with `n` threads; the simulation carries on where it was. Changes run one after
   * another and the latest wins: one asked for while another is starting waits for it, and one
   * superseded before its turn starts no pool. Returns a promise, settled once the last change asked
   * for is in force (rejected if its pool could not start: the old one runs on). Throws where the
   * build has one thread.
   */
  setThreads(n) {
    if (this.workerBuild.build !== 'threaded') throw new Error(`this page runs the single-threaded build: ${this.workerBuild.reason}`);
    this.wantedThreads = n;
    return this.afterPoolChanges(() => this.changePool(n));
  }

  /** Run `change` once every pool change asked for before it has settled; returns its promise. */
  afterPoolChanges(change) {
    const done = this.poolChanges.then(change);
    this.poolChanges = done.catch(() => {});
    return done;
  }

  /** One pool change, in its turn: skipped if superseded or already in force. */
  async changePool(n) {
    if (n !== this.wantedThreads || this.cpu?.threads === n) return;
    let worker;
    try {
      worker = await this.startWorkerSolver('threaded', n);
      // Superseded while its pool started: the next change starts its own.
      if (n !== this.wantedThreads) {
        worker.terminate();
        return;
      }
      await this.adoptWorker(worker);
    } catch (error) {
      // Failed after it took over (its second scene): the page steps; before: the old worker runs on.
      if (worker && worker === this.cpu) this.workerFailed(error);
      else worker?.terminate();
      throw new Error(`Could not start ${n} threads: ${error.message}`);
    } finally {
      this.show();
    }
  }

  /** A worker whose states go into the page's copy while it is the CPU solver. */
  startWorkerSolver(build, threads) {
    return WorkerSolver.start(
      build,
      threads,
      (message, solver) => {
        if (solver !== this.cpu) return;
        // Acknowledged whatever taking it did: the worker sends nothing more until it hears back.
        try {
          this.takeWorkerState(message);
        } finally {
          solver.taken();
        }
      },
      (message, solver) => {
        if (solver === this.cpu) this.workerFailed(message);
      },
    );
  }

  /**
   * Make `worker` the CPU solver: build the scene there, then let it continue from the page's state.
   * If it fails before `worker` took over, `worker` is terminated and the old one runs on.
   */
  async adoptWorker(worker) {
    const version = this.sceneVersion;
    try {
      await worker.create(this.scene(), this.settings());
    } catch (error) {
      worker.terminate();
      throw error;
    }
    const old = this.cpu;
    const wasStepping = this.workerSteps || !old;
    if (old) {
      // Its last state into the page's copy; one that cannot give it has failed, and the page's copy
      // holds the latest state there is.
      await this.stopWorker().catch(() => {});
      old.terminate();
    }
    this.cpu = worker;
    // A new scene while this worker was getting ready went to the old one: build the scene again.
    if (version !== this.sceneVersion) await worker.create(this.scene(), this.settings());
    if (wasStepping) this.useWorker();
  }

  /** The CPU backend steps in the worker from now on, from the page's state. */
  useWorker() {
    if (!this.cpu || this.workerSteps || this.demo.backend() !== 'cpu') return;
    this.cpu.restore(this.demo.snapshot(true)).catch(this.workerFailed);
    this.workerSteps = true;
  }

  /** The worker failed (it could not start, say): the page steps its own copy on one thread. */
  workerFailed = (error) => {
    const failed = this.cpu;
    this.cpu = null;
    this.workerSteps = false;
    failed?.terminate();
    this.page.notice('cpu-worker', `The solver's Web Worker stopped (${error?.message ?? error}); the CPU solver runs on the page's thread instead.`, 'warning');
    document.body.dataset.cpuWorker = 'none';
    this.show();
  };

  /** Tell the worker how to run when that changed: real time or a fixed count per frame, Δt, paused. */
  syncWorkerRun() {
    if (!this.cpu) return;
    const { dt, fixed } = this.timing();
    const wanted = { running: this.workerSteps && this.page.running, dt, fixed };
    const last = this.cpu.lastRun;
    if (!last || last.running !== wanted.running || last.dt !== wanted.dt || last.fixed !== wanted.fixed) this.cpu.run(wanted);
  }

  /** A state from the worker: into the page's copy, with the steps it took and who worked. */
  takeWorkerState = (message) => {
    if (!message) return;
    try {
      this.demo.restore(message.state);
    } catch (error) {
      this.workerFailed(error);
      return;
    }
    if (message.steps > 0) this.onSteps(message.steps, message.ms);
    message.workPerThread.forEach((work, k) => (this.work[k] = (this.work[k] ?? 0) + work));
    if (message.error) {
      // A blow-up: the worker stopped at the last good state. Pause there and explain.
      this.cpu.lastRun = null;
      this.page.setRunning(false);
      this.page.notice('step-error', `Paused: ${message.error}.`, 'error');
    }
  };

  /** The worker stops stepping; resolves once the page's copy has its last state. */
  async stopWorker() {
    if (!this.workerSteps) return;
    this.workerSteps = false;
    this.syncWorkerRun();
    this.takeWorkerState(await this.cpu.state());
  }

  // ---- The GPU -------------------------------------------------------------------------------------

  /**
   * Switch solver (the state carries over); a refusal says why and stays on the CPU. `quiet`: the
   * automatic choice at start-up, which says nothing when the browser simply has no WebGPU.
   */
  async switchTo(value, { quiet = false } = {}) {
    if (value !== 'gpu') {
      // No more GPU steps; its latest state first (a read-back may already be on its way: then one
      // after it; at most a second's worth of frames).
      const owner = this.demo;
      this.leavingGpu = true;
      try {
        for (let frames = 0; frames < 60 && owner === this.demo && this.demo.backend() === 'gpu'; frames++) {
          const read = this.readBack({ now: true });
          if (read) {
            await read;
            break;
          }
          await new Promise((resolve) => requestAnimationFrame(resolve));
        }
      } finally {
        this.leavingGpu = false;
      }
      if (owner !== this.demo) return;
      this.demo.use_cpu();
      this.page.notice('backend', null);
      this.show();
      return;
    }
    try {
      // The view's own device where it draws with WebGPU: the view then draws the solver's buffers.
      this.gpuDevice ??= this.view()?.solver_device() ?? (await GpuDevice.create());
      // The worker's last steps first: the GPU starts from the latest state.
      await this.stopWorker();
      this.demo.use_gpu(this.gpuDevice);
      this.page.notice('backend', null);
    } catch (error) {
      if (!quiet || !/no GPU adapter/.test(error.message)) this.gpuUnavailable(error.message);
    }
    this.show();
  }

  gpuUnavailable(reason) {
    this.page.notice('backend', `The GPU backend cannot run here (${reason}); the solver stays on the CPU.`, 'warning');
  }

  /**
   * Ask the GPU for its state (one request at a time) and take it into the page's copy when it arrives:
   * every frame while the view draws from that copy, a few times a second (readouts, picking) while the
   * view draws phyxels and surfaces from the solver's own buffers.
   */
  readBack({ now: immediately = false } = {}) {
    const owner = this.demo;
    if (owner.backend() !== 'gpu') return;
    const now = performance.now();
    if (!immediately && this.view()?.draws_from_solver() && now - this.lastReadBack < READOUT_INTERVAL_MS) return;
    const promise = owner.gpu_read_back();
    if (!promise) return;
    this.lastReadBack = now;
    this.readBacks++;
    return promise.then((readback) => {
      if (owner === this.demo) {
        try {
          owner.apply_gpu_readback(readback);
        } catch (error) {
          this.page.notice('backend', `${error.message}.`, 'warning');
        }
        // A fracture scene's next batch as soon as this one's cracks are cut, while steps are owed.
        if (this.owed?.n > 0 && !this.leavingGpu && this.page.running && owner.backend() === 'gpu' && owner.is_fracture_scene()) {
          if (this.takeOwed()) this.readBack({ now: true });
        }
        if (owner.error()) {
          this.page.setRunning(false);
          this.page.notice('step-error', `Paused: ${owner.error()}.`, 'error');
        }
        this.show();
      }
      readback.free();
    });
  }
}
