// "Integrating a meshless solid": the beam is solved in a lesson worker; at the defaults MKN04's nodal
// m/ρ volumes add up to well over L·H² and the beam is far too stiff, while the background quadrature's
// Σv_I is L·H² and its tip is near Timoshenko's; the convergence plot fills for all three integrations,
// point by point in a worker, and the quadrature's error falls from 3 to 6 across; bad input is refused
// at its control (and from the URL) while the beam shown stays; the two-material cylinder (seed 003
// §4.2) sinks at its ends in beam theory's ratio within 10 % at the defaults, a bad ratio is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, readNumber, waitForText, settled, canvasStats, expectBackendBadge } from './harness.mjs';

const env = useBrowser();

/** Every readout's text, by id. */
const readouts = (page) => page.evaluate(() => Object.fromEntries(
  [...document.querySelectorAll('td[id^="readout-"]')].map((td) => [td.id.slice('readout-'.length), td.textContent]),
));

/** Choose `integration` and wait until the beam is solved with it; returns the readouts. */
async function solveWith(page, integration) {
  if ((await page.locator('#integration-select').inputValue()) !== integration) {
    await page.selectOption('#integration-select', integration);
  }
  await settled(page, 120_000);
  await waitForText(page, '#readout-status', /^solved/, 120_000);
  return readouts(page);
}

test('the solver runs in a worker; nodal m/ρ over-counts and stiffens, the quadrature integrates L·H² and lands near the 3-D solution', async (t) => {
  const { page, context, problems } = await openPage(env, 'integrating-solid.html');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  await expectBackendBadge(page);
  assert.match(await page.locator('#backend-badge').textContent(), /Runs on the CPU \(WebAssembly, in a worker\)/);
  // The solver's module is loaded by the lesson workers, never by the page's own thread.
  const wasm = (entries) => entries.filter((name) => name.endsWith('/phyxel-web_bg.wasm'));
  const resources = () => performance.getEntriesByType('resource').map((entry) => entry.name);
  assert.deepEqual(wasm(await page.evaluate(resources)), [], 'the page’s thread loaded the solver');
  const workers = page.workers().filter((w) => w.url().endsWith('/js/workers/lesson-worker.js'));
  assert.ok(workers.length >= 1, `no lesson worker among ${page.workers().map((w) => w.url())}`);

  // Defaults: nodal m/ρ (MKN04), 4 across, L/H = 10, H = 0.1 m.
  const nodal = await solveWith(page, 'nodal');
  t.diagnostic(`nodal: ${JSON.stringify(nodal)}`);
  assert.equal(await page.locator('#param-across').inputValue(), '4');
  assert.match(nodal['volume-true'], /^0\.01000 m³$/);
  const nodalVolume = parseFloat(nodal['volume-phyxels']);
  assert.ok(nodalVolume > 1.1, `nodal m/ρ: ΣV_i = ${nodalVolume} L·H², expected > 1.1`);
  assert.equal(nodal['volume-points'], '—');
  const nodalError = parseFloat(nodal['error-timoshenko']);
  assert.ok(Math.abs(nodalError) > 20, `nodal m/ρ: ${nodalError} % from Timoshenko, expected more than 20 % off`);
  // The error readout is the tip readout against Timoshenko's.
  const check = parseFloat(nodal.tip) / parseFloat(nodal['tip-timoshenko']) - 1;
  assert.ok(Math.abs(100 * check - nodalError) < 0.05, `${nodal.tip} vs ${nodal['tip-timoshenko']}: ${nodalError} %`);
  assert.ok(Number(nodal.newton) >= 1 && Number(nodal.cg) >= 1);
  assert.ok(parseFloat(nodal.residual) <= 1e-6);
  assert.match(nodal['solve-time'], /^[\d.]+ m?s$/);
  const drawn = await canvasStats(page, '#scene');
  assert.ok(drawn.ink > 0.01 * drawn.pixels, 'the beam is drawn');

  // Cell volumes: exact volumes, a different tip.
  const cell = await solveWith(page, 'cell');
  t.diagnostic(`cell: ${JSON.stringify(cell)}`);
  assert.equal(cell['volume-phyxels'], '1.0000 × L·H²');
  assert.notEqual(cell.tip, nodal.tip, 'switching the integration changes the tip');

  // Background quadrature: Σv_I = L·H² to 0.1 %, the tip within 10 % of Timoshenko's.
  const quadrature = await solveWith(page, 'quadrature');
  t.diagnostic(`quadrature: ${JSON.stringify(quadrature)}`);
  const pointsVolume = parseFloat(quadrature['volume-points']);
  assert.ok(Math.abs(pointsVolume - 1) <= 1e-3, `quadrature: Σv_I = ${pointsVolume} L·H²`);
  assert.ok(Number(quadrature.points) > 0);
  const quadratureError = parseFloat(quadrature['error-timoshenko']);
  assert.ok(Math.abs(quadratureError) < 10, `quadrature: ${quadratureError} % from Timoshenko`);
  assert.notEqual(quadrature.tip, cell.tip);
  // The integration points, drawn as crosses, change the picture.
  const before = await canvasStats(page, '#scene');
  await page.check('#show-points');
  await settled(page);
  const after = await canvasStats(page, '#scene');
  assert.notEqual(after.hash, before.hash, 'the integration points are drawn');

  // The convergence plot: every point of every series, computed in the worker one by one.
  await page.waitForSelector('body[data-convergence="done"]', { timeout: 400_000 });
  const sweep = await page.evaluate(() => Object.fromEntries(
    [...document.querySelectorAll('#convergence-table tbody tr')].map((row) => [row.dataset.across, Object.fromEntries(
      [...row.querySelectorAll('td[data-integration]')].map((td) => [td.dataset.integration, Number(td.dataset.error)]),
    )]),
  ));
  t.diagnostic(`convergence: ${JSON.stringify(sweep)} (${await page.locator('#readout-convergence').textContent()})`);
  assert.deepEqual(Object.keys(sweep).sort(), ['3', '4', '5', '6']);
  for (const [across, errors] of Object.entries(sweep)) {
    for (const integration of ['nodal', 'cell', 'quadrature']) {
      assert.ok(Number.isFinite(errors[integration]), `${integration} at ${across} across: ${errors[integration]}`);
    }
  }
  assert.ok(
    Math.abs(sweep[6].quadrature) < Math.abs(sweep[3].quadrature),
    `the quadrature's error falls: ${sweep[3].quadrature} at 3 across, ${sweep[6].quadrature} at 6`,
  );
  // The table's point at the page's own resolution is the beam on the page; at the defaults
  // (L/H = 10, ν = 0.45) its reference is the 3-D FEM solution, within 3.5 % of it at 4 across.
  const quadratureFem = parseFloat(quadrature['error-fem']);
  assert.ok(Math.abs(quadratureFem) < 3.5, `quadrature: ${quadratureFem} % from the 3-D FEM reference`);
  assert.ok(Math.abs(100 * sweep[4].quadrature - quadratureFem) < 0.01, `${sweep[4].quadrature} vs ${quadratureFem} %`);
  const plotted = await canvasStats(page, '#plot-convergence canvas');
  assert.ok(plotted.ink > 0, 'the convergence plot is drawn');

  // Bad input: refused at the control, the beam shown stays.
  const shown = await readouts(page);
  await page.fill('#param-across', '99');
  assert.match(await page.locator('#param-across-error').textContent(), /Must be between 3 and 8\. Still using 4\./);
  await page.fill('#param-young', 'steel');
  assert.match(await page.locator('#param-young-error').textContent(), /not a number/);
  await settled(page);
  const kept = await readouts(page);
  for (const id of ['phyxels', 'tip', 'volume-points', 'error-timoshenko']) assert.equal(kept[id], shown[id], id);
  // More phyxels than the page solves: refused at the control with the count, before any solve.
  await page.fill('#param-young', '1e8');
  await page.fill('#param-slenderness', '16');
  await settled(page, 120_000);
  await page.fill('#param-across', '8');
  await waitForText(page, '#param-across-error', /7296 phyxels; this page solves at most 5000.*Still using 4\./, 30_000);
  await settled(page, 120_000);
  // Still the quadrature: 16 × 3 + 1 = 49 layers of 16, none in the wall (it holds the face itself).
  assert.equal(await readNumber(page, '#readout-phyxels'), 784, '49 layers of 16');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a bad value in the URL is named at its control, and the defaults are solved', async () => {
  const { page, context, problems } = await openPage(env, 'integrating-solid.html?across=99&integration=quadrature');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  assert.match(await page.locator('#param-across-error').textContent(), /Must be between 3 and 8\. Still using 4\./);
  assert.match(await page.locator('#notices').textContent(), /URL parameter across=99 was refused/);
  await settled(page, 120_000);
  await waitForText(page, '#readout-status', /^solved \(Background quadrature/, 120_000);
  // 4 × 4 × 31 phyxels; the quadrature holds the wall face itself, so no phyxel sits in the wall.
  assert.match(await page.locator('#readout-phyxels').textContent(), /^496 \(0 held\)/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('two materials: the cylinder’s ends sink in beam theory’s ratio within 10 % at the defaults, and a bad ratio is refused', async (t) => {
  const { page, context, problems } = await openPage(env, 'integrating-solid.html');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  await waitForText(page, '#readout-cylinder-status', /^solved$/, 120_000);
  await settled(page, 120_000);
  const shown = await readouts(page);
  t.diagnostic(`cylinder: ${JSON.stringify(Object.fromEntries(Object.entries(shown).filter(([id]) => /cylinder|end|ratio|timoshenko/.test(id))))}`);
  assert.equal(await page.locator('#param-ratio').inputValue(), '10');
  assert.equal(await page.locator('#param-cylinderAcross').inputValue(), '5');
  // 5 across D = H = 0.1 m, L = 1 m: 41 layers of 9 lattice phyxels and a ring of 13 (the native tests' 902).
  assert.match(shown['cylinder-phyxels'], /^902 \(\d+\)$/);
  assert.equal(shown['theory-ratio'], '10.000');
  const ratio = Number(shown['end-ratio']);
  assert.ok(Math.abs(ratio / 10 - 1) < 0.1, `δ_soft/δ_stiff = ${ratio}, beam theory 10`);
  assert.ok(Math.abs(ratio / 10 - 1 - parseFloat(shown['ratio-error']) / 100) < 1e-4, `${ratio} vs ${shown['ratio-error']}`);
  // The readouts' ratio is the ends' own.
  const ends = parseFloat(shown['soft-end']) / parseFloat(shown['stiff-end']);
  assert.ok(Math.abs(ends / ratio - 1) < 2e-3, `${shown['soft-end']} / ${shown['stiff-end']} vs ${ratio}`);
  const drawn = await canvasStats(page, '#cylinder');
  assert.ok(drawn.ink > 0.01 * drawn.pixels, 'the cylinder is drawn');

  // Bad input: refused at the control with the reason, the cylinder shown stays.
  for (const bad of ['0', '-3']) {
    await page.fill('#param-ratio', bad);
    assert.match(await page.locator('#param-ratio-error').textContent(), /Must be between 1 and 100\. Still using 10\./);
  }
  // Finer than the work budget: refused with the count, before any solve.
  await page.fill('#param-ratio', '10');
  await page.fill('#param-slenderness', '16');
  await settled(page, 120_000);
  await waitForText(page, '#readout-cylinder-status', /^solved$/, 120_000);
  await page.fill('#param-cylinderAcross', '6');
  await waitForText(page, '#param-cylinderAcross-error', /2592 phyxels; this page solves at most 2000.*Still using 5\./, 60_000);
  await settled(page, 120_000);
  // Still 5 across at L/D = 16: 65 layers of 22.
  assert.match(await page.locator('#readout-cylinder-phyxels').textContent(), /^1430 \(/);
  assert.deepEqual(problems, []);
  await context.close();
});
