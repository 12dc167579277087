// The MLS-gradient lesson: MLS reproduces a linear gradient at every particle while SPH does not, the
// function changes the estimates, dragging particles onto a line (mouse) or away from all others (touch)
// makes their moment matrices rank-deficient — counted, explained, and still finite — and a bad
// expression is refused at its input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, readNumber, canvasStats } from './harness.mjs';

const env = useBrowser();

async function openLesson(contextOptions) {
  const opened = await openPage(env, 'mls-gradient.html', contextOptions);
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  return opened;
}
const readout = (page, id) => readNumber(page, `#readout-${id}`);
const text = (page, id) => page.locator(`#readout-${id}`).textContent();

/** Canvas (CSS) position of world point (x, y): the view shows [−1.1, 1.1]² centred, equal aspect. */
async function toScreen(page) {
  const box = await page.locator('#scene').boundingBox();
  const scale = Math.min(box.width, box.height) / 2.2;
  return (x, y) => [box.x + box.width / 2 + x * scale, box.y + box.height / 2 - y * scale];
}

/** Drag by mouse from world point `from` to world point `to`. */
async function drag(page, from, to) {
  const at = await toScreen(page);
  await page.mouse.move(...at(...from));
  await page.mouse.down();
  await page.mouse.move(...at(...to), { steps: 4 });
  await page.mouse.up();
}

test('MLS is exact for a linear field at every particle, SPH is not; the function changes the estimates', async () => {
  const { page, context, problems } = await openLesson();
  assert.equal(await page.inputValue('#function-select'), 'linear');
  assert.equal(await readout(page, 'particles'), 400);
  assert.equal(await readout(page, 'regularized'), 0);
  const mls = await readout(page, 'mls-max');
  const sph = await readout(page, 'sph-max');
  assert.ok(mls < 1e-9, `MLS error ${mls}`);
  assert.ok(sph > 0.1, `SPH error ${sph}`);
  // The chosen particle (near a corner) has a regular, well-conditioned moment matrix.
  assert.equal(await readout(page, 'chosen-rank'), 2);
  const kappa = await readout(page, 'chosen-condition');
  assert.ok(kappa >= 1 && kappa < 10, `κ = ${kappa}`);
  const picture = await canvasStats(page, '#scene');
  assert.ok(picture.ink > 0.05 * picture.pixels);
  // A quadratic: MLS is no longer exact (first order), but still better than SPH.
  await page.selectOption('#function-select', 'quadratic');
  const mlsQuadratic = await readout(page, 'mls-max');
  assert.ok(mlsQuadratic > 1e-3, `MLS on a quadratic ${mlsQuadratic}`);
  assert.ok(mlsQuadratic < (await readout(page, 'sph-max')));
  // A constant: both give zero.
  await page.selectOption('#function-select', 'constant');
  assert.ok((await readout(page, 'mls-max')) < 1e-12);
  assert.ok((await readout(page, 'sph-max')) < 1e-12);
  assert.equal(await page.locator('#plot-shape canvas').first().isVisible(), true);
  assert.ok((await page.locator('#legend .legend-gradient').count()) === 1, 'colour legend');
  assert.deepEqual(problems, []);
  await context.close();
});

test('dragging particles onto a line makes their moment matrices rank-deficient and the values stay finite', async () => {
  const { page, context, problems } = await openLesson();
  const picture = await canvasStats(page, '#scene');
  // Three particles (picked at their lattice cells) dropped out of the square on the line y = 0,
  // 0.1 apart: each sees only the other two (h = 0.25), all on one line.
  const targets = [1.3, 1.4, 1.5];
  const cells = [[-0.05, 0.55], [0.05, -0.45], [0.45, 0.05]];
  for (let k = 0; k < 3; k++) {
    await drag(page, cells[k], [targets[k], 0]);
    const [x, y] = (await text(page, 'chosen')).match(/-?\d+\.\d+/g).map(Number);
    assert.ok(Math.abs(x - targets[k]) < 1e-9 && Math.abs(y) < 1e-9, `particle dropped at (${x}, ${y})`);
  }
  const regularized = await readout(page, 'regularized');
  assert.ok(regularized >= 3, `regularized count ${regularized}`);
  assert.equal(await readout(page, 'chosen-neighbours'), 2);
  assert.equal(await readout(page, 'chosen-rank'), 1);
  assert.equal(await text(page, 'chosen-condition'), '∞');
  // Finite everywhere: the safe inverse keeps ∂f/∂x along the line (exact: ½) and drops ∂f/∂y.
  for (const id of ['mls-max', 'mls-rms', 'sph-max', 'sph-rms']) assert.ok(Number.isFinite(await readout(page, id)), id);
  assert.doesNotMatch(await page.locator('.readouts').textContent(), /NaN|Infinity/);
  const [gx, gy] = (await text(page, 'chosen-mls')).match(/-?\d+\.\d+/g).map(Number);
  assert.ok(Math.abs(gx - 0.5) < 1e-3 && Math.abs(gy) < 1e-3, `MLS gradient (${gx}, ${gy})`);
  assert.match(await page.locator('#notices').textContent(), /rank-deficient moment matrix/);
  assert.notEqual((await canvasStats(page, '#scene')).hash, picture.hash);
  // Putting the particles back clears it.
  await page.click('#reset-particles');
  assert.equal(await readout(page, 'regularized'), 0);
  assert.equal(await page.locator('#notices .notice').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a particle dragged away by touch has no neighbours: rank 0, counted, finite', async () => {
  const { page, context, problems } = await openLesson({ hasTouch: true, isMobile: true, viewport: { width: 412, height: 900 } });
  const at = await toScreen(page);
  const cdp = await context.newCDPSession(page);
  const send = (type, [x, y]) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
  // Out of the square to the right, 0.6 away from every other particle (h = 0.25).
  const from = [0.15, 0.15];
  const to = [1.6, 0.9];
  await send('touchStart', at(...from));
  for (let k = 1; k <= 5; k++) await send('touchMove', at(from[0] + ((to[0] - from[0]) * k) / 5, from[1] + ((to[1] - from[1]) * k) / 5));
  await send('touchEnd', at(...to));
  const [x, y] = (await text(page, 'chosen')).match(/-?\d+\.\d+/g).map(Number);
  assert.ok(Math.abs(x - 1.6) < 0.02 && Math.abs(y - 0.9) < 0.02, `dragged to (${x}, ${y})`);
  assert.equal(await readout(page, 'chosen-neighbours'), 0);
  assert.equal(await readout(page, 'chosen-rank'), 0);
  assert.ok((await readout(page, 'regularized')) >= 1);
  assert.match(await text(page, 'chosen-mls'), /^\(0\.000, 0\.000\)$/);
  assert.ok(Number.isFinite(await readout(page, 'mls-max')));
  assert.deepEqual(problems, []);
  await context.close();
});

test('a bad expression is refused at its input and the estimates stay', async () => {
  const { page, context, problems } = await openLesson();
  const before = [await readout(page, 'mls-max'), await readout(page, 'sph-max')];
  await page.fill('#param-expression', 'x + q');
  assert.match(await page.locator('#param-expression-error').textContent(), /Unknown variable q\. Still using 0\.5 \* \(x \+ y\)\./);
  assert.deepEqual([await readout(page, 'mls-max'), await readout(page, 'sph-max')], before);
  assert.equal(await page.getAttribute('#scene', 'data-expression'), '0.5 * (x + y)');
  await page.fill('#param-expression', '3 x - 2 y + 1');
  assert.equal(await page.locator('#param-expression-error').textContent(), '');
  assert.ok((await readout(page, 'mls-max')) < 1e-9, 'any linear field');
  assert.notEqual(await readout(page, 'sph-max'), before[1]);
  await page.fill('#param-ratio', '0');
  assert.match(await page.locator('#param-ratio-error').textContent(), /Must be between 1 and 6/);
  assert.deepEqual(problems, []);
  await context.close();
});
