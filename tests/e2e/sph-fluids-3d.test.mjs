// The 3D fluid page: the dam break runs in the solver worker (threaded: the test server sends the
// isolation headers) and is drawn as spheres, its front measured against Martin & Moyce and its mass
// kept; the glass scene pours (the particle count grows, the mass stays the count times m) and the glass
// holds the water; switching the solver keeps the particles and the time; bad input is refused at the
// control with its range, a scene beyond the budgets is refused with the limit named while the running
// one goes on; dragging the water stirs it, dragging beside it turns the camera.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, readNumber, screenshotPixels, settled, waitForText, WEBGPU } from './harness.mjs';

const env = useBrowser();

async function openFluid(query = '') {
  const opened = await openPage(env, `sph-fluids-3d.html${query}`);
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  return opened;
}

const waitForTime = (page, t, timeout = 120_000) =>
  page.waitForFunction((t0) => Number.parseFloat(document.getElementById('readout-sim-time').textContent) > t0, t, { timeout });

test('the dam break runs in the worker on threads, drawn as spheres, its front beside the experiment', async () => {
  const { page, context, problems } = await openFluid('?across=8');
  // 8 × 16 × 8 particles.
  await waitForText(page, '#readout-solver', /^DFSPH \/ 1024$/, 30_000);
  assert.match(await page.locator('#backend-badge').textContent(), /threads/);
  const mass = await page.locator('#readout-mass').textContent();
  await waitForTime(page, 0.12);
  // Paused, so that the readouts stay at one time (before T = 9.24, the table's end).
  await page.click('#pause');
  await settled(page);
  const front = await page.locator('#readout-front').textContent();
  console.log(`front: ${front}`);
  const compared = front.match(/^([\d.]+) at T = [\d.]+ \/ ([\d.]+) \(/);
  if (compared) {
    // Early on the simulated front runs ahead of the experiment's (no gate): 20–32 % in the native tests.
    const [z, mm] = compared.slice(1).map(Number.parseFloat);
    assert.ok(z > 1 && z / mm > 0.9 && z / mm < 1.5, front);
  } else {
    // A slow machine paused later: the experiment's front is past the channel's end, not compared.
    assert.match(front, /^[1-3]\.\d+ at T = [\d.]+ \(the experiment’s front is past this channel’s far wall\)$/);
  }
  const [mean] = (await page.locator('#readout-density-error').textContent()).split(' / ').map(Number.parseFloat);
  assert.ok(mean >= 0 && mean < 1, `mean density error ${mean} %`);
  assert.equal(await page.locator('#readout-mass').textContent(), mass, 'Σm is kept');
  const renderer = await page.getAttribute('body', 'data-renderer');
  assert.ok(renderer === 'WebGL2' || renderer === 'WebGPU', `renderer ${renderer}`);
  if (renderer === 'WebGL2') {
    // Spheres coloured by speed: the colour map's blues and yellows on the light background.
    const coloured = await screenshotPixels(page.locator('#scene'), (r, g, b) => Math.max(r, g, b) - Math.min(r, g, b) > 60);
    assert.ok(coloured.count > 500, `coloured pixels ${coloured.count}`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('the glass fills from the nozzle and holds the water, the mass the count times m', async () => {
  const { page, context, problems } = await openFluid('?scene=glass&across=6&solver=wcsph');
  // The count and the mass read together (a new report may land between two separate reads).
  const countAndMass = () =>
    page.evaluate(() => [
      Number.parseInt(document.getElementById('readout-solver').textContent.split(' / ')[1], 10),
      Number.parseFloat(document.getElementById('readout-mass').textContent),
    ]);
  await waitForText(page, '#readout-solver', /^WCSPH \/ \d+ \(pouring: 819\)$/, 30_000);
  const [first, firstMass] = await countAndMass();
  await waitForTime(page, 0.25);
  const [later, laterMass] = await countAndMass();
  assert.ok(later > first, `the nozzle pours: ${first} → ${later}`);
  // Shown to 1 mg: the ratio within that rounding.
  assert.ok(Math.abs(laterMass / firstMass - later / first) < 2e-4, `mass ${firstMass} → ${laterMass} for ${first} → ${later}`);
  const glass = await page.locator('#readout-glass').textContent();
  const held = Number.parseFloat(glass);
  // What has reached the glass is in it; what is still falling is above its rim.
  assert.ok(held > 0 && held <= 100, glass);
  assert.equal(await page.locator('#readout-front').textContent(), '— (the dam break)');
  assert.deepEqual(problems, []);
  await context.close();
});

test('switching the solver keeps the particles and the time', async () => {
  const { page, context, problems } = await openFluid('?across=6&solver=wcsph');
  await waitForText(page, '#readout-solver', /^WCSPH \/ 432$/, 30_000);
  await waitForTime(page, 0.02);
  for (const [value, name] of [['pbf', 'PBF'], ['dfsph', 'DFSPH']]) {
    const t = await readNumber(page, '#readout-sim-time');
    await page.selectOption('#solver-select', value);
    await waitForText(page, '#readout-solver', new RegExp(`^${name} / 432$`), 30_000);
    await waitForTime(page, t + 0.02);
  }
  const notices = await page.locator('#notices').textContent();
  assert.equal(/The fluid stopped/.test(notices), false, notices);
  assert.deepEqual(problems, []);
  await context.close();
});

test('bad input is refused with its range, a scene beyond the budgets with its limit, and the water runs on', async () => {
  const { page, context, problems } = await openFluid('?across=6');
  await waitForText(page, '#readout-solver', /^DFSPH \/ 432$/, 30_000);
  await page.fill('#param-across', '100');
  assert.match(await page.locator('#param-across-error').textContent(), /Must be between 6 and 36/);
  await page.fill('#param-xsph', '-1');
  assert.match(await page.locator('#param-xsph-error').textContent(), /Must be between 0 and 0.5/);
  // 30 across is in range for the dam break (54 000 particles) …
  await page.fill('#param-across', '30');
  await waitForText(page, '#readout-solver', /^DFSPH \/ 54000$/, 60_000);
  // … but the glass at 30 across would need more water or walls than the solver holds: refused, named.
  await page.selectOption('#scene-select', 'glass');
  await waitForText(page, '#notices', /refused: \d+ (fluid|boundary) particles is more than the limit of (100000|200000)/, 60_000);
  assert.equal(await page.locator('#scene-select').inputValue(), 'dam-break');
  const t = await readNumber(page, '#readout-sim-time');
  await waitForTime(page, t);
  const bad = await openFluid('?across=0');
  await waitForText(bad.page, '#notices', /across/);
  assert.deepEqual(problems, []);
  await bad.context.close();
  await context.close();
});

test('WCSPH steps on WebGPU compute where the browser has it, and is refused with the reason where not', async () => {
  const { page, context, problems } = await openFluid('?backend=gpu&across=6');
  if (WEBGPU) {
    await page.waitForSelector('body[data-backend="gpu"]', { timeout: 60_000 });
    await waitForText(page, '#readout-solver', /^WCSPH \/ 432$/, 30_000);
    assert.equal(await page.locator('#solver-select').inputValue(), 'wcsph');
    assert.match(await page.locator('#backend-badge').textContent(), /WebGPU compute/);
    const mass = await page.locator('#readout-mass').textContent();
    await waitForTime(page, 0.05);
    const front = await page.locator('#readout-front').textContent();
    assert.ok(Number.parseFloat(front) > 1, `the column collapses on the GPU: ${front}`);
    assert.equal(await page.locator('#readout-mass').textContent(), mass, 'Σm is kept');
    // DFSPH stays on the CPU: refused with the reason, WCSPH runs on.
    await page.selectOption('#solver-select', 'dfsph');
    await waitForText(page, '#notices', /the GPU steps WCSPH only/);
    assert.equal(await page.locator('#solver-select').inputValue(), 'wcsph');
    // The glass pours on the GPU: the count grows, the mass stays the count times m.
    await page.selectOption('#scene-select', 'glass');
    await waitForText(page, '#readout-solver', /^WCSPH \/ \d+ \(pouring: 819\)$/, 30_000);
    assert.equal(await page.getAttribute('body', 'data-backend'), 'gpu');
    const countAndMass = () =>
      page.evaluate(() => [
        Number.parseInt(document.getElementById('readout-solver').textContent.split(' / ')[1], 10),
        Number.parseFloat(document.getElementById('readout-mass').textContent),
      ]);
    await waitForTime(page, 0.03);
    const [first, firstMass] = await countAndMass();
    await waitForTime(page, 0.12);
    const [later, laterMass] = await countAndMass();
    assert.ok(first > 0 && later > first, `the nozzle pours on the GPU: ${first} → ${later}`);
    assert.ok(Math.abs(laterMass / firstMass - later / first) < 2e-4, `mass ${firstMass} → ${laterMass} for ${first} → ${later}`);
    assert.match(await page.locator('#backend-badge').textContent(), /WebGPU compute/);
    // A lost device: the page says so and the scene starts again on the CPU.
    await page.evaluate(() => window.phyxelFluid.gpu.lose());
    await page.waitForSelector('body[data-backend="cpu"]', { timeout: 30_000 });
    assert.match(await page.locator('#notices').textContent(), /WebGPU compute stopped .* starts again on the CPU/);
    assert.equal(await page.locator('#backend-select').inputValue(), 'cpu');
    assert.match(await page.locator('#backend-badge').textContent(), /the CPU/);
    await waitForTime(page, 0.01);
    // And back to the GPU, on a new device.
    await page.selectOption('#backend-select', 'gpu');
    await page.waitForSelector('body[data-backend="gpu"]', { timeout: 30_000 });
    await waitForTime(page, 0.01);
  } else {
    await waitForText(page, '#notices', /WebGPU compute was refused/, 30_000);
    assert.equal(await page.locator('#backend-select').inputValue(), 'cpu');
    await waitForText(page, '#readout-solver', /^DFSPH \/ 432$/, 30_000);
    await waitForTime(page, 0.02);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('dragging the water stirs it, dragging beside it turns the camera', async () => {
  // Strong XSPH damping: the collapsed column settles along the channel's floor (its largest speed
  // 0.15 m/s at t = 1.2 s, 0.015–0.019 m/s at 3 s, 0.005 m/s at 5 s; from 3 s a loaded CI run once
  // stirred only 2.8× the calm speed).
  const { page, context, problems } = await openFluid('?across=6&xsph=0.5');
  await waitForTime(page, 5);
  const calm = await readNumber(page, '#readout-max-speed');
  const box = await page.locator('#scene').boundingBox();
  // Where the water lies now: on the floor, half way along the channel (a = 5 cm, the channel 4a).
  const [nx, ny] = await page.evaluate(() => Array.from(window.phyxelFluid.camera.project(0.1, 0.008, 0.025)));
  const x = box.x + ((nx + 1) / 2) * box.width;
  const y = box.y + ((1 - ny) / 2) * box.height;
  await page.mouse.move(x, y);
  await page.mouse.down();
  assert.equal(await page.getAttribute('.view3d', 'data-action'), 'stir');
  // Sweeps back and forth along the channel (six moves each way, half the canvas) as fast as the
  // harness moves the pointer, with no reading between moves (a round trip to a page that a
  // software renderer holds takes a good part of a second, and the small scene keeps up with real
  // time: the pointer would crawl), the readout read after each sweep, for 0.2 s of simulated time
  // and two sweeps at least. The stir's velocity is taken over the simulated time between frames.
  const t0 = await readNumber(page, '#readout-sim-time');
  let stirred = 0;
  for (let sweep = 1; sweep <= 40 && (sweep <= 2 || (await readNumber(page, '#readout-sim-time')) < t0 + 0.2); sweep += 1) {
    for (let k = 1; k <= 12; k += 1) {
      const phase = k % 12;
      const offset = ((phase < 6 ? phase : 12 - phase) - 3) * 0.08 * box.width;
      await page.mouse.move(x + offset, y, { steps: 2 });
    }
    stirred = Math.max(stirred, await readNumber(page, '#readout-max-speed'));
  }
  await page.mouse.up();
  const t1 = await readNumber(page, '#readout-sim-time');
  console.log(`largest speed: ${calm} m/s calm, ${stirred} m/s stirring (t = ${t0} … ${t1} s)`);
  // The water follows the pointer at the pointer's speed over simulated time: in headless Chromium,
  // whose input arrives a few times a second while the small scene keeps up with real time, that
  // is a slow 0.05–0.08 m/s (measured 2026-12-03; 0.5 m/s while the page ran in slow motion).
  assert.ok(calm < 0.05, `largest speed ${calm} m/s before stirring`);
  assert.ok(stirred > 0.035 && stirred > 3 * calm, `largest speed ${stirred} m/s while stirring (${calm} before)`);
  assert.equal(await page.getAttribute('.view3d', 'data-action'), null);
  // Beside the water (the top corner of the canvas): the camera turns and nothing is stirred.
  const before = await page.evaluate(() => Array.from(window.phyxelFluid.camera.project(0.1, 0.0, 0.025)));
  await page.mouse.move(box.x + 10, box.y + 10);
  await page.mouse.down();
  assert.equal(await page.getAttribute('.view3d', 'data-action'), null);
  await page.mouse.move(box.x + 80, box.y + 30, { steps: 4 });
  await page.mouse.up();
  const after = await page.evaluate(() => Array.from(window.phyxelFluid.camera.project(0.1, 0.0, 0.025)));
  assert.ok(Math.hypot(after[0] - before[0], after[1] - before[1]) > 0.01, `the view turned: ${before} → ${after}`);
  assert.deepEqual(problems, []);
  await context.close();
});
