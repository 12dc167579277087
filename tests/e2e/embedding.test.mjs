// Embedding: URL state and "Copy link" on a lesson; the chrome-less embed view; a course page on a
// second origin (not cross-origin isolated) that embeds two demos by iframe and one by custom element
// and drives them by postMessage; bad messages, bad URL parameters and foreign origins; the docs page.
// PHYXEL_WEBGPU: both — every demo embedded, the 3D one choosing its solver by the flag.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { useBrowser, openPage, readNumber } from './harness.mjs';

const env = useBrowser();

/** A second origin (another port) serving course pages that embed the site's demos. */
const course = { server: null, url: '', pages: new Map() };
before(async () => {
  course.server = createServer((request, response) => {
    const html = course.pages.get(new URL(request.url, 'http://x').pathname);
    response.writeHead(html ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(html ?? 'Not found');
  });
  await new Promise((resolve) => course.server.listen(0, '127.0.0.1', resolve));
  course.url = `http://127.0.0.1:${course.server.address().port}`;
});
after(() => new Promise((resolve) => course.server.close(resolve)));

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

test('every control is a URL parameter: bad ones are named, defaults used; Copy link and Embed reproduce the set-up', async () => {
  const { page, context, problems } = await openPage(env, 'pbd.html?solver=xpbd&compliance=0.001&iterations=abc&bogus=3&paused=maybe');
  await page.waitForSelector('body[data-ready="true"]');
  assert.equal(await page.locator('#solver-select').inputValue(), 'xpbd');
  assert.equal(await page.locator('#param-compliance').inputValue(), '0.001');
  assert.equal(await page.locator('#param-compliance').isVisible(), true, 'the XPBD control is shown');
  assert.match(await page.locator('#param-iterations-error').textContent(), /“abc” is not a number\. Still using 2\./);
  const notices = page.locator('#notices');
  assert.match(await notices.textContent(), /URL parameter iterations=abc was refused: “abc” is not a number\. Using 2\./);
  assert.match(await notices.textContent(), /Unknown URL parameter “bogus” was ignored\. This demo's parameters are: scene, solver, iterations/);
  assert.match(await notices.textContent(), /URL parameter paused=maybe was ignored/);
  // The demo runs regardless.
  const t = await readNumber(page, '#readout-sim-time');
  await waitFor(() => readNumber(page, '#readout-sim-time'), (s) => s > t + 0.05, 'simulated time');

  // Copy link: the address reproduces the changed controls only.
  await page.fill('#param-iterations', '7');
  await page.click('#copy-link');
  await waitFor(() => page.locator('#share-status').textContent(), (s) => s.length > 0, 'share status');
  const link = new URL(page.url());
  assert.deepEqual(Object.fromEntries(link.searchParams), { solver: 'xpbd', iterations: '7', compliance: '0.001' });
  // Opened afresh, the link gives the same controls.
  const again = await context.newPage();
  await again.goto(link.href);
  await again.waitForSelector('body[data-ready="true"]');
  assert.equal(await again.locator('#param-iterations').inputValue(), '7');
  assert.equal(await again.locator('#solver-select').inputValue(), 'xpbd');
  assert.equal(await again.locator('#notices .notice').count(), 0, 'no complaints about its own link');

  // Embed: the snippets carry the same state.
  await page.click('#embed-button');
  const iframe = await page.locator('#embed-iframe').inputValue();
  assert.match(iframe, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/embed\.html\?demo=pbd&amp;solver=xpbd&amp;iterations=7&amp;compliance=0\.001"/);
  await page.uncheck('#embed-controls');
  assert.match(await page.locator('#embed-iframe').inputValue(), /compliance=0\.001&amp;controls=0|controls=0/);
  assert.match(await page.locator('#embed-element').inputValue(), /<phyxel-demo demo="pbd" solver="xpbd" iterations="7" compliance="0\.001"><\/phyxel-demo>/);
  await page.click('#embed-close');
  assert.deepEqual(problems, []);
  await context.close();
});

test('embed.html opens a demo chrome-less, filling the frame; narrow frames fold the controls; unknown demos are explained', async () => {
  const { page, context, problems } = await openPage(env, 'embed.html?demo=pbd&controls=0&iterations=5', { viewport: { width: 800, height: 450 } });
  await page.waitForSelector('body[data-ready="true"]');
  assert.match(page.url(), /\/pbd\.html\?embed=1&controls=0&iterations=5$/);
  assert.equal(await page.locator('.site-header').isVisible(), false);
  assert.equal(await page.locator('.theory').isVisible(), false);
  assert.equal(await page.locator('#param-iterations').isVisible(), false, 'controls=0 hides the controls');
  assert.equal(await page.locator('#param-iterations').inputValue(), '5', 'but the parameter is applied');
  assert.equal(await page.locator('#readout-sim-time').isVisible(), true, 'the readouts stay');
  const canvas = await page.locator('#scene').boundingBox();
  assert.ok(canvas.height > 0.8 * 450 && canvas.width > 0.5 * 800, `the canvas fills the frame: ${canvas.width}×${canvas.height}`);
  assert.match(await page.locator('.embed-open').getAttribute('href'), /\/pbd\.html\?iterations=5$/);
  await context.close();

  // A phone-sized frame: the canvas takes the width, the controls open over it on demand.
  const narrow = await openPage(env, 'embed.html?demo=time-integration', { viewport: { width: 360, height: 480 }, hasTouch: true });
  await narrow.page.waitForSelector('body[data-ready="true"]');
  const toggle = narrow.page.locator('.embed-toggle');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await narrow.page.locator('#param-dt').isVisible(), false);
  assert.ok((await narrow.page.locator('#scene').boundingBox()).width > 300);
  await toggle.tap();
  assert.equal(await narrow.page.locator('#param-dt').isVisible(), true);
  assert.deepEqual([...problems, ...narrow.problems], []);
  await narrow.context.close();

  const unknown = await openPage(env, 'embed.html?demo=rocket');
  await unknown.page.waitForSelector('body[data-ready="true"]');
  assert.match(await unknown.page.locator('#embed-error').textContent(), /There is no demo “rocket”/);
  assert.ok(await unknown.page.locator('#embed-demos a[href="embed.html?demo=phyxels"]').count());
  await unknown.context.close();
});

test('an embedded demo works by touch', async () => {
  const { page, context, problems } = await openPage(env, 'embed.html?demo=pbd', { viewport: { width: 390, height: 600 }, hasTouch: true, isMobile: true });
  await page.waitForSelector('body[data-ready="true"]');
  // The pinned top-left corner of the cloth is drawn red; pinned, it moves only when dragged.
  // Red pixels in page coordinates: the pinned corners.
  const redPixels = () => page.evaluate(() => {
    const canvas = document.getElementById('scene');
    const { data, width } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const rect = canvas.getBoundingClientRect();
    const red = [];
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] > 200 && data[i + 1] < 60 && data[i + 2] < 60) {
        red.push([rect.x + (((i / 4) % width) + 0.5) * (rect.width / width), rect.y + (Math.floor(i / 4 / width) + 0.5) * (rect.height / canvas.height)]);
      }
    }
    return red;
  });
  const nearest = (pixels, [px, py]) => Math.min(...pixels.map(([a, b]) => Math.hypot(a - px, b - py)));
  const first = await waitFor(redPixels, (r) => r.length > 0, 'a pinned particle is drawn');
  const [x, y] = first[0].map((c) => c + 1);
  const target = [x + 80, y + 96];
  const touch = await context.newCDPSession(page);
  await touch.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
  for (let k = 1; k <= 8; k++) await touch.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: x + 10 * k, y: y + 12 * k }] });
  // The corner follows the finger: a red particle appears under it, none is left where it started.
  const after = await waitFor(redPixels, (r) => nearest(r, target) < 8, 'the finger drags the pinned corner');
  assert.ok(nearest(after, [x, y]) > 30, 'the corner left its place');
  await touch.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  assert.equal(await page.evaluate(() => window.scrollY), 0, 'the drag did not scroll the page');
  assert.deepEqual(problems, []);
  await context.close();
});

/** The course page: two iframes, one element, a restricted iframe and one far below the fold. */
function coursePage() {
  const site = env.baseUrl.replace(/\/$/, '');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Course page</title>
<script type="module" src="${site}/js/phyxel-demo.js"></script></head>
<body>
<h1>Week 3: constraints</h1>
<iframe id="pbd" src="${site}/embed.html?demo=pbd&iterations=4" width="640" height="360"></iframe>
<iframe id="integrators" src="${site}/embed.html?demo=time-integration&dt=0.02&bogus=1" width="640" height="360"></iframe>
<phyxel-demo id="kernels" demo="kernels" h="0.5" style="width: 640px"></phyxel-demo>
<iframe id="restricted" src="${site}/embed.html?demo=pbd&origin=https://school.example" width="320" height="200"></iframe>
<div style="height: 4000px"></div>
<iframe id="below" src="${site}/embed.html?demo=pbd" width="320" height="200"></iframe>
<script>
  window.ready = new Set();
  window.replies = new Map();
  let next = 1;
  addEventListener('message', (event) => {
    if (event.origin !== '${site}' || event.data?.phyxel !== 1) return;
    const frame = [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === event.source);
    if (event.data.event === 'ready' && frame) window.ready.add(frame.id);
    if ('ok' in event.data) window.replies.get(event.data.id)?.(event.data);
  });
  /** Post \`message\` (with a fresh id when it is an object) to iframe #id; resolves to the reply or null after 2 s. */
  window.ask = (id, message) => new Promise((resolve) => {
    const key = next++;
    const body = message && typeof message === 'object' ? { ...message, id: key } : message;
    window.replies.set(key, resolve);
    if (!(message && typeof message === 'object')) window.replies.set(null, resolve);
    document.getElementById(id).contentWindow.postMessage(body, '${site}');
    setTimeout(() => resolve(null), 2000);
  });
</script>
</body></html>`;
}

test('a course page on another origin embeds demos by iframe and element and drives them by messages', async () => {
  course.pages.set('/course.html', coursePage());
  const { page, context, problems } = await openPage(env, `${course.url}/course.html`, {}, { alsoAllowed: [course.url] });
  assert.equal(await page.evaluate(() => window.crossOriginIsolated), false, 'the course page is not isolated');
  await waitFor(() => page.evaluate(() => [...window.ready].sort()), (r) => r.includes('pbd') && r.includes('integrators'), 'ready events');
  const ask = (id, message) => page.evaluate(([id, message]) => window.ask(id, message), [id, message]);
  const pbd = page.frameLocator('#pbd');

  // describe / set / get.
  const described = await ask('pbd', { phyxel: 1, action: 'describe' });
  assert.equal(described.ok, true);
  assert.equal(described.result.demo, 'pbd');
  assert.equal(described.result.parameters.find((p) => p.name === 'iterations').value, '4', 'the iframe URL set it');
  assert.deepEqual(await ask('pbd', { phyxel: 1, action: 'set', parameter: 'iterations', value: 9 }), { phyxel: 1, id: 1 + 1, ok: true, result: { iterations: '9' } });
  assert.equal(await pbd.locator('#param-iterations').inputValue(), '9', 'the control shows it');
  // pause, step 10 × Δt = 5 ms, read the readout.
  const paused = await ask('pbd', { phyxel: 1, action: 'pause' });
  assert.equal(paused.result.running, false);
  const step = await ask('pbd', { phyxel: 1, action: 'step', steps: 10 });
  assert.ok(Math.abs(step.result.time - paused.result.time - 0.05) < 1e-9, `10 steps of 5 ms: ${paused.result.time} → ${step.result.time}`);
  const readouts = await ask('pbd', { phyxel: 1, action: 'readouts' });
  assert.equal(readouts.result.values['sim-time'], Number(step.result.time.toFixed(3)));
  assert.match(readouts.result.texts.counts, /1200/);

  // Bad messages: answered with a clear error, and nothing changes.
  const refusals = [
    [{ phyxel: 1, action: 'fly' }, /Unknown action "fly"/],
    [{ phyxel: 1, action: 'set', parameter: 'iterations', value: 1000 }, /iterations=1000 was refused: Must be between 1 and 100/],
    [{ phyxel: 1, action: 'set', parameter: 'warp', value: 1 }, /Unknown parameter "warp"/],
    [{ phyxel: 1, action: 'step', steps: 0 }, /steps must be a whole number from 1 to 1000/],
    [{ phyxel: 1, action: 'pause', force: true }, /Unknown field “force”/],
    [{ action: 'pause' }, /needs phyxel: 1/],
    ['pause', /must be an object/],
  ];
  for (const [message, error] of refusals) {
    const reply = await ask('pbd', message);
    assert.ok(reply && reply.ok === false, `${JSON.stringify(message)} → ${JSON.stringify(reply)}`);
    assert.match(reply.error, error);
  }
  assert.deepEqual((await ask('pbd', { phyxel: 1, action: 'get', parameter: 'iterations' })).result, { iterations: '9' });
  assert.match(await pbd.locator('#param-iterations-error').textContent(), /Must be between 1 and 100\. Still using 9\./, 'the demo shows the refusal too');
  // …and the demo keeps running when told to.
  await ask('pbd', { phyxel: 1, action: 'play' });
  await waitFor(() => ask('pbd', { phyxel: 1, action: 'readouts' }), (r) => r.result.values['sim-time'] > step.result.time + 0.05, 'pbd runs again');

  // The second iframe: the bad URL parameter is named in the demo, which runs with the good one.
  const integrators = page.frameLocator('#integrators');
  await integrators.locator('#notices').getByText('Unknown URL parameter “bogus” was ignored').waitFor();
  assert.equal(await integrators.locator('#param-dt').inputValue(), '0.02');
  await waitFor(() => integrators.locator('#readout-sim-time').textContent(), (s) => parseFloat(s) > 0.1, 'the integrators run');

  // The element: attributes are parameters, methods are the message API.
  const element = await page.evaluate(async () => {
    const demo = document.getElementById('kernels');
    await demo.ready;
    const before = await demo.get('h');
    const set = await demo.set('h', 0.8);
    const refused = await demo.set('h', -4).catch((error) => error.message);
    const figure = await demo.play().catch((error) => error.message);
    demo.setAttribute('h', '1.5');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await demo.get('h');
    const readouts = await demo.readouts();
    return { before, set, refused, figure, after, readouts: Object.keys(readouts.texts) };
  });
  assert.deepEqual(element.before, { h: '0.5' });
  assert.deepEqual(element.set, { h: '0.8' });
  assert.match(element.refused, /h=-4 was refused: Must be between/);
  assert.match(element.figure, /interactive figure: it has no play/);
  assert.deepEqual(element.after, { h: '1.5' }, 'a changed attribute reaches the running demo');
  assert.ok(element.readouts.length > 0);

  // A demo restricted to another origin ignores this page's messages, and keeps running.
  assert.equal(await ask('restricted', { phyxel: 1, action: 'pause' }), null, 'no answer');
  await page.locator('#restricted').scrollIntoViewIfNeeded();
  await waitFor(() => page.frameLocator('#restricted').locator('#readout-sim-time').textContent(), (s) => parseFloat(s) > 0.2, 'restricted demo runs');

  // The demo far below the fold waits, and starts when scrolled into view.
  const below = page.frameLocator('#below');
  await below.locator('body[data-ready="true"]').waitFor({ state: 'attached' });
  assert.equal(await below.locator('body').getAttribute('data-visible'), 'false');
  assert.equal(await below.locator('#readout-sim-time').textContent(), '0.000 s', 'paused off-screen');
  await page.locator('#below').scrollIntoViewIfNeeded();
  await waitFor(() => below.locator('#readout-sim-time').textContent(), (s) => parseFloat(s) > 0.05, 'runs once seen');
  assert.deepEqual(problems, []);
  await context.close();
});

test('subscribed pages get readout, state and notice events', async () => {
  const site = env.baseUrl.replace(/\/$/, '');
  course.pages.set('/events.html', `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Events</title></head><body>
<iframe id="demo" src="${site}/embed.html?demo=time-integration" width="640" height="360"></iframe>
<script>
  window.events = [];
  addEventListener('message', (event) => { if (event.origin === '${site}' && event.data?.event) window.events.push(event.data); });
  window.send = (message) => document.getElementById('demo').contentWindow.postMessage(message, '${site}');
</script></body></html>`);
  // Stand in for a slow machine whatever CI runs on: the demo's animation frames arrive 50 ms apart.
  const slowFrames = `if (location.origin === '${site}') {
    const requestFrame = window.requestAnimationFrame.bind(window);
    let time = 0;
    window.requestAnimationFrame = (callback) => requestFrame(() => callback((time += 50)));
  }`;
  const { page, context, problems } = await openPage(env, `${course.url}/events.html`, {}, { alsoAllowed: [course.url], initScript: slowFrames });
  const events = (name) => page.evaluate((name) => window.events.filter((e) => e.event === name).map((e) => e.data), name);
  await waitFor(() => events('ready'), (e) => e.length === 1, 'ready');
  await page.evaluate(() => window.send({ phyxel: 1, action: 'subscribe', events: ['readouts', 'state', 'notice'] }));
  const readouts = await waitFor(() => events('readouts'), (e) => e.length >= 2, 'readouts events');
  assert.ok(readouts[1].values['sim-time'] > readouts[0].values['sim-time'], 'the readouts advance');
  await page.evaluate(() => window.send({ phyxel: 1, action: 'pause' }));
  await waitFor(() => events('state'), (s) => s.some((state) => state.running === false), 'state event');
  // Δt = 0.1 ms at 10× real time needs 5000 steps in a 50 ms frame, more than the 2000 a frame may take:
  // the demo says it runs slower than real time.
  await page.evaluate(() => {
    window.send({ phyxel: 1, action: 'set', parameter: 'dt', value: 0.0001 });
    window.send({ phyxel: 1, action: 'set', parameter: 'speed', value: 10 });
    window.send({ phyxel: 1, action: 'play' });
  });
  const notices = await waitFor(() => events('notice'), (n) => n.length >= 1, 'notice event');
  assert.equal(notices[0].key, 'slow');
  assert.match(notices[0].text, /cannot keep up: running slower than real time/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the docs page reads each demo’s parameters from the running demo and drives it', async () => {
  const { page, context, problems } = await openPage(env, 'embedding.html');
  await page.waitForSelector('body[data-ready="true"]');
  assert.match(await page.locator('[data-snippet="iframe"]').textContent(), new RegExp(`^<iframe src="${env.baseUrl}embed\\.html\\?demo=pbd`));
  await page.locator('#docs-frame').scrollIntoViewIfNeeded();
  await page.waitForSelector('body[data-parameters="pbd"]', { timeout: 20_000 });
  const names = await page.locator('#docs-parameters tbody tr td:first-child').allTextContents();
  assert.deepEqual(names.slice(0, 3), ['scene', 'solver', 'iterations']);
  await page.click('.docs-actions [data-action="step"]');
  await waitFor(() => page.locator('#docs-log').textContent(), (s) => /"ok": true/.test(s) && /"running": false/.test(s), 'step reply');
  await page.selectOption('#docs-demo', 'kernels');
  await page.waitForSelector('body[data-parameters="kernels"]', { timeout: 20_000 });
  assert.ok((await page.locator('#docs-parameters tbody tr td:first-child').allTextContents()).includes('h'));
  assert.deepEqual(problems, []);
  await context.close();
});

test('the 3D demo embedded by another origin (not isolated) runs its single-threaded worker and takes steps by message', async () => {
  const site = env.baseUrl.replace(/\/$/, '');
  course.pages.set('/solids.html', `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Solids</title></head><body>
<iframe id="demo" src="${site}/embed.html?demo=phyxels&backend=cpu" width="800" height="450"></iframe>
<script>
  window.replies = [];
  addEventListener('message', (event) => { if (event.origin === '${site}' && 'ok' in (event.data ?? {})) window.replies.push(event.data); });
  window.send = (message) => document.getElementById('demo').contentWindow.postMessage(message, '${site}');
</script></body></html>`);
  const { page, context, problems } = await openPage(env, `${course.url}/solids.html`, {}, { alsoAllowed: [course.url] });
  const demo = page.frameLocator('#demo');
  // Inside a frame without allow="cross-origin-isolated" there is no SharedArrayBuffer: the single build.
  await demo.locator('body[data-cpu-worker="single"]').waitFor({ timeout: 30_000 });
  assert.equal(await demo.locator('body').getAttribute('data-solver'), 'cpu');
  await waitFor(() => demo.locator('#readout-solver').textContent(), (s) => /^CPU: Web Worker, single-threaded build \(the page is not cross-origin isolated/.test(s), 'solver readout');
  await waitFor(() => demo.locator('#readout-sim-time').textContent(), (s) => parseFloat(s) > 0.1, 'the demo runs');
  // Paused, ten steps by message: the worker takes them and the frame's time moves by 10 Δt.
  await page.evaluate(() => window.send({ phyxel: 1, id: 1, action: 'pause' }));
  await waitFor(() => page.evaluate(() => window.replies.length), (n) => n === 1, 'pause reply');
  await page.waitForTimeout(300);
  const before = parseFloat(await demo.locator('#readout-sim-time').textContent());
  await page.evaluate(() => window.send({ phyxel: 1, id: 2, action: 'step', steps: 10 }));
  // Auto Δt = 0.880 ms for the default jelly cube: 10 steps are 8.8 ms.
  const after = await waitFor(() => demo.locator('#readout-sim-time').textContent(), (s) => parseFloat(s) > before, 'stepped time');
  assert.ok(Math.abs(parseFloat(after) - before - 0.0088) < 0.0015, `${before} s → ${after}`);
  assert.deepEqual(problems, []);
  await context.close();
});
