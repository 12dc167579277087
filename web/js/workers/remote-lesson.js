// The page's side of js/workers/lesson-worker.js: a lesson solver that lives in a dedicated worker, so the
// page's thread only handles input, readouts and putting the finished frame on screen.
//
//   const solvers = await LessonWorker.start();
//   const lesson = await solvers.create('PbdLesson', 'cloth', 0.5);
//   await lesson.step(1, 0.005, ...);           // any method of the wasm class, as a promise
//   const { result, ms } = await lesson.timed('step', ...);   // the same, with the worker's time for it
//   await lesson.draw(canvas, ...extra);         // lesson.draw(ctx, width, height, ...extra) in the worker
//   lesson.free();
//   solvers.terminate();                         // abandon a long computation (start another worker to go on)
//
// The worker answers in the order it was asked, so calls made one after another need not wait for
// each other. Where a worker cannot run the lessons (no module workers, no 2D OffscreenCanvas in
// workers, or it did not start), the same interface runs them on the page's thread instead
// (`PageLessons`) and the backend badge says so.
import { setComputesOn } from './backend.js';

/** How long the worker may take to load its solver module before the page runs it itself (ms). */
const START_TIMEOUT_MS = 15_000;

export class LessonWorker {
  /**
   * Start the worker and wait until its solver module is loaded — or, where that fails, load the
   * solver on the page's thread (resolves with a PageLessons then).
   */
  static async start() {
    let solvers;
    let timer;
    try {
      solvers = new LessonWorker();
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`it did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      });
      await Promise.race([solvers.request(null), timeout]);
      return solvers;
    } catch (error) {
      solvers?.worker?.terminate();
      return PageLessons.start(error.message);
    } finally {
      clearTimeout(timer);
    }
  }

  constructor() {
    this.worker = new Worker(new URL('./lesson-worker.js', import.meta.url), { type: 'module' });
    /** id → {resolve, reject} of the requests not yet answered; id 0 is the start-up message. */
    this.waiting = new Map();
    this.nextId = 1;
    this.nextHandle = 1;
    this.worker.onmessage = ({ data }) => {
      const request = this.waiting.get(data.id);
      if (!request) return;
      this.waiting.delete(data.id);
      if ('error' in data) request.reject(new Error(data.error));
      else request.resolve(data);
    };
    // The worker itself failed (its script did not load, or it crashed), or a reply could not be
    // read: what it was asked will not be answered; say so to every caller, and to later ones (a
    // request left waiting would hold the page's frames back for good).
    const fail = (why) => {
      this.failure = new Error(`the lesson worker failed: ${why}`);
      for (const request of this.waiting.values()) request.reject(this.failure);
      this.waiting.clear();
    };
    this.worker.onerror = (event) => {
      event.preventDefault();
      fail(event.message || 'its script did not load');
    };
    this.worker.onmessageerror = () => fail('a reply could not be read');
  }

  /** Send `message` (null: wait for start-up) and resolve with the worker's reply. */
  request(message, transfer = []) {
    if (this.failure) return Promise.reject(this.failure);
    const id = message ? this.nextId++ : 0;
    const reply = new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    if (message) this.worker.postMessage({ ...message, id }, transfer);
    return reply;
  }

  /** A static method of a lesson class (e.g. the list of integrators). */
  async static(className, method, ...args) {
    return (await this.request({ op: 'static', className, method, args })).result;
  }

  /**
   * Stop the worker at once, abandoning what it computes (a long solve no longer wanted): every
   * request not yet answered, and every later one, rejects. Start another to go on.
   */
  terminate() {
    this.worker.terminate();
    this.failure = new Error('the lesson worker was stopped');
    for (const request of this.waiting.values()) request.reject(this.failure);
    this.waiting.clear();
  }

  /** `new className(...args)` in the worker; rejects with the solver's message if it refuses. */
  create(className, ...args) {
    return this.make({ className, args });
  }

  /** `className.factory(...args)` in the worker (a named constructor such as `spring`). */
  createWith(className, factory, ...args) {
    return this.make({ className, factory, args });
  }

  async make(what) {
    const handle = this.nextHandle++;
    await this.request({ op: 'new', handle, ...what });
    return remoteLesson(this, handle);
  }
}

/**
 * The lessons on the page's own thread, behind the same promises: for browsers whose workers cannot
 * run them. Steps then block the page while they run, as before the worker.
 */
class PageLessons {
  static async start(reason) {
    const phyxel = await import('../../phyxel-web.js');
    await phyxel.default();
    setComputesOn(`the CPU (WebAssembly, on the page's thread: the lesson worker could not run — ${reason})`);
    return new PageLessons(phyxel);
  }

  constructor(phyxel) {
    this.phyxel = phyxel;
  }

  async static(className, method, ...args) {
    return this.phyxel[className][method](...args);
  }

  /** Nothing runs between calls on the page's thread: nothing to stop. */
  terminate() {}

  async create(className, ...args) {
    return localLesson(new this.phyxel[className](...args));
  }

  async createWith(className, factory, ...args) {
    return localLesson(this.phyxel[className][factory](...args));
  }
}

/** `object` (a wasm lesson on this thread) with the interface of remoteLesson. */
function localLesson(object) {
  return callProxy({
    async timed(method, ...args) {
      const start = performance.now();
      const result = object[method](...args);
      return { result, ms: performance.now() - start };
    },
    async call(method, ...args) {
      return object[method](...args);
    },
    async draw(canvas, ...args) {
      if (canvas.width && canvas.height) object.draw(canvas.getContext('2d'), canvas.width, canvas.height, ...args);
    },
    free() {
      object.free();
    },
  });
}

/** A lesson in the worker, by its handle there. */
function remoteLesson(solvers, handle) {
  const lesson = {
    async timed(method, ...args) {
      const { result, ms } = await solvers.request({ op: 'call', handle, method, args });
      return { result, ms };
    },
    async call(method, ...args) {
      return (await lesson.timed(method, ...args)).result;
    },
    /** Draw at the canvas's backing-store size and put the worker's frame on it. */
    async draw(canvas, ...args) {
      const { width, height } = canvas;
      // A canvas with no area (hidden, folded away) has nothing to show.
      if (!width || !height) return;
      const dpr = window.devicePixelRatio || 1;
      const { bitmap } = await solvers.request({ op: 'draw', handle, width, height, dpr, args });
      const ctx = canvas.getContext('2d');
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(bitmap, 0, 0);
      bitmap.close();
    },
    free() {
      if (!solvers.failure) solvers.worker.postMessage({ op: 'free', handle });
    },
  };
  return callProxy(lesson);
}

/** A proxy on which any method name `lesson` does not define becomes `lesson.call(name, …)`. */
function callProxy(lesson) {
  return new Proxy(lesson, {
    get(target, name) {
      if (typeof name === 'symbol' || name in target) return target[name];
      // Not a thenable: `await` on the proxy must not take it for a promise.
      if (name === 'then') return undefined;
      return (...args) => target.call(name, ...args);
    },
  });
}
