// Where the 3D demo's CPU solver spends its time in the browser: V8's sampling profiler on every
// Web Worker of the page (the solver's worker and its thread pool's) and on the page's own thread,
// over the DevTools protocol, while the page runs as a user opens it. Not a test: run by hand after
// `./dev build`, with the worker's function names kept (`PHYXEL_WASM_NAMES=1 ./dev build`: wasm-opt -g;
// without them the wasm functions are numbers):
//
//   cd tests && PHYXEL_WEBGPU=0 node --test bench/worker-profile.test.mjs
//
// CASE: the page (default the struck slab, profiled once a crack has grown, as
// bench/fracture-step-times.test.mjs measures it); MS: how long to profile (default 6000). Writes one
// .cpuprofile per thread into $OUT (default /tmp/phyxel-profiles; DevTools' Performance panel opens
// them) and prints each thread's functions by self time and the solver's by inclusive time (summed
// over the pool's threads; a wall-clock sample, so a thread parked in Atomics.wait counts there).
import { test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { useBrowser, openPage } from '../e2e/harness.mjs';

const env = useBrowser();
const PAGE = process.env.CASE ?? 'phyxels.html?scene=struck-slab&resolution=18';
const MS = Number(process.env.MS ?? 6000);
const OUT = process.env.OUT ?? '/tmp/phyxel-profiles';
/** Functions listed per thread. */
const TOP = 25;

/** A function's name without Rust's crate hashes. */
const plain = (name) => name.replace(/\[[0-9a-f]{16}\]/g, '') || '(anonymous)';

/** Milliseconds per function in `profile`: self time, and inclusive time (each sample counted once
 * for every distinct function on its stack). */
function tally(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const own = new Map();
  const inclusive = new Map();
  profile.samples.forEach((id, k) => {
    const ms = (profile.timeDeltas[k] ?? 0) / 1000;
    const name = plain(nodes.get(id).callFrame.functionName);
    own.set(name, (own.get(name) ?? 0) + ms);
    const seen = new Set();
    for (let n = id; n !== undefined; n = parent.get(n)) seen.add(plain(nodes.get(n).callFrame.functionName));
    for (const name of seen) inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
  });
  return { own, inclusive };
}

const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
const line = ([name, ms], total) => `${ms.toFixed(1).padStart(9)} ms ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${name.slice(0, 140)}`;

test(`profile ${PAGE}`, async () => {
  fs.mkdirSync(OUT, { recursive: true });
  // The workers are targets of their own: found as they start, attached to (the old session-less
  // messages of the Target domain, which Playwright's CDP session carries) once the page is ready.
  const browserSession = await env.browser.newBrowserCDPSession();
  const workers = new Map();
  const pending = new Map();
  let nextId = 1;
  browserSession.on('Target.targetCreated', ({ targetInfo }) => targetInfo.type === 'worker' && workers.set(targetInfo.targetId, targetInfo));
  browserSession.on('Target.receivedMessageFromTarget', ({ message }) => {
    const reply = JSON.parse(message);
    pending.get(reply.id)?.(reply);
    pending.delete(reply.id);
  });
  const call = (sessionId, method, params = {}) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      browserSession.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
    });
  await browserSession.send('Target.setDiscoverTargets', { discover: true });
  const { page, context } = await openPage(env, PAGE);
  try {
    await page.waitForSelector('body[data-ready="true"]', { timeout: 120_000 });
    if (PAGE.includes('scene=')) {
      await page.waitForFunction(() => JSON.parse(document.body.dataset.fracture ?? '{"grown":1}').grown > 0, null, { timeout: 600_000, polling: 200 });
    }
    const sessions = [];
    for (const [targetId, info] of workers) {
      const { sessionId } = await browserSession.send('Target.attachToTarget', { targetId, flatten: false });
      for (const [method, params] of [['Profiler.enable'], ['Profiler.setSamplingInterval', { interval: 500 }], ['Profiler.start']]) await call(sessionId, method, params);
      sessions.push({ sessionId, name: `worker-${sessions.length}`, url: info.url });
    }
    const main = await context.newCDPSession(page);
    await main.send('Profiler.enable');
    await main.send('Profiler.setSamplingInterval', { interval: 500 });
    await main.send('Profiler.start');
    const state = () => page.evaluate(() => ({ time: window.phyxelDemo?.demo.time(), stepsPerSecond: document.getElementById('readout-steps-per-second')?.textContent }));
    const before = await state();
    await page.waitForTimeout(MS);
    const after = await state();
    const profiles = [{ name: 'page', profile: (await main.send('Profiler.stop')).profile }];
    for (const { sessionId, name } of sessions) profiles.push({ name, profile: (await call(sessionId, 'Profiler.stop')).result.profile });
    console.log(`${PAGE}: simulated ${before.time} → ${after.time} s in ${MS} ms; steps/s readout ${before.stepsPerSecond} → ${after.stepsPerSecond}`);
    const solver = new Map();
    let span = 0;
    for (const { name, profile } of profiles) {
      fs.writeFileSync(path.join(OUT, `${name}.cpuprofile`), JSON.stringify(profile));
      const { own, inclusive } = tally(profile);
      const total = [...own.values()].reduce((a, b) => a + b, 0);
      console.log(`\n${name}: ${total.toFixed(0)} ms sampled, by self time`);
      top(own, TOP).forEach((entry) => console.log(line(entry, total)));
      if (name === 'page') continue;
      span += total;
      for (const [f, ms] of inclusive) if (/phyxel/.test(f)) solver.set(f, (solver.get(f) ?? 0) + ms);
    }
    console.log(`\nthe solver's functions over the workers, by inclusive time (of ${span.toFixed(0)} ms sampled on their threads)`);
    top(solver, 2 * TOP).forEach((entry) => console.log(line(entry, span)));
  } finally {
    await context.close();
  }
});
