// The time-integrators lesson in a real browser: it runs, draws, responds to every control, rejects bad
// input without stopping, explains blow-ups, and works by mouse, by touch, on a phone and a projector.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, readNumber, canvasStats, settled } from './harness.mjs';

const env = useBrowser();
const PATH = 'time-integration.html';

async function openLesson(options) {
  const opened = await openPage(env, PATH, options);
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  return opened;
}

const simTime = (page) => readNumber(page, '#readout-sim-time');

// The integrators run in a lesson worker: wait for what a control or a button asked of it.
async function setControl(page, id, value) {
  await page.fill(`#${id}`, String(value));
  await settled(page);
}

async function press(page, selector) {
  await page.click(selector);
  await settled(page);
}

async function pauseAndRestart(page) {
  if ((await page.locator('#pause').textContent()) === 'Pause') await press(page, '#pause');
  await press(page, '#restart');
}

/** The x₀ control's value once a drag has set it (the pointer's world position comes from the worker). */
async function draggedX0(page) {
  await page.waitForFunction(() => document.getElementById('param-x0').value !== '1', null, { timeout: 10_000 });
  await settled(page);
  return Number(await page.locator('#param-x0').inputValue());
}

test('the simulation advances in real time and the canvas is drawn and changes', async () => {
  const { page, context, problems } = await openLesson();
  const t0 = await simTime(page);
  const frame0 = await canvasStats(page, '#scene');
  await page.waitForTimeout(1500);
  const t1 = await simTime(page);
  const frame1 = await canvasStats(page, '#scene');
  assert.ok(t1 - t0 > 0.5, `simulated time went from ${t0} to ${t1} in 1.5 s`);
  assert.ok(frame1.ink > 0.003 * frame1.pixels, `canvas nearly blank: ${frame1.ink} of ${frame1.pixels} pixels drawn`);
  assert.notEqual(frame0.hash, frame1.hash, 'the canvas did not change');
  assert.ok((await readNumber(page, '#readout-step-time')) >= 0);
  assert.match(await page.locator('#readout-step-time').textContent(), /ms$/);
  // Both plots received data.
  assert.equal(await page.locator('#plot-position canvas').count(), 1);
  assert.equal(await page.locator('#plot-energy canvas').count(), 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Pause stops time, Step advances exactly Δt, Restart goes back to zero', async () => {
  const { page, context, problems } = await openLesson();
  await page.waitForTimeout(300);
  await press(page, '#pause');
  assert.equal(await page.locator('#pause').textContent(), 'Run');
  const paused = await simTime(page);
  await page.waitForTimeout(500);
  assert.equal(await simTime(page), paused, 'time moved while paused');
  await press(page, '#step');
  await press(page, '#step');
  assert.ok(Math.abs((await simTime(page)) - paused - 0.04) < 1.5e-3, 'two steps of Δt = 0.02');
  await press(page, '#restart');
  assert.equal(await simTime(page), 0);
  await press(page, '#pause');
  await page.waitForTimeout(500);
  assert.ok((await simTime(page)) > 0.2, 'Run resumes');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Δt changes the accuracy the way the order of each method says', async () => {
  const { page, context, problems } = await openLesson();
  const errorsAfterOneSecond = async (dt) => {
    await pauseAndRestart(page);
    await setControl(page, 'param-dt', dt);
    for (let i = 0; i < Math.round(0.2 / dt); i++) await press(page, '#step');
    assert.ok(Math.abs((await simTime(page)) - 0.2) < 1e-6);
    return {
      explicit: await readNumber(page, '#readout-error-explicit-euler'),
      verlet: await readNumber(page, '#readout-error-velocity-verlet'),
    };
  };
  const coarse = await errorsAfterOneSecond(0.02);
  const fine = await errorsAfterOneSecond(0.01);
  // First order: error ratio ≈ 2; second order: ≈ 4 (readouts show 3 significant digits).
  assert.ok(Math.abs(coarse.explicit / fine.explicit - 2) < 0.3, `explicit Euler ratio ${coarse.explicit / fine.explicit}`);
  assert.ok(Math.abs(coarse.verlet / fine.verlet - 4) < 0.6, `velocity Verlet ratio ${coarse.verlet / fine.verlet}`);
  // The stiffness changes ωΔt = √(k/m)·Δt.
  await setControl(page, 'param-k', 160);
  assert.match(await page.locator('#readout-omega-dt').textContent(), /^0\.126/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('an unstable Δt is detected, explained, and never shows NaN', async () => {
  const { page, context, problems } = await openLesson();
  await setControl(page, 'param-dt', 0.4); // ω = √40 ≈ 6.3, ωΔt ≈ 2.5 > 2
  await press(page, '#restart');
  await page.waitForSelector('.notice[data-key="diverged-velocity-verlet"]', { timeout: 15_000 });
  const notice = await page.locator('.notice[data-key="diverged-velocity-verlet"]').textContent();
  assert.match(notice, /exceeds the stability bound ωΔt < 2/);
  await page.waitForSelector('.notice[data-key="diverged-explicit-euler"]', { timeout: 15_000 });
  assert.match(await page.locator('#readout-error-velocity-verlet').textContent(), /unstable/);
  const readouts = await page.locator('.readouts').textContent();
  assert.doesNotMatch(readouts, /NaN|Infinity/);
  // Implicit Euler stays stable and the simulation keeps running.
  assert.doesNotMatch(await page.locator('#readout-error-implicit-euler').textContent(), /unstable/);
  const t = await simTime(page);
  await page.waitForTimeout(500);
  assert.ok((await simTime(page)) > t);
  assert.deepEqual(problems, []);
  await context.close();
});

test('bad input is explained next to its control and the simulation keeps its last valid value', async () => {
  const { page, context, problems } = await openLesson();
  const cases = [
    ['abc', /“abc” is not a number/],
    ['', /Enter a number/],
    ['0', /Must be between 0\.0001 and 0\.5/],
    ['NaN', /not a number/],
    ['1e9', /Must be between/],
  ];
  for (const [text, message] of cases) {
    await setControl(page, 'param-dt', text);
    const error = page.locator('#param-dt-error');
    assert.match(await error.textContent(), message, `input “${text}”`);
    assert.match(await error.textContent(), /Still using 0\.02/);
    assert.equal(await page.locator('#param-dt').getAttribute('aria-invalid'), 'true');
    assert.ok(await error.isVisible());
  }
  // Still running, still with Δt = 0.02.
  const t = await simTime(page);
  await page.waitForTimeout(400);
  assert.ok((await simTime(page)) > t, 'the simulation stopped after bad input');
  await press(page, '#pause');
  const before = await simTime(page);
  await press(page, '#step');
  assert.ok(Math.abs((await simTime(page)) - before - 0.02) < 1.5e-3);
  // A valid value clears the message.
  await setControl(page, 'param-dt', '0.01');
  assert.equal(await page.locator('#param-dt-error').textContent(), '');
  assert.equal(await page.locator('#param-dt').getAttribute('aria-invalid'), 'false');
  // Scene parameters too: a negative stiffness is refused, the spring keeps k = 40.
  await setControl(page, 'param-k', '-5');
  assert.match(await page.locator('#param-k-error').textContent(), /Must be between 0\.01 and 10000/);
  assert.match(await page.locator('#readout-omega-dt').textContent(), /^0\.063/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('method toggles and the projectile scene', async () => {
  const { page, context, problems } = await openLesson();
  assert.ok(await page.locator('#readout-error-rk4').isVisible());
  await page.click('#method-rk4');
  assert.equal(await page.locator('#readout-error-rk4').isVisible(), false);
  await page.selectOption('#scene-select', 'projectile');
  await settled(page);
  assert.ok(await page.locator('#param-v0').isVisible());
  assert.equal(await page.locator('#param-k').isVisible(), false);
  await pauseAndRestart(page);
  for (let i = 0; i < 10; i++) await press(page, '#step');
  // Constant gravity: the second-order methods are exact, the Euler methods are off by ½gΔt·t.
  assert.ok((await readNumber(page, '#readout-error-velocity-verlet')) < 1e-9);
  const euler = await readNumber(page, '#readout-error-explicit-euler');
  const theory = 0.5 * 9.81 * 0.02 * 0.2;
  assert.ok(Math.abs(euler / theory - 1) < 0.01, `explicit Euler error ${euler}, theory ${theory}`);
  assert.deepEqual(problems, []);
  await context.close();
});

/** Drag across the canvas from 50 % to `toFraction` of its width, at mid-height. */
async function canvasPoints(page, toFraction) {
  const box = await page.locator('#scene').boundingBox();
  const y = box.y + box.height / 2;
  return { from: [box.x + box.width * 0.5, y], to: [box.x + box.width * toFraction, y] };
}

test('dragging the mass with a mouse sets x₀', async () => {
  const { page, context, problems } = await openLesson();
  const { from, to } = await canvasPoints(page, 0.85);
  // The clock runs at speed 1 (simulated seconds per real second, never ahead of real time): let it pass
  // 2 s first, so that a clock the drag did not restart reads more than the real time since the release.
  await page.waitForFunction(() => parseFloat(document.getElementById('readout-sim-time').textContent) >= 2, null, { timeout: 30_000 });
  await page.mouse.move(...from);
  await page.mouse.down();
  await page.mouse.move(...to, { steps: 5 });
  const released = Date.now();
  await page.mouse.up();
  // The view spans ±1.3 m for x₀ = 1: 85 % of the width is x = +0.91 m.
  const x0 = await draggedX0(page);
  assert.ok(Math.abs(x0 - 0.91) < 0.03, `x₀ = ${x0}`);
  const since = (Date.now() - released) / 1000;
  const t = await simTime(page);
  assert.ok(t <= since + 0.1, `the drag restarts the simulation: t = ${t} s, ${since} s after the release`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('dragging by touch works too', async () => {
  const { page, context, problems } = await openLesson({ hasTouch: true, isMobile: true, viewport: { width: 412, height: 900 } });
  const { from, to } = await canvasPoints(page, 0.15);
  const cdp = await context.newCDPSession(page);
  const touch = (type, [x, y]) =>
    cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
  await touch('touchStart', from);
  for (let i = 1; i <= 5; i++) await touch('touchMove', [from[0] + ((to[0] - from[0]) * i) / 5, from[1]]);
  await touch('touchEnd', to);
  const x0 = await draggedX0(page);
  assert.ok(Math.abs(x0 + 0.91) < 0.05, `x₀ = ${x0} after a touch drag to 15 %`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('readable on a 360 px phone and on a projector', async () => {
  for (const viewport of [{ width: 360, height: 740 }, { width: 1920, height: 1080 }]) {
    const { page, context, problems } = await openLesson({ viewport });
    const layout = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      canvas: document.getElementById('scene').getBoundingClientRect().width,
      font: parseFloat(getComputedStyle(document.documentElement).fontSize),
      button: document.getElementById('step').getBoundingClientRect().height,
    }));
    assert.ok(layout.scrollWidth <= viewport.width, `${viewport.width}px: page scrolls sideways (${layout.scrollWidth}px)`);
    assert.ok(layout.canvas >= 0.8 * Math.min(viewport.width, 1000), `${viewport.width}px: canvas only ${layout.canvas}px wide`);
    if (viewport.width === 360) assert.ok(layout.button >= 36, 'buttons are finger-sized');
    else assert.ok(layout.font >= 20, `projector font ${layout.font}px`);
    assert.ok((await canvasStats(page, '#scene')).ink > 0);
    assert.deepEqual(problems, []);
    await context.close();
  }
});
