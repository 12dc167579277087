// Hardening (issue 20): every page runs under the site's Content-Security-Policy with no violation;
// hostile URL parameters and messages are refused by name while the demo runs on; origin= normalises
// origins and fails closed, and <phyxel-demo> names its page's origin; whole numbers refuse fractions;
// the neighbourhood search's work budget, the expression budget and a flood of `step` messages.
// PHYXEL_WEBGPU: both — the 3D page must run under the policy with and without WebGPU; the other
// tests (2D pages, the 3D demo on its CPU backend) run in the WebGPU pass only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useBrowser, openPage, readNumber, settled, WEBGPU_PASS_ONLY } from './harness.mjs';
import { CONTENT_SECURITY_POLICY } from '../../web/serve.mjs';

const env = useBrowser();
const WEB = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');

/** Wait until `read()` satisfies `accept`; returns the value. */
async function waitFor(read, accept, what, timeout = 20_000) {
  const end = Date.now() + timeout;
  let value;
  while (Date.now() < end) {
    value = await read();
    if (accept(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.fail(`${what}: still ${JSON.stringify(value)}`);
}

/** Every CSP violation seen by the page and its frames. */
const violations = (page) => Promise.all(page.frames().map((frame) => frame.evaluate(() => window.__cspViolations ?? []).catch(() => []))).then((all) => all.flat());

test('every page is served with the policy and runs under it with no violation', async () => {
  const pages = readdirSync(WEB).filter((name) => name.endsWith('.html')).sort();
  assert.ok(pages.length >= 15, pages.join(', '));
  for (const name of pages) {
    // embed.html forwards to a lesson; the source viewer opens a file; the bench page is not run.
    const path = { 'embed.html': 'embed.html?demo=mls-gradient', 'source.html': 'source.html?file=crates/phyxel/src/lessons/pbd.rs' }[name] ?? name;
    const response = await fetch(env.baseUrl + path);
    assert.equal(response.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY, name);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff', name);
    const { page, context, problems } = await openPage(env, path);
    // index.html and bench.html have no ready mark: their badge is the last thing they fill in.
    if (['index.html', 'bench.html'].includes(name)) await page.waitForFunction(() => document.getElementById('backend-badge')?.dataset.webgpu !== 'pending');
    else await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
    if (await page.locator('#embed-button').count()) {
      await page.click('#embed-button');
      await page.click('#embed-close');
    }
    await page.waitForTimeout(700);
    assert.deepEqual(await violations(page), [], name);
    assert.deepEqual(problems, [], name);
    await context.close();
  }
});

test('the policy is enforced and its violations are caught (the check above can fail)', WEBGPU_PASS_ONLY, async () => {
  const { page, context, problems } = await openPage(env, 'index.html');
  const blocked = await page.evaluate(async () => {
    const div = document.createElement('div');
    div.innerHTML = '<span style="color: rgb(255, 0, 0)">x</span>';
    document.body.append(div);
    const script = document.createElement('script');
    script.textContent = 'window.inlineRan = true;';
    document.body.append(script);
    // A string timer is compiled later, as the page's own code: what eval would do.
    setTimeout('window.evalRan = true', 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { colour: getComputedStyle(div.firstChild).color, inlineRan: window.inlineRan === true, evalRefused: window.evalRan !== true };
  });
  assert.notEqual(blocked.colour, 'rgb(255, 0, 0)', 'a style attribute in markup is refused');
  assert.equal(blocked.inlineRan, false, 'an inline script is refused');
  assert.equal(blocked.evalRefused, true, 'a string compiled as code (eval) is refused');
  const seen = await violations(page);
  assert.ok(seen.some((v) => v.startsWith('style-src-attr')), seen.join('\n'));
  assert.ok(seen.some((v) => v.startsWith('script-src-elem')), seen.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('console error: CSP violation')), 'the harness reports them as problems');
  await context.close();
});

test('inherited property names in the URL are named as unknown parameters; the demo runs', WEBGPU_PASS_ONLY, async () => {
  for (const path of ['pbd.html?constructor=1&__proto__=1&toString=1&iterations=5', 'embed.html?demo=kernels&constructor=1&__proto__=1&toString=1&h=0.5']) {
    const { page, context, problems } = await openPage(env, path);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
    const notices = await page.locator('#notices').textContent();
    for (const name of ['constructor', '__proto__', 'toString']) assert.match(notices, new RegExp(`Unknown URL parameter “${name}” was ignored\\. This demo's parameters are: `), path);
    if (path.startsWith('pbd')) {
      assert.equal(await page.inputValue('#param-iterations'), '5');
      const t = await readNumber(page, '#readout-sim-time');
      await waitFor(() => readNumber(page, '#readout-sim-time'), (s) => s > t + 0.05, 'simulated time');
    } else {
      assert.equal(await page.inputValue('#param-h'), '0.5');
    }
    assert.deepEqual(problems, [], path);
    await context.close();
  }
});

/** In the site's index page: an iframe of `src`, and ask(message) → its reply (null after `wait` ms). */
async function frameDriver(page, id, src) {
  await page.evaluate(([id, src]) => {
    window.replies ??= new Map();
    window.ready ??= new Set();
    window.nextId ??= 1;
    if (!window.listening) {
      window.listening = true;
      addEventListener('message', (event) => {
        const frame = [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === event.source);
        if (event.data?.event === 'ready' && frame) window.ready.add(frame.id);
        if (event.data && 'ok' in event.data) window.replies.get(event.data.id)?.(event.data);
      });
    }
    const frame = document.createElement('iframe');
    frame.id = id;
    frame.src = src;
    frame.width = 640;
    frame.height = 400;
    document.body.prepend(frame);
  }, [id, src]);
  return (message, wait = 3000) => page.evaluate(([id, message, wait]) => new Promise((resolve) => {
    const key = window.nextId++;
    window.replies.set(key, resolve);
    document.getElementById(id).contentWindow.postMessage({ ...message, id: key }, '*');
    setTimeout(() => resolve(null), wait);
  }), [id, message, wait]);
}

test('messages: inherited action, field and parameter names get a clear refusal; the demo keeps its state', WEBGPU_PASS_ONLY, async () => {
  const { page, context, problems } = await openPage(env, 'index.html');
  const ask = await frameDriver(page, 'pbd', 'pbd.html?embed=1&iterations=4');
  await waitFor(() => page.evaluate(() => window.ready.has('pbd')), Boolean, 'ready');
  const refusals = [
    [{ phyxel: 1, action: 'constructor' }, /^Unknown action "constructor": use one of describe, get, set/],
    [{ phyxel: 1, action: '__proto__' }, /^Unknown action "__proto__"/],
    [{ phyxel: 1, action: 'toString' }, /^Unknown action "toString"/],
    [{ phyxel: 1, action: 'hasOwnProperty' }, /^Unknown action "hasOwnProperty"/],
    [{ phyxel: 1, action: 'get', constructor: 1 }, /^Unknown field “constructor” for get\.$/],
    [{ phyxel: 1, action: 'get', parameter: 'constructor' }, /^Unknown parameter "constructor": this demo's are scene, solver, iterations/],
    [{ phyxel: 1, action: 'set', parameter: '__proto__', value: 1 }, /^Unknown parameter "__proto__"/],
    [{ phyxel: 1, action: 'set', parameter: 'toString', value: 1 }, /^Unknown parameter "toString"/],
    [{ phyxel: 1, action: 'set', parameter: 'iterations', value: 4.5 }, /^iterations=4\.5 was refused: Must be a whole number\.$/],
    [{ phyxel: 1, action: 'set', parameter: 'iterations', value: 'x'.repeat(20_000) }, /^value is 20000 characters long: at most 10000/],
  ];
  for (const [message, error] of refusals) {
    const reply = await ask(message);
    assert.ok(reply && reply.ok === false, `${JSON.stringify(message).slice(0, 100)} → ${JSON.stringify(reply)}`);
    assert.match(reply.error, error);
  }
  assert.deepEqual((await ask({ phyxel: 1, action: 'get', parameter: 'iterations' })).result, { iterations: '4' });
  const t = (await ask({ phyxel: 1, action: 'readouts' })).result.values['sim-time'];
  await waitFor(async () => (await ask({ phyxel: 1, action: 'readouts' })).result.values['sim-time'], (s) => s > t + 0.05, 'still running');
  assert.deepEqual(problems, []);
  await context.close();
});

test('origin= is normalised and fails closed; <phyxel-demo> names its page’s origin', WEBGPU_PASS_ONLY, async () => {
  const { page, context, problems } = await openPage(env, 'index.html');
  const site = env.baseUrl.replace(/\/$/, '');
  const upper = site.replace('http://', 'HTTP://');
  const normalised = await frameDriver(page, 'normalised', `embed.html?demo=kernels&origin=${encodeURIComponent(`${upper}/`)}`);
  const withPath = await frameDriver(page, 'path', `embed.html?demo=kernels&origin=${encodeURIComponent(`${site}/course`)}`);
  const mixed = await frameDriver(page, 'mixed', `embed.html?demo=kernels&origin=${encodeURIComponent(`https://school.example:443,${site}/x`)}`);
  await waitFor(() => page.evaluate(() => window.ready.has('normalised')), Boolean, 'ready sent to the normalised origin');
  assert.deepEqual((await normalised({ phyxel: 1, action: 'get', parameter: 'h' })).result, { h: '1' }, 'answered');
  // The entries with a path are refused: no page may drive these two, and each says why.
  for (const [id, ask] of [['path', withPath], ['mixed', mixed]]) {
    await page.frameLocator(`#${id}`).locator('body[data-ready="true"]').waitFor({ state: 'attached', timeout: 20_000 });
    assert.equal(await ask({ phyxel: 1, action: 'get' }, 1500), null, `${id}: not answered`);
  }
  assert.match(await page.frameLocator('#path').locator('#notices').textContent(), /is not an origin \(no path: “\/course”\)\. Messages are accepted only from no page\./);
  assert.match(await page.frameLocator('#mixed').locator('#notices').textContent(), /Messages are accepted only from https:\/\/school\.example\./);
  assert.equal(await page.evaluate(() => window.ready.has('path') || window.ready.has('mixed')), false, 'no ready event either');

  // The element: its iframe carries this page's origin, and answers this page.
  const element = await page.evaluate(async () => {
    await import('./js/phyxel-demo.js');
    const demo = document.createElement('phyxel-demo');
    demo.setAttribute('demo', 'kernels');
    document.body.prepend(demo);
    await demo.ready;
    const frame = demo.shadowRoot.querySelector('iframe');
    return {
      origin: new URL(frame.src).searchParams.get('origin'),
      sheets: demo.shadowRoot.adoptedStyleSheets.length,
      styleElements: demo.shadowRoot.querySelectorAll('style').length,
      h: await demo.get('h'),
    };
  });
  assert.deepEqual(element, { origin: site, sheets: 1, styleElements: 0, h: { h: '1' } });
  await page.waitForTimeout(300);
  assert.deepEqual(await violations(page), []);
  assert.deepEqual(problems.filter((p) => !/ignored messages from/.test(p)), []);
  await context.close();
});

test('whole numbers refuse fractions at their controls, which keep the value running', WEBGPU_PASS_ONLY, async () => {
  const { page, context, problems } = await openPage(env, 'sph-approximation.html?seed=1.5');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  assert.match(await page.locator('#notices').textContent(), /URL parameter seed=1\.5 was refused: Must be a whole number\. Using 1\./);
  assert.match(await page.locator('#param-seed-error').textContent(), /Must be a whole number\. Still using 1\./);
  assert.deepEqual(problems, []);
  await context.close();

  const demo = await openPage(env, 'phyxels.html?resolution=10.5&backend=cpu');
  await demo.page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  assert.match(await demo.page.locator('#notices').textContent(), /URL parameter resolution=10\.5 was refused: Must be a whole number\. Using 10\./);
  assert.match(await demo.page.locator('#param-resolution-error').textContent(), /Must be a whole number\. Still using 10\./);
  assert.equal(await demo.page.inputValue('#param-resolution'), '10.5', 'the text stays for the reader to correct');
  await waitFor(() => demo.page.locator('#readout-phyxels').textContent(), (s) => /1000/.test(s), 'the 10³ cube runs');
  assert.deepEqual(demo.problems, []);
  await demo.context.close();
});

test('neighbourhood search: count × radius beyond the work budget is refused before any work, the limit named', WEBGPU_PASS_ONLY, async () => {
  const { page, context, problems } = await openPage(env, 'neighbourhood-search.html?count=20000&radius=0.5');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  const refusal = /20000 particles with radius 0\.5 would make about 7\.9e7 neighbour pairs per search \(n\(n−1\)πh²\/4\): at most 4e6 are allowed; lower the count or the radius\. Still using 0\.1\./;
  await waitFor(() => page.locator('#param-radius-error').textContent(), (s) => refusal.test(s), 'the radius is refused at its control');
  await settled(page, 30_000);
  assert.equal(await page.locator('#param-count-error').textContent(), '');
  const t = await readNumber(page, '#readout-sim-time');
  await waitFor(() => readNumber(page, '#readout-sim-time'), (s) => s > t, 'the 20000 particles move at radius 0.1');
  assert.deepEqual(problems, []);
  await context.close();

  // The other order: the count is refused with the radius in force.
  const other = await openPage(env, 'neighbourhood-search.html?radius=0.5&count=20000');
  await other.page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  await waitFor(() => other.page.locator('#param-count-error').textContent(), (s) => /20000 particles with radius 0\.5 would make about 7\.9e7 neighbour pairs.*at most 4e6 are allowed.*Still using 1000\./.test(s), 'the count is refused');
  assert.match(await other.page.locator('#readout-mean-neighbours').textContent(), /^\d/);
  assert.deepEqual(other.problems, []);
  await other.context.close();
});

test('expressions: hostile input is refused or computed quickly, the figure keeps running', WEBGPU_PASS_ONLY, async () => {
  const deep = `${'-'.repeat(3000)}x`;
  const { page, context, problems } = await openPage(env, `sph-approximation.html?expression=${encodeURIComponent(deep)}`);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  assert.match(await page.locator('#notices').textContent(), /URL parameter expression=-{80}… \(3001 characters\) was refused: The expression is 3001 characters long: at most 300 are allowed\./);
  const ask = await frameDriver(page, 'fig', 'sph-approximation.html?embed=1');
  await waitFor(() => page.evaluate(() => window.ready.has('fig')), Boolean, 'ready');
  const nestedSin = `${'sin('.repeat(25)}x${')'.repeat(25)}`;
  const sum = Array.from({ length: 50 }, () => 'x*y').join(' + ');
  const cases = [
    [`${'-'.repeat(299)}x`, /^expression=-{80}… \(300 characters\) was refused: The expression is nested 299 levels deep: at most 30 are allowed\.$/],
    [`${'('.repeat(40)}x${')'.repeat(40)}`, /was refused: The expression is nested 40 levels deep: at most 30 are allowed\.$/],
    [`${'sin('.repeat(31)}x${')'.repeat(31)}`, /was refused: The expression is nested 31 levels deep/],
    ['x'.repeat(301), /was refused: The expression is 301 characters long: at most 300/],
    [Array.from({ length: 70 }, () => 'x*y').join('+'), /was refused: The expression has 279 terms and operations: at most 200 are allowed\.$/],
    ['constructor(x)', /was refused: Unknown function constructor\.$/],
    ['x.constructor', /was refused: /],
    ['__proto__', /was refused: Unknown variable __proto__\.$/],
  ];
  for (const [expression, error] of cases) {
    const reply = await ask({ phyxel: 1, action: 'set', parameter: 'expression', value: expression });
    assert.ok(reply && reply.ok === false, `${expression.slice(0, 40)} → ${JSON.stringify(reply)}`);
    assert.match(reply.error, error);
  }
  for (const expression of [nestedSin, sum]) {
    const start = Date.now();
    const reply = await ask({ phyxel: 1, action: 'set', parameter: 'expression', value: expression }, 5000);
    assert.ok(reply?.ok, `${expression.slice(0, 40)}: ${JSON.stringify(reply)}`);
    assert.ok(Date.now() - start < 2000, `${expression.slice(0, 40)} took ${Date.now() - start} ms`);
  }
  assert.deepEqual((await ask({ phyxel: 1, action: 'get', parameter: 'expression' })).result, { expression: sum });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a flood of 1000 step messages: one at a time, the excess refused, a pause answered at once', WEBGPU_PASS_ONLY, async () => {
  const { page, context, problems } = await openPage(env, 'index.html');
  const ask = await frameDriver(page, 'pbd', 'pbd.html?embed=1');
  await waitFor(() => page.evaluate(() => window.ready.has('pbd')), Boolean, 'ready');
  const paused = await ask({ phyxel: 1, action: 'pause' });
  const outcome = await page.evaluate(() => new Promise((resolve) => {
    const frame = document.getElementById('pbd').contentWindow;
    const replies = [];
    const listener = (event) => {
      if (event.data && 'ok' in event.data && typeof event.data.id === 'string') replies.push(event.data);
    };
    addEventListener('message', listener);
    for (let k = 0; k < 1000; k++) frame.postMessage({ phyxel: 1, action: 'step', steps: 100, id: `s${k}` }, '*');
    const start = performance.now();
    frame.postMessage({ phyxel: 1, action: 'pause', id: 'pause' }, '*');
    const check = () => {
      const pause = replies.find((r) => r.id === 'pause');
      if (pause && replies.length >= 1001) {
        removeEventListener('message', listener);
        resolve({ replies, pauseMs: performance.now() - start });
      } else setTimeout(check, 50);
    };
    check();
  }));
  const steps = outcome.replies.filter((r) => r.id !== 'pause');
  const done = steps.filter((r) => r.ok);
  const refusedNow = steps.filter((r) => !r.ok && /8 step requests are already waiting/.test(r.error));
  const cancelled = steps.filter((r) => !r.ok && /This step was cancelled: a pause, play or restart came after it\./.test(r.error));
  assert.equal(refusedNow.length, 992, 'all but 8 refused at once');
  assert.equal(done.length + cancelled.length, 8);
  assert.ok(done.length >= 1 && done.length <= 2, `${done.length} ran before the pause cancelled the rest`);
  assert.ok(outcome.pauseMs < 10_000, `pause answered after ${outcome.pauseMs} ms`);
  const time = (await ask({ phyxel: 1, action: 'readouts' })).result.values['sim-time'];
  assert.ok(Math.abs(time - (paused.result.time + done.length * 100 * 0.005)) < 0.002, `${done.length} × 100 steps of 5 ms: ${paused.result.time} → ${time}`);
  await ask({ phyxel: 1, action: 'play' });
  await waitFor(async () => (await ask({ phyxel: 1, action: 'readouts' })).result.values['sim-time'], (s) => s > time + 0.05, 'runs again');
  assert.deepEqual(problems, []);
  await context.close();
});

test('explicit vs implicit: a step request is bounded by its explicit substeps, checked before any work, the limit named', WEBGPU_PASS_ONLY, async () => {
  const { page, context, problems } = await openPage(env, 'index.html');
  const ask = await frameDriver(page, 'beams', 'explicit-implicit.html?embed=1&paused=1&explicitDt=1e-5');
  await waitFor(() => page.evaluate(() => window.ready.has('beams')), Boolean, 'ready');
  const paused = await ask({ phyxel: 1, action: 'pause' }, 60_000);
  assert.equal(paused?.ok, true, JSON.stringify(paused));
  const refused = await ask({ phyxel: 1, action: 'step', steps: 1000 }, 60_000);
  assert.equal(refused?.ok, false, JSON.stringify(refused));
  assert.equal(refused.error, 'The step failed: 1000 frames of 1/60 s at explicit Δt = 0.00001 s would be 1.7e+6 explicit substeps: at most 1e+5 are allowed in one request; ask for fewer steps or a larger explicit Δt');
  const after = (await ask({ phyxel: 1, action: 'readouts' })).result.values['sim-time'];
  assert.equal(after, paused.result.time, 'no frame was simulated');
  // Within the budget: one frame at 10 µs (1667 substeps) is taken.
  const taken = await ask({ phyxel: 1, action: 'step', steps: 1 }, 60_000);
  assert.equal(taken?.ok, true, JSON.stringify(taken));
  assert.ok(Math.abs(taken.result.time - (paused.result.time + 1 / 60)) < 1e-6, `${paused.result.time} → ${taken.result.time}`);
  assert.deepEqual(problems, []);
  await context.close();
});
