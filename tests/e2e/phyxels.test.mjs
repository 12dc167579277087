// The 3D phyxel demo: it simulates and draws, the pointer pulls and heats the object (and cuts and
// strikes the fracture scenes), a step beyond the stability bound is stopped and explained, and refused
// input leaves the simulation running.
// PHYXEL_WEBGPU: both — the 3D demo steps on WebGPU compute with the flag, on the CPU without.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, readNumber, screenshotPixels, waitForText, WEBGPU, solverChosen } from './harness.mjs';

const env = useBrowser({ browserPerTest: true });

async function openDemo(contextOptions = {}) {
  const opened = await openPage(env, 'phyxels.html', contextOptions);
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  return opened;
}

/** Wait until the readout `id` satisfies `accept(value)`; returns the value. */
async function waitForReadout(page, id, accept, timeout = 15_000) {
  const end = Date.now() + timeout;
  let value;
  while (Date.now() < end) {
    value = await readNumber(page, `#readout-${id}`);
    if (accept(value)) return value;
    await page.waitForTimeout(200);
  }
  assert.fail(`readout ${id} stayed at ${value}; ${await pageState(page)}`);
}

/** What a stalled wait reports: the page's flags, who steps and how it was last told to run, the notices. */
function pageState(page) {
  return page.evaluate(() => {
    const { solver } = window.phyxelDemo;
    const flags = ['solver', 'cpuWorker', 'busy', 'visible'].map((k) => `${k}=${document.body.dataset[k]}`).join(' ');
    const worker = `workerSteps=${solver.workerSteps} lastRun=${JSON.stringify(solver.cpu?.lastRun ?? null)}`;
    return `page: ${flags} ${worker}; notices: “${document.getElementById('notices').textContent.trim()}”`;
  });
}

/** Wait until the top of the body moves less than 2 mm while 0.1 s of simulated time passes (a pause
 * in the stepping — a backend switch, a busy machine — is not rest). */
async function waitForRest(page, timeout = 15_000) {
  const end = Date.now() + timeout;
  const sample = async () => ({ height: await readNumber(page, '#readout-height'), time: await readNumber(page, '#readout-sim-time') });
  let previous = await sample();
  while (Date.now() < end) {
    await page.waitForTimeout(300);
    const now = await sample();
    if (now.time < previous.time + 0.1) continue;
    if (Math.abs(now.height - previous.height) < 0.002) return;
    previous = now;
  }
  assert.fail('the body did not come to rest');
}

test('the cube falls, comes to rest on the ground and is drawn', async () => {
  const { page, context, problems } = await openDemo();
  assert.equal(await readNumber(page, '#readout-phyxels'), 1000, '10 × 10 × 10 phyxels');
  const neighbours = await readNumber(page, '#readout-mean-neighbours');
  // h = 2.2 spacings: 32 neighbours inside, fewer at faces, edges and corners.
  assert.ok(neighbours > 20 && neighbours < 32, `mean neighbours ${neighbours}`);
  // h√(ρ/E) with h = 2.2 × 0.04 m, ρ = 1000 kg/m³, E = 100 kPa: 8.80 ms; auto Δt is a tenth of it.
  assert.equal(await page.locator('#readout-cfl').textContent(), '8.80 ms');
  assert.equal(await page.locator('#readout-dt').textContent(), '0.880 ms');
  // Dropped from 0.3 m, the 0.4 m cube's top (0.7 m at the start) settles near 0.4 m.
  const top = await waitForReadout(page, 'height', (h) => h < 0.42 && h > 0.3);
  await waitForReadout(page, 'steps-per-second', (rate) => rate > 0);
  const renderer = await page.getAttribute('body', 'data-renderer');
  if (WEBGPU) {
    // WebGPU draws, or (headless SwiftShader loses the device at its first frame) the page says so
    // and WebGL2 takes over.
    assert.ok(
      renderer === 'WebGPU' || (renderer === 'WebGL2' && /WebGPU stopped drawing/.test(await page.locator('#notices').textContent())),
      `renderer ${renderer}`,
    );
  } else {
    assert.equal(renderer, 'WebGL2');
  }
  assert.match(await page.locator('#readout-renderer').textContent(), new RegExp(`^${renderer} \\(`));
  // The phyxels are drawn: blue sphere sprites cover a good part of the view.
  const blue = await screenshotPixels(page.locator('#scene'), (r, g, b) => b > r + 60 && b > g + 20);
  assert.ok(blue.count > 0.02 * blue.total, `${blue.count} of ${blue.total} pixels show the cube`);
  assert.ok(top > 0.3);
  assert.deepEqual(problems, []);
  await context.close();
});

test('dragging the cube pulls it up, heating it melts it, dragging the sky orbits', async () => {
  const { page, context, problems } = await openDemo();
  await waitForReadout(page, 'height', (h) => h < 0.42);
  let box = await page.locator('#scene').boundingBox();
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  // The camera looks at the cube's centre: pressing there picks a phyxel; moving up pulls it.
  await page.mouse.move(x, y);
  await page.mouse.down();
  assert.equal(await page.getAttribute('.view3d', 'data-action'), 'pull');
  for (let k = 1; k <= 10; k++) await page.mouse.move(x, y - 25 * k);
  await waitForReadout(page, 'height', (h) => h > 0.5);
  await page.mouse.up();
  assert.equal(await page.getAttribute('.view3d', 'data-action'), 'none');

  // Heat: the same press now heats; the hottest phyxel passes the melting range's middle.
  await page.selectOption('#param-tool', 'heat');
  await page.selectOption('#param-colourBy', 'temperature');
  await page.fill('#param-heatRate', '2000');
  // Filling a control may have scrolled the page: where the canvas is now.
  box = await page.locator('#scene').boundingBox();
  await waitForReadout(page, 'height', (h) => h < 0.45);
  await waitForRest(page);
  // Press where the cube now is (the drop may have moved and turned it): a point near its centre on
  // the screen whose ray the page's own pick confirms hits a phyxel.
  // Frame the camera on the cube where it came to rest (a fast pull may have thrown it aside).
  await page.evaluate(() => {
    const { demo, camera } = window.phyxelDemo;
    const [x, , z, r] = demo.bounds();
    camera.frame(x, 0.35, z, Math.max(r, 0.45));
  });
  let pressed = false;
  const tried = [];
  for (let attempt = 0; attempt < 5 && !pressed; attempt++) {
    const point = await page.evaluate(() => {
      const { demo, camera } = window.phyxelDemo;
      const [cx, cy, cz] = demo.bounds();
      const [u, v] = camera.project(cx, cy, cz);
      for (let ring = 0; ring <= 6; ring++) {
        for (let k = 0; k < Math.max(1, 8 * ring); k++) {
          const angle = (2 * Math.PI * k) / Math.max(1, 8 * ring);
          const [x, y] = [u + 0.01 * ring * Math.cos(angle), v + 0.01 * ring * Math.sin(angle)];
          const ray = camera.ray(x, y);
          if (demo.pick(ray.slice(0, 3), ray.slice(3), 0.5 * demo.spacing()) >= 0) return [x, y];
        }
      }
      return null;
    });
    tried.push({ point, bounds: await page.evaluate(() => window.phyxelDemo.demo.bounds()) });
    if (!point) continue;
    const [u, v] = point;
    await page.mouse.move(box.x + ((u + 1) / 2) * box.width, box.y + ((1 - v) / 2) * box.height);
    await page.mouse.down();
    pressed = (await page.getAttribute('.view3d', 'data-action')) === 'heat';
    if (!pressed) await page.mouse.up();
  }
  assert.ok(pressed, `the heat tool took hold of the cube (tried ${JSON.stringify(tried)})`);
  await waitForReadout(page, 'max-temperature', (t) => t > 60);
  await page.mouse.up();
  assert.equal(await page.getAttribute('.view3d', 'data-action'), 'none');
  // Orbit: dragging empty sky turns the camera (the top-left corner shows no object).
  const before = await page.evaluate(() => window.phyxelDemo.camera.ray(0, 0));
  await page.mouse.move(box.x + 20, box.y + 20);
  await page.mouse.down();
  assert.equal(await page.getAttribute('.view3d', 'data-action'), 'orbit');
  await page.mouse.move(box.x + 120, box.y + 40);
  await page.mouse.up();
  const after = await page.evaluate(() => window.phyxelDemo.camera.ray(0, 0));
  assert.ok(Math.hypot(after[0] - before[0], after[2] - before[2]) > 0.5, 'the eye moved around the target');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a step beyond the stability bound is stopped and explained; refused input changes nothing', async () => {
  const { page, context, problems } = await openDemo();
  // The resolution control refuses what the CPU solver cannot take, at the control.
  await page.fill('#param-resolution', '500');
  assert.match(await page.locator('#param-resolution-error').textContent(), /Must be between 3 and 60/);
  await page.fill('#param-resolution', '60');
  assert.match(await page.locator('#param-resolution-error').textContent(), /216000 phyxels .* lower the resolution\. Still using 10\./);
  await page.fill('#param-young', 'stiff');
  assert.match(await page.locator('#param-young-error').textContent(), /not a number/);
  assert.equal(await readNumber(page, '#readout-phyxels'), 1000);
  // Several objects: a new scene with three bodies.
  await page.selectOption('#param-scene', 'several');
  await waitForReadout(page, 'phyxels', (n) => n > 1000);
  // Δt = 6 ms: below h√(ρ/E) = 8.8 ms, but above what explicit integration of this lattice holds.
  await page.selectOption('#param-timeStep', 'manual');
  await page.fill('#param-dt', '0.006');
  const notice = page.locator('#notices .notice.error');
  await notice.waitFor({ timeout: 20_000 });
  assert.match(await notice.textContent(), /unstable .* h·√\(ρ\/E\)/);
  assert.equal(await page.locator('#pause').textContent(), 'Run', 'paused on the last good state');
  const height = await readNumber(page, '#readout-height');
  assert.ok(height > 0 && height < 2, `the last good state is shown (top at ${height} m)`);
  // Back to a stable step: Run continues.
  await page.selectOption('#param-timeStep', 'auto');
  await page.click('#pause');
  const t = await readNumber(page, '#readout-sim-time');
  await waitForReadout(page, 'sim-time', (s) => s > t + 0.05);
  assert.equal(await notice.count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the collide scene drops a ball on a cube; the GPU, which has no surface contact, hands it to the CPU', async (testContext) => {
  const { page, context, problems } = await openDemo();
  await solverChosen(page);
  const onGpu = (await page.getAttribute('body', 'data-solver')) === 'gpu';
  testContext.diagnostic(onGpu ? 'on the GPU before: the refusal is checked' : 'on the CPU from the start');
  await page.selectOption('#param-scene', 'collide');
  // 10 across: a cube of 8 × 8 × 8 and a ball of 280 phyxels.
  await waitForReadout(page, 'phyxels', (n) => n === 792);
  if (onGpu) {
    await page.waitForFunction(
      () => /no contact between objects/.test(document.getElementById('notices').textContent),
      null,
      { timeout: 20_000 },
    );
  }
  const t = await readNumber(page, '#readout-sim-time');
  await waitForReadout(page, 'sim-time', (s) => s > t + 0.05, 30_000);
  assert.equal(await page.locator('#notices .notice.error').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('implicit Euler lands a 1 GPa cube at 1/60 s, where the explicit step is stopped', async () => {
  const { page, context, problems } = await openDemo();
  // The integrator on the page, on the CPU whatever the browser grants (the GPU's implicit step is
  // checked against the CPU's by the wasm tests, and a software GPU takes seconds per step).
  await solverChosen(page);
  await page.selectOption('#param-backend', 'cpu');
  await page.waitForSelector('body[data-solver="cpu"]', { timeout: 10_000 });
  assert.equal(await page.locator('#param-cgTolerance').isVisible(), false, 'CG settings only for implicit Euler');
  assert.equal(await page.locator('#param-implicitModel').isVisible(), false);
  await page.selectOption('#param-integrator', 'implicit-euler');
  assert.equal(await page.locator('#param-cgTolerance').isVisible(), true);
  // The implicit integrator sums the elastic energy over background Gauss points by default.
  assert.equal(await page.locator('#param-implicitModel').inputValue(), 'quadrature');
  await waitForText(page, '#readout-integration', /^at Gauss points/);
  assert.equal(await page.locator('#param-cflFraction').isVisible(), false, 'no bound to take a fraction of');
  await page.fill('#param-young', '1e9');
  // h√(ρ/E) = 88 µs, 190 times shorter than the implicit step (the readouts refresh 4 times a second).
  await waitForReadout(page, 'cfl', (bound) => Math.abs(bound - 0.088) < 1e-6);
  assert.equal(await page.locator('#readout-cfl').textContent(), '0.0880 ms');
  await waitForReadout(page, 'dt', (dt) => Math.abs(dt - 16.7) < 0.05);
  // Dropped from 0.3 m, the stiff cube lands and keeps its shape: phyxel centres 9 × 0.04 m apart, the
  // lowest on the ground, so the top rests at 0.36 m.
  await waitForReadout(page, 'height', (h) => h < 0.4, 40_000);
  await waitForRest(page, 30_000);
  const top = await readNumber(page, '#readout-height');
  assert.ok(Math.abs(top - 0.36) < 0.004, `top at ${top} m`);
  const cg = await page.locator('#readout-cg').textContent();
  const [, iterations, residual] = cg.match(/^(\d+) \((\S+)\)$/) ?? [];
  // At rest a step may need no CG iteration (its warm start already meets the tolerance).
  assert.ok(Number(iterations) >= 0 && Number(residual) <= 1e-4, `CG readout “${cg}”`);
  assert.equal(await page.locator('#notices .notice.error').count(), 0);
  // The same material with symplectic Euler at the same 1/60 s: stopped, the bound named.
  await page.selectOption('#param-integrator', 'symplectic-euler');
  await page.selectOption('#param-timeStep', 'manual');
  await page.fill('#param-dt', String(1 / 60));
  const notice = page.locator('#notices .notice.error');
  await notice.waitFor({ timeout: 20_000 });
  assert.match(await notice.textContent(), /unstable .* h·√\(ρ\/E\) = 8\.80e-5 s/);
  assert.equal(await page.locator('#readout-cg').textContent(), '— (explicit)');
  assert.deepEqual(problems, []);
  await context.close();
});

test('on a touch screen one finger pulls the cube and two fingers pinch to zoom', async () => {
  const { page, context, problems } = await openDemo({ hasTouch: true, isMobile: true, viewport: { width: 412, height: 900 } });
  await waitForReadout(page, 'height', (h) => h < 0.42);
  const box = await page.locator('#scene').boundingBox();
  const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
  const cdp = await context.newCDPSession(page);
  const touch = (type, points) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map(([px, py], id) => ({ x: px, y: py, id })) });
  await touch('touchStart', [[x, y]]);
  assert.equal(await page.getAttribute('.view3d', 'data-action'), 'pull');
  for (let k = 1; k <= 8; k++) await touch('touchMove', [[x, y - 12 * k]]);
  await waitForReadout(page, 'height', (h) => h > 0.5);
  await touch('touchEnd', []);
  assert.equal(await page.getAttribute('.view3d', 'data-action'), 'none');
  // Pinch: two fingers moving apart bring the camera closer.
  const before = await page.evaluate(() => window.phyxelDemo.camera.distance());
  const top = box.y + 20;
  await touch('touchStart', [[box.x + 20, top]]);
  await touch('touchStart', [[box.x + 20, top], [box.x + 60, top]]);
  assert.equal(await page.getAttribute('.view3d', 'data-action'), 'pinch');
  for (let k = 1; k <= 5; k++) await touch('touchMove', [[box.x + 20, top], [box.x + 60 + 40 * k, top + 10 * k]]);
  await touch('touchEnd', []);
  const after = await page.evaluate(() => window.phyxelDemo.camera.distance());
  assert.ok(after < 0.8 * before, `pinching out zooms in (${before} → ${after})`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the solver runs on WebGPU compute where granted, and back on the CPU when the device is lost', async (testContext) => {
  const { page, context, problems } = await openDemo();
  // Where the browser grants WebGPU the page chooses it by itself; otherwise the CPU, silently.
  await solverChosen(page);
  if (WEBGPU && (await page.getAttribute('body', 'data-solver')) === 'cpu'
      && (await page.evaluate(async () => (await navigator.gpu.requestAdapter()) === null))) {
    // Headless SwiftShader sometimes withholds every adapter once a WebGPU canvas failed to present
    // (see README): then the CPU is the right choice, made silently.
    testContext.diagnostic('this browser granted no WebGPU adapter: checked the silent CPU choice only');
    assert.doesNotMatch(await page.locator('#notices').textContent(), /cannot run here/);
    assert.deepEqual(problems, []);
    await context.close();
    return;
  }
  assert.equal(await page.getAttribute('body', 'data-solver'), WEBGPU ? 'gpu' : 'cpu');
  assert.doesNotMatch(await page.locator('#notices').textContent(), /cannot run here/);
  if (WEBGPU) {
    // Back to the CPU: once the GPU's latest state is read back.
    await page.selectOption('#param-backend', 'cpu');
    await page.waitForSelector('body[data-solver="cpu"]', { timeout: 10_000 });
  }
  await page.selectOption('#param-backend', 'gpu');
  if (!WEBGPU) {
    // No adapter: refused with the reason, and the CPU keeps running.
    await page.waitForFunction(() => /cannot run here/.test(document.getElementById('notices').textContent));
    assert.equal(await page.getAttribute('body', 'data-solver'), 'cpu');
    assert.equal(await page.inputValue('#param-backend'), 'cpu');
    const t = await readNumber(page, '#readout-sim-time');
    await waitForReadout(page, 'sim-time', (s) => s > t + 0.05);
    assert.deepEqual(problems, []);
    await context.close();
    return;
  }
  await page.waitForSelector('body[data-solver="gpu"]', { timeout: 20_000 });
  assert.match(await page.locator('#readout-solver').textContent(), /^GPU: /);
  // The cube falls and settles on the GPU as it does on the CPU (its state read back for drawing).
  await waitForReadout(page, 'height', (h) => h < 0.42 && h > 0.3, 30_000);
  // A lost device: the demo says so and carries on on the CPU from the last state read back.
  await page.evaluate(() => window.phyxelDemo.gpu.lose());
  await page.waitForSelector('body[data-solver="cpu"]', { timeout: 20_000 });
  assert.match(await page.locator('#notices').textContent(), /GPU stopped .* continuing on the CPU/);
  assert.equal(await page.inputValue('#param-backend'), 'cpu');
  const t = await readNumber(page, '#readout-sim-time');
  await waitForReadout(page, 'sim-time', (s) => s > t + 0.05);
  const height = await readNumber(page, '#readout-height');
  assert.ok(height > 0.3 && height < 0.42, `the CPU continues from the GPU's state (top at ${height} m)`);
  assert.deepEqual(problems, []);
  await context.close();
});

/** The fracture readouts the page shows (body[data-fracture]), or null outside the fracture scene. */
async function fractureReadouts(page) {
  const json = await page.getAttribute('body', 'data-fracture');
  return json ? JSON.parse(json) : null;
}

/**
 * How long (ms) a fracture test waits for its scene to part. On a software GPU (SwiftShader) each batch
 * the device takes waits for a read-back of some 150 ms, and where anything may crack a batch is one
 * step (the page's copy cuts the cracks between batches): the ductile bar's last 0.4 s of simulated
 * time, some 400 steps, take about a minute there.
 */
const PARTING_WAIT_MS = WEBGPU ? 180_000 : 90_000;

/**
 * Where a fracture scene steps: with WebGPU on the GPU, which the page chose by itself (the device steps
 * the body, its grips or ball; the page's copy cuts the cracks between its batches) — unless this
 * browser granted no adapter (headless SwiftShader sometimes withholds it: then the CPU, said in a
 * diagnostic); without WebGPU on the CPU. Nothing says the backend cannot run the scene.
 */
async function fractureBackend(page, testContext) {
  const solver = await page.getAttribute('body', 'data-solver');
  if (WEBGPU && solver === 'cpu' && (await page.evaluate(async () => (await navigator.gpu.requestAdapter()) === null))) {
    testContext.diagnostic('this browser granted no WebGPU adapter: the scene steps on the CPU');
  } else {
    assert.equal(solver, WEBGPU ? 'gpu' : 'cpu');
  }
  assert.doesNotMatch(await page.locator('#notices').textContent(), /cannot run here/);
  testContext.diagnostic(`on the ${solver}`);
  return solver;
}

/**
 * On the GPU, the page's copy takes the device's state after its batches: at least `batches` read-backs,
 * waited for — the scene may have cracked on the CPU while the page chose its solver (the struck slab
 * broke after 23 in one CI run), and on the GPU it goes on stepping the pieces batch by batch.
 */
async function assertReadBack(page, solver, batches) {
  if (solver !== 'gpu') return;
  const reached = await page
    .waitForFunction((n) => window.phyxelDemo.readBacks >= n, batches, { timeout: 60_000 })
    .then(() => true, () => false);
  assert.ok(reached, `${await page.evaluate(() => window.phyxelDemo.readBacks)} read-backs`);
}

test('the notched bar cracks at its notch and parts in two, on the GPU with WebGPU and on the CPU; a non-positive strength is refused at its control', async (testContext) => {
  const { page, context, problems } = await openPage(env, 'phyxels.html?scene=notched-bar');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  await solverChosen(page);
  // 10 across: a bar of 24 × 5 × 5 phyxels, the notch a crack from the start, one piece.
  assert.equal(await readNumber(page, '#readout-phyxels'), 600);
  const solver = await fractureBackend(page, testContext);
  assert.equal(await page.locator('#param-strength').isVisible(), true, 'the Fracture group shows for the bar');
  assert.match(await page.locator('#readout-drawn').textContent(), /phyxels as spheres.*tick Surface mesh/);
  // A non-positive strength, crack speed or Ω_min is refused at its control, with the reason; the bar runs on.
  const t = await readNumber(page, '#readout-sim-time');
  for (const [key, value] of [['strength', '0'], ['strength', '-2000'], ['cProp', '0'], ['omegaMin', '0']]) {
    await page.fill(`#param-${key}`, value);
    assert.match(await page.locator(`#param-${key}-error`).textContent(), /Must be between .* Still using/, `${key} = ${value}`);
  }
  assert.equal(await page.locator('#notices .notice.error').count(), 0, await page.locator('#notices').textContent());
  await waitForReadout(page, 'sim-time', (s) => s > t + 0.05, 30_000);
  // Pulled over 1 s, the notch grows and the bar parts in two (about 0.6 s at these defaults).
  const end = Date.now() + PARTING_WAIT_MS;
  let readouts = await fractureReadouts(page);
  while (!(readouts?.fragments >= 2) && Date.now() < end) {
    await page.waitForTimeout(250);
    readouts = await fractureReadouts(page);
  }
  testContext.diagnostic(`at t = ${await readNumber(page, '#readout-sim-time')} s: ${JSON.stringify(readouts)}`);
  assert.ok(readouts.cracks >= 1 && readouts.grown >= 1, `a crack grew: ${JSON.stringify(readouts)}`);
  assert.equal(readouts.fragments, 2, 'two fragments');
  // The crack is at the notch: each phyxel's fragment is its side of the notch plane (x = 11.5 spacings).
  const sides = await page.evaluate(() => {
    const demo = window.phyxelDemo.demo;
    const pieces = Array.from(demo.fracture_pieces());
    const positions = demo.positions();
    const plane = 11.5 * demo.spacing();
    return pieces.map((piece, i) => [piece, positions[3 * i] < plane]);
  });
  const wrong = sides.filter(([piece, left]) => piece !== (left ? 0 : 1));
  assert.deepEqual(wrong, [], 'every phyxel is in the fragment of its side of the notch');
  await assertReadBack(page, solver, 50);
  // Transparency (eq. 70): κ shows, a non-positive κ is refused at its control; the bar, built anew,
  // parts in two again.
  assert.equal(await page.locator('#param-kappa').isVisible(), false, 'κ only for transparency');
  // Paused, so that the new bar is seen whole before it is pulled apart.
  await page.click('#pause');
  await page.selectOption('#param-weights', 'transparency');
  assert.equal(await page.locator('#param-kappa').isVisible(), true);
  await page.fill('#param-kappa', '0');
  assert.match(await page.locator('#param-kappa-error').textContent(), /Must be between .* Still using 0\.5/);
  await page.waitForFunction(() => JSON.parse(document.body.dataset.fracture ?? 'null')?.fragments === 1, null, { timeout: 10_000 });
  await page.click('#pause');
  await page.waitForFunction(() => JSON.parse(document.body.dataset.fracture ?? 'null')?.fragments >= 2, null, { timeout: PARTING_WAIT_MS });
  assert.equal(await page.locator('#notices .notice.error').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the slab struck by a ball cracks at the impact and breaks into fragments, on the GPU with WebGPU and on the CPU; a negative ball speed is refused at its control', async (testContext) => {
  const { page, context, problems } = await openPage(env, 'phyxels.html?scene=struck-slab');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  await solverChosen(page);
  // 10 across: a slab of 20 × 3 × 20 phyxels held by its rim, the ball above its centre — and those
  // resampling appends once it cracks (it may have cracked already while the page chose its solver).
  assert.ok((await readNumber(page, '#readout-phyxels')) >= 1200);
  const solver = await fractureBackend(page, testContext);
  assert.equal(await page.locator('#param-ballSpeed').isVisible(), true, 'the ball speed shows for the slab');
  assert.equal(await page.locator('#param-load').isVisible(), false, 'the grips’ load is the bar’s');
  // A negative ball speed is refused at its control, with the reason; the slab runs on.
  await page.fill('#param-ballSpeed', '-1');
  assert.match(await page.locator('#param-ballSpeed-error').textContent(), /Must be between .* Still using 4/);
  assert.equal(await page.locator('#notices .notice.error').count(), 0, await page.locator('#notices').textContent());
  // Struck at 4 m/s after half a second's flight: cracks from the impact within a few hundredths of a
  // second, a piece knocked out some 0.2 s later (the demo's test: t = 0.73 s on either backend; the
  // time read here may be later than the break).
  const end = Date.now() + PARTING_WAIT_MS;
  let readouts = await fractureReadouts(page);
  while (!(readouts?.fragments >= 2) && Date.now() < end) {
    await page.waitForTimeout(250);
    readouts = await fractureReadouts(page);
  }
  const time = await readNumber(page, '#readout-sim-time');
  testContext.diagnostic(`at t = ${time} s: ${JSON.stringify(readouts)}`);
  assert.ok(readouts.cracks > 0 && readouts.grown > 0, `cracks: ${JSON.stringify(readouts)}`);
  assert.ok(readouts.fragments >= 2, `fragments: ${JSON.stringify(readouts)}`);
  // The ball gave the slab its momentum: its speed (the last readout) is below the 4 m/s it came at.
  assert.ok(readouts.load < 4, `the ball's speed ${readouts.load} m/s`);
  assert.match(await page.locator('#readout-load').textContent(), /^ball \d+\.\d\d m\/s$/);
  await assertReadBack(page, solver, 50);
  assert.equal(await page.locator('#notices .notice.error').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the ductile bar stretches, yields and tears in its neck, on the GPU with WebGPU and on the CPU; its plasticity is the scene’s own', async (testContext) => {
  const { page, context, problems } = await openPage(env, 'phyxels.html?scene=ductile-bar');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  await solverChosen(page);
  // 10 across: the notched bar's 24 × 5 × 5 phyxels, no notch, a waist at mid-length.
  assert.equal(await readNumber(page, '#readout-phyxels'), 600);
  const solver = await fractureBackend(page, testContext);
  assert.equal(await page.locator('#param-strength').isVisible(), true, 'the Fracture group shows');
  assert.equal(await page.locator('#param-load').isVisible(), false, 'the grips’ load is the notched bar’s');
  assert.equal(await page.locator('#param-ballSpeed').isVisible(), false, 'the ball speed is the slab’s');
  assert.equal(await page.locator('#param-plastic').isVisible(), false, 'its plasticity is the scene’s own');
  // Built anew from rest (it may have torn while the page set up), the grips move apart at
  // 0.05 m/s each: it yields within a centimetre, first cracks when its neck's plastic strain is at the
  // cap (about 120 mm, t ≈ 1.3 s: the demo's test) and parts in two.
  await page.click('#restart');
  await page.waitForFunction(() => JSON.parse(document.body.dataset.fracture ?? 'null')?.cracks === 0, null, { timeout: 10_000 });
  const end = Date.now() + PARTING_WAIT_MS;
  let readouts = await fractureReadouts(page);
  let beforeCrack = null;
  while (!(readouts?.fragments >= 2) && Date.now() < end) {
    if (readouts?.cracks === 0) beforeCrack = readouts;
    await page.waitForTimeout(50);
    readouts = await fractureReadouts(page);
  }
  testContext.diagnostic(`before the first crack: ${JSON.stringify(beforeCrack)}; at t = ${await readNumber(page, '#readout-sim-time')} s: ${JSON.stringify(readouts)}`);
  assert.ok(beforeCrack !== null, 'seen before its first crack');
  assert.ok(beforeCrack.plastic > 0.12, `it flowed far past c_yield = 0.012 before it cracked: ${JSON.stringify(beforeCrack)}`);
  assert.ok(readouts.cracks >= 1, `cracks: ${JSON.stringify(readouts)}`);
  assert.equal(readouts.fragments, 2, 'two fragments');
  assert.ok(readouts.load > 0.1, `torn after an elongation of ${readouts.load} m`);
  assert.ok(readouts.plastic > 0.29, `the neck's plastic strain reached c_max: ${readouts.plastic}`);
  assert.match(await page.locator('#readout-load').textContent(), /^elongation \d+\.\d mm$/);
  assert.match(await page.locator('#readout-peak-plastic-strain').textContent(), /^0\.\d{3}$/);
  // The two pieces are the two halves: each phyxel's fragment is its side of mid-length (the crack starts in
  // the neck, within a spacing or two of it; its plane is normal to the axis within a few degrees).
  const sides = await page.evaluate(() => {
    const demo = window.phyxelDemo.demo;
    const pieces = Array.from(demo.fracture_pieces());
    const positions = demo.positions();
    const xs = Array.from({ length: pieces.length }, (_, i) => positions[3 * i]);
    const mid = (Math.min(...xs) + Math.max(...xs)) / 2;
    const margin = 2 * demo.spacing();
    return pieces.map((piece, i) => [piece, xs[i] - mid, margin]);
  });
  const wrong = sides.filter(([piece, x, margin]) => Math.abs(x) > margin && piece !== (x < 0 ? 0 : 1));
  assert.deepEqual(wrong, [], 'away from the neck every phyxel is in the fragment of its side');
  await assertReadBack(page, solver, 50);
  assert.equal(await page.locator('#notices .notice.error').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

/**
 * Where the body lies on the screen, found with the page's own pick: the NDC points (u, v) of a grid
 * whose eye rays meet a phyxel, as their extent { uMin, uMax } and, at `along` of the way from uMin to
 * uMax, the column's { u, vMin, vMax }.
 */
async function bodyOnScreen(page, along) {
  return page.evaluate((along) => {
    const { demo, camera } = window.phyxelDemo;
    const hits = (u, v) => {
      const ray = camera.ray(u, v);
      return demo.pick(ray.slice(0, 3), ray.slice(3), 0.75 * demo.spacing()) >= 0;
    };
    let [uMin, uMax] = [Infinity, -Infinity];
    for (let u = -1; u <= 1; u += 0.01) {
      for (let v = -1; v <= 1; v += 0.02) {
        if (hits(u, v)) [uMin, uMax] = [Math.min(uMin, u), Math.max(uMax, u)];
      }
    }
    const u = uMin + along * (uMax - uMin);
    let [vMin, vMax] = [Infinity, -Infinity];
    for (let v = -1; v <= 1; v += 0.005) {
      if (hits(u, v)) [vMin, vMax] = [Math.min(vMin, v), Math.max(vMax, v)];
    }
    return { uMin, uMax, u, vMin, vMax };
  }, along);
}

/** Drag the mouse over the canvas from NDC (u0, v0) to (u1, v1) in `steps` moves; `during()` before
 * the button is released. */
async function stroke(page, [u0, v0], [u1, v1], steps = 8, during = async () => {}) {
  const box = await page.locator('#scene').boundingBox();
  const at = (u, v) => [box.x + ((u + 1) / 2) * box.width, box.y + ((1 - v) / 2) * box.height];
  await page.mouse.move(...at(u0, v0));
  await page.mouse.down();
  for (let k = 1; k <= steps; k++) await page.mouse.move(...at(u0 + ((u1 - u0) * k) / steps, v0 + ((v1 - v0) * k) / steps));
  await during();
  await page.mouse.up();
}

test('the cut tool: a stroke across the notched bar cuts it in two, one beside it is refused with the reason; the strike tool hits it with its impulse', async (testContext) => {
  // Pulled to a fifth of its strength the bar does not crack by itself: only the cut parts it.
  // Drawn with its surface: the box's cell faces and the notch's (2 layers × 5 across, two sides each).
  const { page, context, problems } = await openPage(env, 'phyxels.html?scene=notched-bar&tool=cut&load=0.2&showSurface=true');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  await solverChosen(page);
  assert.equal(await page.inputValue('#param-tool'), 'cut');
  assert.match(await page.locator('#readout-drawn').textContent(), /^phyxels and the surface, 550 cell faces \(20 on cracks\)/);
  assert.match(await page.locator('.view-hint').textContent(), /stroke across the body/);
  await fractureBackend(page, testContext);
  await waitForReadout(page, 'sim-time', (s) => s > 0.2, 30_000);
  assert.equal((await fractureReadouts(page)).fragments, 1, 'one piece before the cut');
  // Down across the bar at 30 % of its length (away from the notch at its middle), from above it to below.
  const body = await bodyOnScreen(page, 0.3);
  testContext.diagnostic(`the bar on the screen: ${JSON.stringify(body)}`);
  assert.ok(body.uMax > body.uMin && body.vMax > body.vMin, 'the bar is in view');
  // The stroke shows over the view while it is dragged, and goes at release.
  await stroke(page, [body.u, body.vMax + 0.1], [body.u, body.vMin - 0.1], 8, async () => {
    assert.equal(await page.getAttribute('.view3d', 'data-action'), 'cut');
    assert.equal(await page.locator('#stroke').isVisible(), true, 'the stroke is drawn');
  });
  assert.equal(await page.locator('#stroke').isVisible(), false, 'the stroke is gone');
  await page.waitForFunction(() => JSON.parse(document.body.dataset.toolResult ?? 'null')?.method === 'cut', null, { timeout: 10_000 });
  const cut = JSON.parse(await page.getAttribute('body', 'data-tool-result'));
  testContext.diagnostic(`the cut: ${JSON.stringify(cut)}`);
  assert.equal(cut.fragments, 2, 'the cut parts the bar');
  assert.ok(cut.refitted > 0 && cut.after <= cut.before, `refits and energy: ${JSON.stringify(cut)}`);
  assert.match(await page.locator('#readout-tool-result').textContent(), /^cut: \d+ phyxels refitted .* 2 fragments/);
  await page.waitForFunction(() => JSON.parse(document.body.dataset.fracture ?? 'null')?.fragments === 2, null, { timeout: 10_000 });
  const readouts = await fractureReadouts(page);
  assert.equal(readouts.cracks, 2, 'the notch and the cut');
  // The surface opens along the cut: a whole section of 25 faces more, two sides each (the stroke is
  // pulled back through the strained bar, so it may step across a layer: more, never fewer).
  assert.ok(readouts.crackFaces >= 20 + 50, JSON.stringify(readouts));
  assert.equal(readouts.faces, 530 + readouts.crackFaces, JSON.stringify(readouts));
  // A stroke above the bar misses it: refused with the reason at the tool, nothing cut.
  await stroke(page, [body.u, body.vMax + 0.3], [body.u + 0.05, body.vMax + 0.2]);
  await page.waitForFunction(() => /Cut: the cut misses the body/.test(document.getElementById('notices').textContent), null, { timeout: 10_000 });
  assert.equal((await fractureReadouts(page)).cracks, 2, 'no crack added');
  // Strike: a click on the bar gives the phyxels around the hit Δv = 4 m/s along the view; the impulse
  // reported is their mass times it.
  await page.selectOption('#param-tool', 'strike');
  assert.match(await page.locator('.view-hint').textContent(), /Click the body/);
  const target = await bodyOnScreen(page, 0.7);
  await stroke(page, [target.u, 0.5 * (target.vMin + target.vMax)], [target.u, 0.5 * (target.vMin + target.vMax)], 1);
  await page.waitForFunction(() => JSON.parse(document.body.dataset.toolResult ?? 'null')?.method === 'strike', null, { timeout: 10_000 });
  const strike = JSON.parse(await page.getAttribute('body', 'data-tool-result'));
  testContext.diagnostic(`the strike: ${JSON.stringify(strike)}`);
  assert.ok(strike.struck > 0, JSON.stringify(strike));
  assert.ok(Math.abs(strike.impulse - 4 * strike.mass) < 1e-9 * strike.impulse, JSON.stringify(strike));
  assert.match(await page.locator('#readout-tool-result').textContent(), /^strike: \d+ phyxels \(.* kg\), impulse .* N·s$/);
  // The strike's success took the cut's refusal away.
  assert.equal(await page.locator('#notices .notice.error').count(), 0, await page.locator('#notices').textContent());
  assert.deepEqual(problems, []);
  await context.close();
});

test('a worker restarted with another thread count goes on from the cut bar, cut alike', async (testContext) => {
  // The state the page carries to the new worker holds the cracks (fracture::snapshot): the new worker
  // cuts its body from them before its first step, instead of refusing a body cut elsewhere.
  // On the CPU's worker (named in the address: with WebGPU the page would choose the GPU).
  const { page, context, problems } = await openPage(env, 'phyxels.html?scene=notched-bar&tool=cut&load=0.2&backend=cpu');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  await solverChosen(page);
  assert.equal(await page.getAttribute('body', 'data-solver'), 'cpu');
  await waitForReadout(page, 'sim-time', (s) => s > 0.2, 30_000);
  const body = await bodyOnScreen(page, 0.3);
  await stroke(page, [body.u, body.vMax + 0.1], [body.u, body.vMin - 0.1]);
  await page.waitForFunction(() => JSON.parse(document.body.dataset.fracture ?? 'null')?.fragments === 2, null, { timeout: 10_000 });
  const threads = await page.evaluate(() => document.body.dataset.cpuThreads);
  const other = threads === '1' ? 2 : 1;
  await page.evaluate((n) => {
    const input = document.getElementById('param-threads');
    input.value = String(n);
    input.dispatchEvent(new Event('input'));
  }, other);
  await page.waitForFunction((n) => document.body.dataset.cpuThreads === String(n), other, { timeout: 20_000 });
  const t0 = await readNumber(page, '#readout-sim-time');
  await waitForReadout(page, 'sim-time', (s) => s > t0 + 0.2, 30_000);
  const readouts = await fractureReadouts(page);
  testContext.diagnostic(`threads ${threads} → ${other}; at t = ${await readNumber(page, '#readout-sim-time')} s: ${JSON.stringify(readouts)}`);
  assert.equal(readouts.fragments, 2, 'still the two pieces of the cut');
  assert.equal(readouts.cracks, 2, 'the notch and the cut');
  assert.equal(await page.locator('#notices .notice.error').count(), 0, await page.locator('#notices').textContent());
  assert.deepEqual(problems, []);
  await context.close();
});

test('the strike tool cracks the slab where the ball does not fly (ball speed 0): a click on it at 4 m/s', async (testContext) => {
  const { page, context, problems } = await openPage(env, 'phyxels.html?scene=struck-slab&tool=strike&ballSpeed=0');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  await solverChosen(page);
  await waitForReadout(page, 'sim-time', (s) => s > 0.2, 30_000);
  assert.equal((await fractureReadouts(page)).cracks, 0, 'the resting slab has no crack');
  // A click on the slab a quarter of the way across it (away from the ball resting above its centre).
  const slab = await bodyOnScreen(page, 0.25);
  const v = 0.5 * (slab.vMin + slab.vMax);
  await stroke(page, [slab.u, v], [slab.u, v], 1);
  await page.waitForFunction(() => JSON.parse(document.body.dataset.toolResult ?? 'null')?.method === 'strike', null, { timeout: 10_000 });
  const strike = JSON.parse(await page.getAttribute('body', 'data-tool-result'));
  testContext.diagnostic(`the strike: ${JSON.stringify(strike)}`);
  assert.ok(strike.struck > 0 && Math.abs(strike.impulse - 4 * strike.mass) < 1e-9 * strike.impulse, JSON.stringify(strike));
  await page.waitForFunction(() => JSON.parse(document.body.dataset.fracture ?? 'null')?.cracks > 0, null, { timeout: 30_000 });
  testContext.diagnostic(`then: ${JSON.stringify(await fractureReadouts(page))}`);
  assert.equal(await page.locator('#notices .notice.error').count(), 0, await page.locator('#notices').textContent());
  assert.deepEqual(problems, []);
  await context.close();
});
