// The fuzz layer's driver in the browser: a page of the site holding demos in iframes, asking them
// through the message API as a course page would — many cases per page load, each answered before
// the next is sent, so that a case's reply, the control's error and the value left in force belong to
// that case. Also: the page-thread long tasks and the JS heap every frame reports.

/** Run in every frame before its own scripts: collect long tasks (PerformanceObserver 'longtask'). */
export const OBSERVE_LONG_TASKS = `
  window.__longTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longTasks.push(Math.round(entry.duration));
    }).observe({ type: 'longtask', buffered: true });
  } catch {}`;

/** In the holding page: add an iframe `id` of `src` (visible: embeds pause off-screen) and the helpers. */
export function addFrame(page, id, src, { width = 640, height = 400 } = {}) {
  return page.evaluate(([id, src, width, height]) => {
    if (!window.fuzz) {
      const waiting = new Map();
      const rawWaiting = new Map();
      window.fuzz = { next: 1, waiting, rawWaiting, ready: new Set() };
      addEventListener('message', (event) => {
        const data = event.data;
        const frame = [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === event.source);
        if (data?.event === 'ready' && frame) window.fuzz.ready.add(frame.id);
        if (!data || !('ok' in data)) return;
        if (data.id === null && frame) rawWaiting.get(frame.id)?.shift()?.(data);
        else waiting.get(data.id)?.(data);
      });
      /** Send `message` (with a fresh id unless `raw`) and resolve with its reply (null after `wait` ms). */
      window.fuzz.ask = (frameId, message, { raw = false, wait = 10_000 } = {}) => new Promise((resolve) => {
        const target = document.getElementById(frameId).contentWindow;
        const timer = setTimeout(() => resolve(null), wait);
        const done = (reply) => {
          clearTimeout(timer);
          resolve(reply);
        };
        if (raw) {
          if (!rawWaiting.has(frameId)) rawWaiting.set(frameId, []);
          rawWaiting.get(frameId).push(done);
          target.postMessage(message, '*');
        } else {
          const key = window.fuzz.next++;
          waiting.set(key, (reply) => {
            waiting.delete(key);
            done(reply);
          });
          target.postMessage({ ...message, id: key }, '*');
        }
      });
    }
    const frame = document.createElement('iframe');
    frame.id = id;
    frame.src = src;
    frame.width = width;
    frame.height = height;
    document.body.prepend(frame);
  }, [id, src, width, height]);
}

/**
 * Run `cases` ([{ message, raw?, parameter? }]) one after another in frame `frameId`; for each, the
 * reply, and with `parameter` the value then in force (`get`) and the text of that control's error.
 * Simulations: after each group of cases (`group` key) the simulated time must pass the time read
 * before the group (the demo still runs), within 10 s; returns { results, stalls }.
 */
export function runCases(page, frameId, cases, { simulation }) {
  return page.evaluate(async ([frameId, cases, simulation]) => {
    const { ask } = window.fuzz;
    const doc = document.getElementById(frameId).contentDocument;
    const time = async () => (await ask(frameId, { phyxel: 1, action: 'readouts' })).result.values['sim-time'];
    const results = [];
    const stalls = [];
    let group = null;
    let groupStart = null;
    const closeGroup = async () => {
      if (!simulation || group === null) return;
      const end = performance.now() + 10_000;
      let t = await time();
      while (!(t > groupStart) && performance.now() < end) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        t = await time();
      }
      if (!(t > groupStart)) stalls.push(`${group}: simulated time stayed at ${t}`);
    };
    for (const c of cases) {
      if (c.group !== group) {
        await closeGroup();
        group = c.group;
        if (simulation) groupStart = await time();
      }
      // The `get` is sent with the case (one round trip): the demo answers messages in order.
      const [reply, got] = await Promise.all([
        ask(frameId, c.message, { raw: c.raw }),
        c.parameter ? ask(frameId, { phyxel: 1, action: 'get', parameter: c.parameter }) : null,
      ]);
      const result = { reply };
      if (c.parameter) {
        result.after = got?.result?.[c.parameter];
        const control = doc.querySelector(`[data-param="${c.parameter}"]`)?.closest('.control');
        result.controlError = control?.querySelector('.control-error')?.textContent ?? null;
      }
      results.push(result);
    }
    await closeGroup();
    return { results, stalls };
  }, [frameId, cases, simulation]);
}

/** Send every message of `messages` at once (a flood) to frame `frameId`; resolves with the replies, in order. */
export function flood(page, frameId, messages, wait = 60_000) {
  return page.evaluate(([frameId, messages, wait]) => Promise.all(messages.map((m) => window.fuzz.ask(frameId, m, { wait }))), [frameId, messages, wait]);
}

/** The frame's long tasks since the last call (ms), and its JS heap after a garbage collection. */
export async function frameHealth(page, cdp, frameId) {
  await cdp.send('HeapProfiler.collectGarbage');
  return page.evaluate((frameId) => {
    const win = document.getElementById(frameId).contentWindow;
    const longTasks = [...win.__longTasks, ...window.__longTasks];
    win.__longTasks.length = 0;
    window.__longTasks.length = 0;
    return { longTasks, heap: win.performance.memory.usedJSHeapSize };
  }, frameId);
}
