// <phyxel-demo demo="pbd" solver="xpbd" controls="0"></phyxel-demo>
//
// One ES module, self-contained: import it from the Phyxel site (or your copy of dist/) and use the tag.
// The element shows the demo in an iframe of embed.html from the site this module was loaded from
// (so the demo's styles, wasm and workers never mix with the course page's), and its attributes are
// the demo's URL parameters: `demo` picks the demo, every other attribute is a parameter — changed
// later, it is sent to the running demo (no reload). The element also offers the message API as
// promises: `await el.set('iterations', 4)`, `play()`, `pause()`, `step(n)`, `restart()`,
// `readouts()`, `get(name?)`, `describe()`, `subscribe([...])`; events arrive as DOM events
// `phyxel-ready`, `phyxel-readouts`, `phyxel-state`, `phyxel-notice` (detail: the data), and a refused
// attribute as `phyxel-error` (detail: { parameter, error }). The demo takes messages from the page
// that holds the element only (its `origin=` is this page's origin unless an `origin` attribute says
// otherwise).

const SITE = new URL('..', import.meta.url);
/** Attributes that belong to the element, not to the demo. */
const OWN_ATTRIBUTES = new Set(['demo', 'id', 'class', 'style', 'title', 'hidden', 'lang', 'dir', 'tabindex', 'slot', 'part']);
const REPLY_TIMEOUT_MS = 15_000;

const STYLES = `
  :host { display: block; position: relative; width: 100%; aspect-ratio: 16 / 9; min-height: 16rem;
          border: 1px solid #d8dde3; border-radius: 8px; overflow: hidden; background: #fff; }
  :host([hidden]) { display: none; }
  iframe { position: absolute; inset: 0; width: 100%; height: 100%; border: 0; }`;
let sheet = null;
/** The element's style sheet, made once and shared by every <phyxel-demo> of the page. */
function elementStyles() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
  }
  return sheet;
}

const isParameter = (name) => !OWN_ATTRIBUTES.has(name) && !name.startsWith('data-') && !name.startsWith('aria-');

export class PhyxelDemoElement extends HTMLElement {
  #frame;
  #pending = new Map();
  #nextId = 1;
  #readyPromise;
  #markReady;
  #isReady = false;
  #observer;

  constructor() {
    super();
    const shadow = this.attachShadow({ mode: 'open' });
    // A constructed style sheet, not a <style> element: a course page with a strict
    // Content-Security-Policy (style-src without 'unsafe-inline') still lays the element out.
    shadow.adoptedStyleSheets = [elementStyles()];
    const frame = document.createElement('iframe');
    frame.allow = 'fullscreen';
    frame.loading = 'lazy';
    shadow.append(frame);
    this.#frame = frame;
    this.#resetReady();
  }

  connectedCallback() {
    window.addEventListener('message', this.#onMessage);
    this.#load();
    this.#observer = new MutationObserver((records) => {
      for (const { attributeName } of records) this.#attributeChanged(attributeName);
    });
    this.#observer.observe(this, { attributes: true });
  }

  disconnectedCallback() {
    window.removeEventListener('message', this.#onMessage);
    this.#observer?.disconnect();
    for (const { reject, timer } of this.#pending.values()) {
      clearTimeout(timer);
      reject(new Error('the element was removed'));
    }
    this.#pending.clear();
  }

  /** Resolves once the demo has loaded and answers messages. */
  get ready() {
    return this.#readyPromise;
  }

  /**
   * The iframe's address: embed.html with `demo` and every parameter attribute. Without an `origin`
   * attribute the demo obeys messages from this page's origin only (a page with an opaque origin,
   * `null`, cannot be named: its demo accepts any page's messages, as an iframe without origin= does).
   */
  get src() {
    const params = new URLSearchParams({ demo: this.getAttribute('demo') ?? '' });
    for (const { name, value } of this.attributes) if (isParameter(name)) params.append(name, value);
    if (!this.hasAttribute('origin') && window.location.origin !== 'null') params.append('origin', window.location.origin);
    return new URL(`embed.html?${params}`, SITE).href;
  }

  set(parameter, value) {
    return this.request('set', { parameter, value });
  }

  get(parameter) {
    return this.request('get', parameter === undefined ? {} : { parameter });
  }

  play() {
    return this.request('play');
  }

  pause() {
    return this.request('pause');
  }

  step(steps = 1) {
    return this.request('step', { steps });
  }

  restart() {
    return this.request('restart');
  }

  readouts() {
    return this.request('readouts');
  }

  describe() {
    return this.request('describe');
  }

  subscribe(events) {
    return this.request('subscribe', { events });
  }

  unsubscribe(events) {
    return this.request('unsubscribe', events === undefined ? {} : { events });
  }

  /** Send one request of the message API once the demo is ready; resolves to its result. */
  async request(action, fields = {}) {
    await this.#readyPromise;
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`the demo did not answer ${action} within ${REPLY_TIMEOUT_MS / 1000} s`));
      }, REPLY_TIMEOUT_MS);
      this.#pending.set(id, { resolve, reject, timer });
      this.#frame.contentWindow.postMessage({ phyxel: 1, id, action, ...fields }, SITE.origin);
    });
  }

  #resetReady() {
    this.#isReady = false;
    this.#readyPromise = new Promise((resolve) => {
      this.#markReady = resolve;
    });
  }

  #load() {
    const src = this.src;
    if (this.#frame.src !== src) {
      if (this.#isReady) this.#resetReady();
      this.#frame.src = src;
    }
    this.#frame.title = this.getAttribute('title') ?? `Phyxel demo: ${this.getAttribute('demo') ?? ''}`;
  }

  #attributeChanged(name) {
    if (name === 'demo' || name === 'origin' || (!this.#isReady && isParameter(name))) {
      this.#load();
    } else if (isParameter(name) && this.hasAttribute(name)) {
      this.set(name, this.getAttribute(name)).catch((error) => {
        this.dispatchEvent(new CustomEvent('phyxel-error', { detail: { parameter: name, error: error.message } }));
      });
    } else if (name === 'title') {
      this.#frame.title = this.getAttribute('title');
    }
  }

  #onMessage = (event) => {
    const data = event.data;
    if (event.source !== this.#frame.contentWindow || event.origin !== SITE.origin) return;
    if (!data || typeof data !== 'object' || data.phyxel !== 1) return;
    if ('ok' in data) {
      const pending = this.#pending.get(data.id);
      if (!pending) return;
      this.#pending.delete(data.id);
      clearTimeout(pending.timer);
      if (data.ok) pending.resolve(data.result);
      else pending.reject(new Error(data.error));
    } else if (typeof data.event === 'string') {
      if (data.event === 'ready') {
        this.#isReady = true;
        this.#markReady();
      }
      this.dispatchEvent(new CustomEvent(`phyxel-${data.event}`, { detail: data.data }));
    }
  };
}

if (!customElements.get('phyxel-demo')) customElements.define('phyxel-demo', PhyxelDemoElement);
