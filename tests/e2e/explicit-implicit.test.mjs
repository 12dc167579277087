// "Explicit vs implicit": both beams run below the bound; raising E stops the explicit beam with the
// bound in the message while the implicit one runs on at 1/60 s with its CG iterations shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, openPage, readNumber, canvasStats } from './harness.mjs';

const env = useBrowser();

async function waitForReadout(page, id, accept, timeout = 20_000) {
  const end = Date.now() + timeout;
  let text;
  while (Date.now() < end) {
    text = await page.locator(`#readout-${id}`).textContent();
    if (accept(text)) return text;
    await page.waitForTimeout(200);
  }
  assert.fail(`readout ${id} stayed at “${text}”`);
}

test('below the bound both beams sag; raising E stops the explicit one and the implicit one holds 1/60 s', async () => {
  const { page, context, problems } = await openPage(env, 'explicit-implicit.html');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  // 0.5 m × 0.1 m × 0.1 m at 4 across (both faces sampled, spacing 0.1/3 m): 16 × 4 × 4 phyxels.
  await waitForReadout(page, 'phyxels', (t) => t === '256');
  // h√(ρ/E) with h = 2.2 × 0.1/3 m, ρ = 1000, E = 1 MPa: 2.32 ms; the measured 2/ω_max (native test
  // `at_the_defaults_the_explicit_step_is_under_half_its_measured_bound`): 1.11 ms, of which the
  // explicit 0.5 ms is 0.452.
  await waitForReadout(page, 'cfl', (t) => t === '2.32 ms');
  await waitForReadout(page, 'bound', (t) => t === '1.11 ms');
  await waitForReadout(page, 'explicit-ratio', (t) => t === '0.452');
  // Timoshenko at x = L: q L⁴/(8EI) + q L²/(2κGA), q = 1000·9.81·0.01 N/m, EI = 10⁶·10⁻⁴/12 N m²,
  // κ = 10(1 + ν)/(12 + 11ν), G = E/(2(1 + ν)), ν = 0.3: 95.7 mm; the 3-D FEM 0.983799 of it: 94.2 mm.
  await waitForReadout(page, 'tip-theory', (t) => t === '95.7 mm');
  await waitForReadout(page, 'tip-fem', (t) => t === '94.2 mm');
  await waitForReadout(page, 'sim-time', (t) => parseFloat(t) > 1);
  // 1/60 s of explicit steps of 0.5 ms each frame: 33 or 34.
  assert.match(await page.locator('#readout-explicit-steps').textContent(), /^3[34]$/);
  await waitForReadout(page, 'implicit-steps', (t) => t === '1');
  assert.ok(await readNumber(page, '#readout-cg-iterations') >= 1);
  assert.ok(await readNumber(page, '#readout-cg-residual') <= 1e-4);
  const tipExplicit = await readNumber(page, '#readout-tip-explicit');
  const tipImplicit = await readNumber(page, '#readout-tip-implicit');
  assert.ok(tipExplicit > 20 && tipImplicit > 20, `both sag: ${tipExplicit} mm, ${tipImplicit} mm`);
  assert.equal(await page.locator('#notices .notice.error').count(), 0);
  const before = await canvasStats(page, '#scene');
  assert.ok(before.ink > 0.01 * before.pixels, 'the beams are drawn');

  // E = 100 MPa: the measured bound drops to 0.111 ms (∝ 1/√E), below the explicit 0.5 ms.
  await page.fill('#param-young', '1e8');
  await waitForReadout(page, 'cfl', (t) => t === '0.232 ms');
  await waitForReadout(page, 'bound', (t) => t === '0.111 ms');
  const notice = page.locator('#notices .notice.error');
  await notice.waitFor({ timeout: 20_000 });
  assert.match(await notice.textContent(), /^Explicit beam stopped: the simulation became unstable at t = .* h·√\(ρ\/E\)/);
  await waitForReadout(page, 'explicit-steps', (s) => s === 'stopped');
  assert.ok(Number.isFinite(await readNumber(page, '#readout-tip-explicit')), 'the last good state, not NaN');
  // The implicit beam runs on at 1/60 s and settles at its static deflection, in the linear range
  // 1.4 % short of the 3-D solution (native test `the_static_beam_converges_to_the_3d_solution…`).
  const t = await readNumber(page, '#readout-sim-time');
  await waitForReadout(page, 'sim-time', (s) => parseFloat(s) > t + 0.5);
  const stiffFem = await readNumber(page, '#readout-tip-fem');
  const stiffTip = await readNumber(page, '#readout-tip-implicit');
  assert.ok(Math.abs(stiffTip / stiffFem - 1) < 0.03, `implicit tip ${stiffTip} mm, 3-D FEM ${stiffFem} mm`);
  assert.match(await page.locator('#readout-implicit-error').textContent(), /^-1\.\d %$/);
  assert.equal(await notice.count(), 1, 'only the explicit beam stopped');

  // Bad input is refused at its control; the simulation keeps its last valid material.
  await page.fill('#param-young', 'steel');
  assert.match(await page.locator('#param-young-error').textContent(), /not a number/);
  await page.fill('#param-tolerance', '2');
  assert.match(await page.locator('#param-tolerance-error').textContent(), /Must be between/);
  await waitForReadout(page, 'cfl', (t) => t === '0.232 ms');
  // Restart with a softer material: both run again.
  await page.fill('#param-young', '1e6');
  await waitForReadout(page, 'explicit-steps', (s) => /^3[34]$/.test(s));
  assert.equal(await notice.count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});
