// The lesson worker: the 2D lessons' solvers (crates/phyxel-web, single-threaded build) run here, off
// the page's thread, and draw into an OffscreenCanvas whose frame goes back to the page as an
// ImageBitmap. The page talks to it through js/workers/remote-lesson.js; every message carries an `id` that
// its reply repeats.
//
// Messages (page → worker):
//   {op: 'static', id, className, method, args}           a static method: Class[method](...args)
//   {op: 'new', id, handle, className, factory?, args}    construct (or Class[factory](...args)) as `handle`
//   {op: 'call', id, handle, method, args}                 handle's method(...args), timed
//   {op: 'draw', id, handle, width, height, dpr, args}     handle.draw(ctx, width, height, ...args) → bitmap
//   {op: 'free', handle}                                   drop the object (no reply)
// Replies (worker → page): {id, result, ms} | {id, bitmap} | {id, error}.
import init, * as phyxel from '../../phyxel-web.js';

const ready = init();
const objects = new Map();
let canvas = null;
let ctx = null;

function lessonClass(name) {
  const cls = phyxel[name];
  if (typeof cls !== 'function') throw new Error(`no lesson class ${name}`);
  return cls;
}

function object(handle) {
  const found = objects.get(handle);
  if (!found) throw new Error(`lesson ${handle} does not exist (freed or never made)`);
  return found;
}

function method(target, name) {
  if (typeof target[name] !== 'function') throw new Error(`no method ${name}`);
  return target[name].bind(target);
}

/** Draw `handle` at width × height device pixels and hand the frame over (no copy). */
function draw({ handle, width, height, dpr, args }) {
  // Line widths and dot sizes follow the page's pixel ratio (crates/phyxel-web/src/view.rs).
  globalThis.devicePixelRatio = dpr;
  if (!canvas) {
    canvas = new OffscreenCanvas(width, height);
    ctx = canvas.getContext('2d');
  } else if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  object(handle).draw(ctx, width, height, ...args);
  return canvas.transferToImageBitmap();
}

self.onmessage = async ({ data }) => {
  await ready;
  const { op, id } = data;
  try {
    if (op === 'free') {
      objects.get(data.handle)?.free();
      objects.delete(data.handle);
    } else if (op === 'static') {
      self.postMessage({ id, result: method(lessonClass(data.className), data.method)(...data.args) });
    } else if (op === 'new') {
      const cls = lessonClass(data.className);
      objects.set(data.handle, data.factory ? method(cls, data.factory)(...data.args) : new cls(...data.args));
      self.postMessage({ id });
    } else if (op === 'call') {
      const start = performance.now();
      const result = method(object(data.handle), data.method)(...data.args);
      self.postMessage({ id, result, ms: performance.now() - start });
    } else if (op === 'draw') {
      const bitmap = draw(data);
      self.postMessage({ id, bitmap }, [bitmap]);
    }
  } catch (error) {
    // Solver errors (a refused parameter, a blow-up) are JS errors from wasm-bindgen: send the text.
    if (id !== undefined) self.postMessage({ id, error: error?.message ?? String(error) });
  }
};
// Id 0 tells the page the module is loaded (or why it is not).
/** Whether this worker can draw: a 2D OffscreenCanvas (Safari has one from 16.4). */
function canDraw() {
  try {
    return new OffscreenCanvas(1, 1).getContext('2d') !== null;
  } catch {
    return false;
  }
}
ready.then(
  () => self.postMessage(canDraw() ? { id: 0, result: 'ready' } : { id: 0, error: 'workers cannot draw here (no 2D OffscreenCanvas)' }),
  (error) => self.postMessage({ id: 0, error: `the solver module did not load: ${error?.message ?? error}` }),
);
