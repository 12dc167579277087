// The message API: a page that embeds a demo in an iframe drives it with postMessage.
//
// Request   { phyxel: 1, action, id?, …fields }     (id: any string or number, echoed in the reply)
// Reply     { phyxel: 1, id, ok: true, result }  or  { phyxel: 1, id, ok: false, error }
// Event     { phyxel: 1, event, demo, data }         (after `subscribe`; `ready` is always sent)
//
// Actions (fields):
//   describe                   the demo, its parameters (name, kind, range / choices, value, default)
//   get        (parameter?)    one parameter's value, or all of them
//   set        (parameter, value)  validated like typed input; refused values answer an error. After a
//              set that changed a value, the next set waits a frame (SET_SPACING_MS); sets of one
//              parameter that queue meanwhile, one right behind the other, are answered as superseded
//              but the last, which is applied (a flood costs one derivation or rebuild a frame)
//   play, pause, restart       (simulations)
//   step       (steps? 1…1000) pause and advance that many steps (one request at a time; at most 8
//              unanswered, the running one included, more are refused; pause, play and restart cancel
//              the waiting ones)
//   readouts                   every readout: { texts: {id: text}, values: {id: number} }
//   subscribe  (events)        any of 'readouts' (4 per second while they change), 'state', 'notice'
//   unsubscribe (events?)
// With `origin=` in the demo's URL, messages from other origins are ignored (not answered).
import { allowedOrigins, clip, demoId } from './share.js';

const VERSION = 1;
const EVENTS = ['readouts', 'state', 'notice'];
const READOUT_INTERVAL_MS = 250;
const MAX_STEPS = 1000;
/** `step` requests that may be unanswered at once (one runs, the rest wait); more are refused until
 * replies come back. */
const MAX_PENDING_STEPS = 8;
/** The longest text a `set` may carry (an expression is far shorter; see js/lessons/scattered.js). */
const MAX_VALUE_LENGTH = 10_000;
/**
 * After a `set` that changed a value (an expression derived and sampled, a scene rebuilt), the next
 * `set` waits this long: one frame for the page's drawing and input. Messages arriving meanwhile
 * queue behind it, in order.
 */
const SET_SPACING_MS = 16;

/**
 * Each action: its fields (name → required?) and whether it needs a simulation (not a figure). Maps,
 * so that an action or field is found only if it is one of these (`action: 'constructor'` is not).
 */
const ACTIONS = new Map(Object.entries({
  describe: { fields: {} },
  get: { fields: { parameter: false } },
  set: { fields: { parameter: true, value: true } },
  play: { fields: {}, simulation: true },
  pause: { fields: {}, simulation: true },
  restart: { fields: {}, simulation: true },
  step: { fields: { steps: false }, simulation: true },
  readouts: { fields: {} },
  subscribe: { fields: { events: true } },
  unsubscribe: { fields: { events: false } },
}).map(([name, spec]) => [name, { ...spec, fields: new Map(Object.entries(spec.fields)) }]));
const ENVELOPE = new Set(['phyxel', 'action', 'id']);

/** A refused request: its message is the reply's `error`. */
class RequestError extends Error {}

/** Check a request's shape; returns it or throws RequestError saying what is wrong. */
export function validateRequest(data, page) {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new RequestError('A message must be an object { phyxel: 1, action: … }.');
  }
  if (data.phyxel !== VERSION) throw new RequestError(`A message needs phyxel: ${VERSION} (the API version).`);
  const spec = typeof data.action === 'string' ? ACTIONS.get(data.action) : undefined;
  if (!spec) throw new RequestError(`Unknown action ${describeValue(data.action)}: use one of ${[...ACTIONS.keys()].join(', ')}.`);
  const has = (field) => Object.hasOwn(data, field);
  for (const key of Object.keys(data)) {
    if (!ENVELOPE.has(key) && !spec.fields.has(key)) {
      throw new RequestError(`Unknown field “${key.slice(0, 100)}” for ${data.action}.`);
    }
  }
  for (const [field, required] of spec.fields) {
    if (required && !has(field)) throw new RequestError(`${data.action} needs the field “${field}”.`);
  }
  if (spec.simulation && !page.simulation) throw new RequestError(`This demo is an interactive figure: it has no ${data.action}.`);
  if (has('parameter') && (typeof data.parameter !== 'string' || !page.controls.registry.get(data.parameter))) {
    throw new RequestError(`Unknown parameter ${describeValue(data.parameter)}: this demo's are ${page.controls.registry.names().join(', ')}.`);
  }
  if (has('value') && !['string', 'number', 'boolean'].includes(typeof data.value)) {
    throw new RequestError('value must be a string, number or boolean.');
  }
  if (has('value') && typeof data.value === 'string' && data.value.length > MAX_VALUE_LENGTH) {
    throw new RequestError(`value is ${data.value.length} characters long: at most ${MAX_VALUE_LENGTH} are accepted.`);
  }
  if (has('steps') && !(Number.isInteger(data.steps) && data.steps >= 1 && data.steps <= MAX_STEPS)) {
    throw new RequestError(`steps must be a whole number from 1 to ${MAX_STEPS}.`);
  }
  if (has('events')) {
    if (!Array.isArray(data.events) || data.events.some((e) => !EVENTS.includes(e))) {
      throw new RequestError(`events must be a list of ${EVENTS.join(', ')}.`);
    }
  }
  return data;
}

/** A value as a reply may quote it: JSON, at most 100 characters. */
function describeValue(value) {
  let text;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/** A readout's number ("1.234 s" → 1.234; "—" → null). */
function readoutValue(text) {
  const value = parseFloat(text);
  return Number.isFinite(value) ? value : null;
}

function readouts(page) {
  const texts = page.readoutTexts();
  const values = Object.fromEntries(Object.entries(texts).map(([id, text]) => [id, readoutValue(text)]));
  return { texts, values };
}

function describe(page) {
  const parameters = [...page.controls.registry.entries.values()].map((entry) => ({
    name: entry.name,
    label: entry.label,
    kind: entry.kind,
    accepts: entry.describe,
    ...(entry.choices ? { choices: entry.choices } : {}),
    // A number's range (min, max, integer): for a lesson's solver parameters, the solver's own table.
    ...(entry.range ?? {}),
    value: entry.get(),
    default: entry.defaultText,
  }));
  return {
    demo: demoId(),
    title: document.querySelector('h1')?.textContent.trim(),
    kind: page.simulation ? 'simulation' : 'figure',
    parameters,
    readouts: Object.keys(page.readoutTexts()),
    actions: [...ACTIONS.keys()],
    events: EVENTS,
  };
}

/**
 * The `step` action: once a frame already on its way to the lesson worker has landed, `n` steps and a
 * redraw; answered with the state, or why they failed.
 */
async function stepOnce(page, n) {
  await page.idle();
  if ((await page.step(n)) === false) throw new RequestError(`The step failed: ${page.lastFailure}`);
  return page.state();
}

/**
 * `step` requests one at a time: each waits for the one before it; at most MAX_PENDING_STEPS may be
 * unanswered, the running one included (more are refused at once), and `pause`, `play` and `restart` cancel those not yet started, so a
 * flood of steps cannot queue unbounded work or keep a pause waiting for all of it.
 */
export function stepQueue(page) {
  let tail = Promise.resolve();
  let pending = 0;
  let generation = 0;
  return {
    cancel() {
      generation += 1;
    },
    async step(n) {
      if (pending >= MAX_PENDING_STEPS) {
        throw new RequestError(`${MAX_PENDING_STEPS} step requests are already waiting: wait for their replies before sending more.`);
      }
      pending += 1;
      const mine = generation;
      const before = tail;
      let done;
      tail = new Promise((resolve) => {
        done = resolve;
      });
      try {
        await before;
        if (mine !== generation) throw new RequestError('This step was cancelled: a pause, play or restart came after it.');
        page.setRunning(false);
        return await stepOnce(page, n);
      } finally {
        pending -= 1;
        done();
      }
    },
  };
}

/** `set`, answered once a solver in a lesson worker has taken the value (or refused it). */
async function setParameter(page, parameter, value) {
  const control = page.controls.registry.get(parameter);
  const refused = control.set(value);
  if (refused) throw new RequestError(`${parameter}=${clip(value)} was refused: ${refused}`);
  const taken = control.get();
  await page.idle();
  // A value the solver refused later has been put back by its control.
  if (control.get() !== taken) throw new RequestError(`${parameter}=${clip(value)} was refused by the solver: still ${clip(control.get())}.`);
  return { [parameter]: control.get() };
}

/** Carry out a valid request; returns its result (or a promise of it) or throws RequestError. */
function perform(page, request, subscription, steps) {
  const registry = page.controls.registry;
  switch (request.action) {
    case 'describe':
      return describe(page);
    case 'get':
      return request.parameter === undefined ? registry.values() : { [request.parameter]: registry.get(request.parameter).get() };
    case 'set': {
      const value = typeof request.value === 'boolean' ? (request.value ? '1' : '0') : String(request.value);
      return setParameter(page, request.parameter, value);
    }
    case 'play':
      steps.cancel();
      page.setRunning(true);
      return page.state();
    case 'pause':
      steps.cancel();
      page.setRunning(false);
      // A frame already on its way to a lesson worker lands before the answer.
      return page.idle().then(() => page.state());
    case 'restart':
      steps.cancel();
      // A solver in a lesson worker restarts by promise: answer once it has.
      return Promise.resolve(page.restart()).then((ok) => {
        if (ok === false) throw new RequestError(`The restart failed: ${page.lastFailure}`);
        return page.state();
      });
    case 'step':
      return steps.step(request.steps ?? 1);
    case 'readouts':
      return readouts(page);
    case 'subscribe':
      for (const event of request.events) subscription.events.add(event);
      return { events: [...subscription.events] };
    case 'unsubscribe':
      for (const event of request.events ?? EVENTS) subscription.events.delete(event);
      return { events: [...subscription.events] };
    default:
      throw new RequestError(`Unknown action ${request.action}.`);
  }
}

/** A request's id as its reply echoes it: a string or number, else null. */
function requestId(data) {
  return data && typeof data === 'object' && (typeof data.id === 'string' || typeof data.id === 'number') ? data.id : null;
}

/** The message `event` as a well-formed `set` request, or null (absent, malformed, or not a set). */
function validSet(event, page) {
  if (event?.data?.action !== 'set') return null;
  try {
    return validateRequest(event.data, page);
  } catch {
    return null;
  }
}

/** Whether `later` (a set, right behind `earlier` in the queue) replaces it: same sender, same parameter. */
function supersedes(later, earlier, laterEvent, earlierEvent) {
  return Boolean(later) && later.parameter === earlier.parameter && laterEvent.source === earlierEvent.source;
}

/** The answer to a set that a later one replaced before it was applied. */
function superseded({ parameter, value }) {
  return `${parameter}=${clip(String(value))} was not applied: a later set of ${parameter} replaced it while it waited (the last one wins).`;
}

/**
 * Requests in the order they came: `push(event)` hands each to `handle(event)` at once, but a `set`
 * waits at the head while the last one that changed a value is less than SET_SPACING_MS old, and
 * everything behind it waits with it; a set with a set of the same parameter from the same sender
 * right behind it is answered `refuse(event, superseded(…))` instead (the last one wins).
 * `clock` (tests): { now(), later(fn, ms) }.
 */
export function requestQueue(page, handle, refuse, clock = { now: () => performance.now(), later: (fn, ms) => setTimeout(fn, ms) }) {
  const inbox = [];
  let nextSetAt = -Infinity;
  let waiting = false;
  const drain = () => {
    while (inbox.length) {
      const event = inbox[0];
      const set = validSet(event, page);
      if (set) {
        const wait = nextSetAt - clock.now();
        if (wait > 0) {
          if (!waiting) {
            waiting = true;
            clock.later(() => {
              waiting = false;
              drain();
            }, wait);
          }
          return;
        }
        inbox.shift();
        if (supersedes(validSet(inbox[0], page), set, inbox[0], event)) {
          refuse(event, superseded(set));
          continue;
        }
        const control = page.controls.registry.get(set.parameter);
        const before = control.get();
        handle(event);
        // control.set ran at once (handle's first step): a new value waits a frame for the next set.
        if (control.get() !== before) nextSetAt = clock.now() + SET_SPACING_MS;
        continue;
      }
      inbox.shift();
      handle(event);
    }
  };
  return {
    push(event) {
      inbox.push(event);
      drain();
    },
  };
}

/** Listen for requests; send `ready` to the embedding page and events to subscribers. */
export function startMessageApi(page) {
  const allowed = allowedOrigins();
  const steps = stepQueue(page);
  const warned = new Set();
  /** Subscribers: the window that asked → { origin, events }. */
  const subscriptions = new Map();
  const send = (target, origin, body) => target.postMessage({ phyxel: VERSION, ...body }, origin === 'null' ? '*' : origin);

  /** Carry out one request and answer it (asynchronously where the demo answers later). */
  const handle = async (event) => {
    const data = event.data;
    const id = requestId(data);
    let subscription = subscriptions.get(event.source);
    if (!subscription) subscription = { origin: event.origin, events: new Set() };
    try {
      const request = validateRequest(data, page);
      const result = await perform(page, request, subscription, steps);
      if (subscription.events.size) subscriptions.set(event.source, subscription);
      else subscriptions.delete(event.source);
      send(event.source, event.origin, { id, ok: true, result });
    } catch (error) {
      if (!(error instanceof RequestError)) console.error(error);
      send(event.source, event.origin, { id, ok: false, error: error.message });
    }
  };

  const queue = requestQueue(page, handle, (event, error) => send(event.source, event.origin, { id: requestId(event.data), ok: false, error }));

  window.addEventListener('message', (event) => {
    if (event.source === window || !event.source) return;
    if (allowed && !allowed.includes(event.origin)) {
      if (!warned.has(event.origin)) {
        warned.add(event.origin);
        console.warn(`Phyxel: ignored messages from ${event.origin}; this demo accepts them only from ${allowed.join(', ')} (origin=).`);
      }
      return;
    }
    const data = event.data;
    // Our own replies and events (an embed inside an embed) are not requests.
    if (data && typeof data === 'object' && data.phyxel === VERSION && ('event' in data || 'ok' in data)) return;
    queue.push(event);
  });

  const publish = (name, data) => {
    for (const [target, subscription] of subscriptions) {
      if (subscription.events.has(name)) send(target, subscription.origin, { event: name, demo: demoId(), data });
    }
  };
  page.listeners.add((name, data) => {
    if (name === 'ready') {
      if (window.parent === window) return;
      // The embedding page learns the demo is ready without asking (to every allowed origin).
      for (const origin of allowed ?? ['*']) window.parent.postMessage({ phyxel: VERSION, event: 'ready', demo: demoId(), data }, origin);
    } else {
      publish(name, data);
    }
  });
  let lastReadouts = '';
  setInterval(() => {
    if (![...subscriptions.values()].some((s) => s.events.has('readouts'))) return;
    const current = readouts(page);
    const key = JSON.stringify(current.texts);
    if (key === lastReadouts) return;
    lastReadouts = key;
    publish('readouts', current);
  }, READOUT_INTERVAL_MS);
}
