// The shared lesson template: Restart / Pause–Run / Step buttons, the controls, readouts for simulated
// time and time per step, notices, and the real-time loop that advances a simulation in fixed steps.
import { ControlPanel } from './controls.js';
import { typesetMath } from './typeset.js';
import { showBackendBadge } from '../workers/backend.js';
import { applyUrlState, addShareButtons, addEmbedChrome, demoId, embedOptions } from './share.js';
import { startMessageApi } from './messages.js';
import { paint } from './painted.js';

/** Longest wall-clock interval one frame may simulate (a background tab must not trigger a burst). */
const MAX_FRAME_SECONDS = 1 / 20;
/** Steps one frame may take; beyond it the simulation runs slower than real time and says so. */
const MAX_STEPS_PER_FRAME = 2000;

export class LessonPage {
  /**
   * @param {{computesOn: string, simulation?: boolean}} options  what the page's solver runs on (for the
   *   backend badge), and whether it is a simulation (Restart / Pause / Step and time readouts) or an
   *   interactive figure.
   */
  constructor({ computesOn, simulation = true }) {
    this.panel = document.getElementById('panel');
    this.notices = document.getElementById('notices');
    this.running = true;
    /** Called when busy drops to 0 (see idle()). */
    this.idleWaiters = [];
    /**
     * Work asked of the worker is numbered (body[data-asked]); body[data-done] is the number up to
     * which all of it has finished. A running simulation may always have a frame in flight on a loaded
     * machine, so "nothing pending" can be rare; "everything asked before now is done" is not.
     */
    this.asked = 0;
    /** The numbers of the frames, Steps and restarts still waiting for a lesson worker (run). */
    this.pending = new Set();
    /** Why the last frame, Step or restart failed. */
    this.lastFailure = null;
    this.accumulated = 0;
    this.stepStats = [];
    this.noticeElements = new Map();
    this.simulation = simulation;
    /** Event listeners of the message API: (event, data) => void. */
    this.listeners = new Set();
    /** Chrome-less view for iframes (`?embed=1`, see embed.html); set before paint by js/site/embed-mode.js. */
    this.embed = embedOptions();
    this.onScreen = true;
    document.body.dataset.kind = simulation ? 'simulation' : 'figure';

    this.panel.insertAdjacentHTML(
      'afterbegin',
      `${simulation
        ? `<div class="buttons">
         <button type="button" id="restart">Restart</button>
         <button type="button" id="pause" aria-pressed="false">Pause</button>
         <button type="button" id="step">Step</button>
       </div>`
        : ''}
       <form id="controls" class="controls" autocomplete="off"></form>
       <table class="readouts"><tbody id="readouts"></tbody></table>`,
    );
    this.controls = new ControlPanel(this.panel.querySelector('#controls'));
    this.controls.container.addEventListener('submit', (e) => e.preventDefault());
    this.readoutBody = this.panel.querySelector('#readouts');
    window.addEventListener('error', (e) => this.notice('page-error', `Error: ${e.message}`, 'error'));
    window.addEventListener('unhandledrejection', (e) =>
      this.notice('page-error', `Error: ${e.reason?.message ?? e.reason}`, 'error'),
    );
    // Embedded, the theory is not shown: typeset only what is.
    typesetMath(document.querySelector(this.embed ? '.sim' : 'main'));
    showBackendBadge(computesOn);
    if (simulation) this.addSimulationControls();
    this.watchVisibility();
  }

  /**
   * Called by the page once its controls and simulation exist: apply the URL's parameters, add the
   * share buttons (or the embed chrome), open the message API, and mark the page ready.
   */
  ready() {
    applyUrlState(this);
    if (this.embed) addEmbedChrome(this);
    else addShareButtons(this);
    startMessageApi(this);
    document.body.dataset.ready = 'true';
    this.emit('ready', { demo: demoId(), kind: document.body.dataset.kind });
  }

  /** Tell the message API's subscribers (and the embedding page) about `event`. */
  emit(event, data) {
    for (const listener of this.listeners) listener(event, data);
  }

  /** The page's readouts: { id: text } for every readout row. */
  readoutTexts() {
    const texts = {};
    for (const cell of this.panel.querySelectorAll('td[id^="readout-"]')) {
      texts[cell.id.slice('readout-'.length)] = cell.textContent;
    }
    return texts;
  }

  /**
   * Pause stepping and drawing while the simulation is off-screen (an embed scrolled away, a lesson
   * scrolled to its theory) or the tab is hidden; `body[data-visible]` shows which.
   */
  watchVisibility() {
    const update = () => {
      const visible = this.onScreen && document.visibilityState !== 'hidden';
      if (document.body.dataset.visible === String(visible)) return;
      document.body.dataset.visible = String(visible);
      this.emit('state', this.state());
    };
    const section = document.querySelector('.sim');
    if (section && 'IntersectionObserver' in window) {
      new IntersectionObserver((entries) => {
        this.onScreen = entries[entries.length - 1].isIntersecting;
        update();
      }).observe(section);
    }
    document.addEventListener('visibilitychange', update);
    update();
  }

  get visible() {
    return document.body.dataset.visible !== 'false';
  }

  /** What the message API reports as the state: running, visible, simulated time. */
  state() {
    return {
      running: this.simulation ? this.running : null,
      visible: this.visible,
      time: this.sim ? this.sim.time() : null,
    };
  }

  /** Restart / Pause–Run / Step, and the simulated-time and time-per-step readouts. */
  addSimulationControls() {
    this.pauseButton = this.panel.querySelector('#pause');
    this.timeReadout = this.readout('sim-time', 'Simulated time');
    this.stepReadout = this.readout('step-time', 'Time per step');
    this.pauseButton.addEventListener('click', () => this.setRunning(!this.running));
    this.panel.querySelector('#step').addEventListener('click', () => {
      this.setRunning(false);
      this.step(1);
    });
    this.panel.querySelector('#restart').addEventListener('click', () => this.restart());
    document.addEventListener('keydown', (e) => {
      if (e.key === ' ' && e.target === document.body) {
        e.preventDefault();
        this.setRunning(!this.running);
      }
    });
  }

  /** Add a readout row; returns a function that sets its text. */
  readout(id, label) {
    const row = document.createElement('tr');
    row.innerHTML = `<th scope="row"></th><td id="readout-${id}"></td>`;
    row.firstElementChild.innerHTML = label;
    paint(row);
    this.readoutBody.append(row);
    const cell = row.lastElementChild;
    return (text) => {
      if (cell.textContent !== text) cell.textContent = text;
    };
  }

  /** Show (or with `text` null, remove) a notice under the simulation. */
  notice(key, text, level = 'warning') {
    let element = this.noticeElements.get(key);
    if (text == null) {
      element?.remove();
      this.noticeElements.delete(key);
      return;
    }
    if (!element) {
      element = document.createElement('p');
      element.dataset.key = key;
      this.notices.append(element);
      this.noticeElements.set(key, element);
    }
    element.className = `notice ${level}`;
    element.setAttribute('role', level === 'error' ? 'alert' : 'status');
    if (element.textContent !== text) {
      element.textContent = text;
      this.emit('notice', { key, text, level });
    }
  }

  setRunning(running) {
    this.running = running;
    if (running) this.notice('step-error', null);
    this.pauseButton.textContent = running ? 'Pause' : 'Run';
    this.pauseButton.setAttribute('aria-pressed', String(!running));
    this.accumulated = 0;
    this.emit('state', this.state());
  }

  /** Back to t = 0. Resolves (or returns) false if the simulation refused. */
  restart() {
    this.resetTiming();
    return this.run(() =>
      after(this.sim.restart(), () => {
        this.updateReadouts();
        return this.sim.render();
      }),
    );
  }

  /** `n` steps and a redraw, paused or not (the Step button, the message API); false if they failed. */
  step(n) {
    return this.run(() => after(this.advance(n), () => this.sim.render()));
  }

  /** Forget the real time owed and the step timings (a new simulation starts). */
  resetTiming() {
    this.accumulated = 0;
    this.stepStats = [];
    if (this.simulation && this.sim) this.updateReadouts();
  }

  /** How many frames, Steps and restarts are still waiting for the lesson worker. */
  get busy() {
    return this.pending.size;
  }

  /**
   * Resolves when nothing asked of the lesson worker is pending any more: a frame already on its way
   * when the simulation was paused has landed.
   */
  idle() {
    return this.busy ? new Promise((resolve) => this.idleWaiters.push(resolve)) : Promise.resolve();
  }

  /**
   * Run `work` (a frame, a Step, a restart). Work that returns a promise (a solver in a lesson worker,
   * js/workers/remote-lesson.js) holds back the next frame until it has finished. A failure pauses the
   * simulation on its last good state and says why: it must not freeze the page.
   */
  run(work) {
    const fail = (error) => {
      this.lastFailure = error?.message ?? String(error);
      if (this.simulation) this.setRunning(false);
      this.notice('step-error', `The simulation was paused: ${this.lastFailure}`, 'error');
      return false;
    };
    try {
      const result = work();
      return result?.then ? this.track(result.catch(fail)) : result;
    } catch (error) {
      return fail(error);
    }
  }

  /**
   * Count `promise` (work in the lesson worker) as pending until it settles, and return it: the next
   * frame waits for it, and body[data-busy] tells tests and tools when everything asked is done.
   */
  track(promise) {
    const ticket = ++this.asked;
    this.pending.add(ticket);
    document.body.dataset.asked = String(ticket);
    document.body.dataset.busy = 'true';
    const done = () => {
      this.pending.delete(ticket);
      document.body.dataset.done = String(this.pending.size ? Math.min(...this.pending) - 1 : this.asked);
      if (this.busy) return;
      document.body.dataset.busy = 'false';
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
    promise.then(done, done);
    return promise;
  }

  /**
   * Take `n` steps of the simulation, timing them — unless the simulation steps elsewhere (a worker):
   * its step(n) then returns 'queued' (or a promise of it, settled when they are taken) and it
   * reports the steps itself through recordSteps. A step(n)
   * that returns a promise is timed by the number it resolves to (ms, the worker's own clock), or by
   * the wall clock until it resolves.
   */
  advance(n) {
    if (n <= 0) return;
    const start = performance.now();
    const stepped = this.sim.step(n);
    if (stepped === 'queued') return;
    const record = (ms) => {
      this.recordSteps(n, ms ?? performance.now() - start);
      return this.sim.afterStep?.();
    };
    // A promise of 'queued': taken elsewhere, and reported there (the 3D demo's worker).
    return stepped?.then ? stepped.then((ms) => (ms === 'queued' ? undefined : record(typeof ms === 'number' ? ms : undefined))) : record();
  }

  /** `n` steps were taken in `elapsed` ms: the time-per-step readout averages the last second. */
  recordSteps(n, elapsed) {
    const now = performance.now();
    this.stepStats.push({ now, elapsed, n });
    while (this.stepStats.length && now - this.stepStats[0].now > 1000) this.stepStats.shift();
    this.updateReadouts();
  }

  updateReadouts() {
    this.timeReadout(`${this.sim.time().toFixed(3)} s`);
    const steps = this.stepStats.reduce((sum, s) => sum + s.n, 0);
    const ms = this.stepStats.reduce((sum, s) => sum + s.elapsed, 0);
    this.stepReadout(steps ? `${(ms / steps).toPrecision(3)} ms` : '—');
  }

  /**
   * Start the real-time loop. `sim` provides:
   *  step(n)   advance n steps of dt() (this call is what "time per step" measures)
   *  afterStep()  optional: record the new state (plots), not timed
   *  dt()      the current step size (s)
   *  speed()   simulated seconds per wall-clock second
   *  time()    simulated time (s)
   *  restart() back to t = 0
   *  render()  draw the current state
   *  stepsForFrame(wall)  optional: how many steps this frame takes for `wall` seconds of real time
   *            (a page with expensive steps budgets them itself); without it, steps of dt() keep
   *            up with real time × speed()
   */
  start(sim) {
    this.sim = sim;
    this.updateReadouts();
    let last = performance.now();
    const frame = (now) => {
      requestAnimationFrame(frame);
      // While the last frame is still in the worker, its real time carries over to the next one.
      if (this.busy) return;
      const wall = Math.min((now - last) / 1000, MAX_FRAME_SECONDS);
      last = now;
      if (!this.visible) return;
      this.run(() => this.frame(sim, wall));
    };
    requestAnimationFrame(frame);
  }

  /**
   * One animation frame: advance by `wall` seconds of real time (scaled by the speed), then draw.
   * Returns a promise when the simulation's solver answers by promise.
   */
  frame(sim, wall) {
    if (this.running && sim.stepsForFrame) {
      return after(this.advance(sim.stepsForFrame(wall)), () => sim.render());
    } else if (this.running) {
      this.accumulated += wall * sim.speed();
      const dt = sim.dt();
      let n = Math.floor(this.accumulated / dt);
      const slow = n > MAX_STEPS_PER_FRAME;
      if (slow) n = MAX_STEPS_PER_FRAME;
      this.accumulated = slow ? 0 : this.accumulated - n * dt;
      this.notice(
        'slow',
        slow ? `Δt is so small that ${MAX_STEPS_PER_FRAME} steps per frame cannot keep up: running slower than real time.` : null,
        'info',
      );
      return after(this.advance(n), () => sim.render());
    }
    return sim.render();
  }
}

/** `next()` after `value`: at once, or when `value` (a promise) has resolved. */
function after(value, next) {
  return value?.then ? value.then(() => next()) : next();
}

/** Size a canvas's backing store to its box in device pixels (no-op when it already matches). */
export function fitCanvas(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const width = Math.round(canvas.clientWidth * dpr);
  const height = Math.round(canvas.clientHeight * dpr);
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
}

/** Fit `canvas` to its box now and whenever its box changes, redrawing with `draw()` after each change. */
export function keepFitted(canvas, draw) {
  new ResizeObserver(() => {
    fitCanvas(canvas);
    draw();
  }).observe(canvas);
  fitCanvas(canvas);
}

/** A pointer event's position in the canvas's device pixels: [px, py]. */
export function canvasPoint(canvas, event) {
  const rect = canvas.getBoundingClientRect();
  return [((event.clientX - rect.left) / rect.width) * canvas.width, ((event.clientY - rect.top) / rect.height) * canvas.height];
}
