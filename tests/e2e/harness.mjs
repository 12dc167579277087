// Shared set-up for the browser end-to-end tests: serve dist/ on a free loopback port, launch Debian's
// Chromium through playwright-core, and record every console error, page error, Content-Security-Policy
// violation and off-site request.
//
// PHYXEL_WEBGPU=1 launches Chromium with --enable-unsafe-webgpu (WebGPU through SwiftShader),
// PHYXEL_WEBGPU=0 without it (no WebGPU). ./dev test runs every file with WebGPU, and again without it
// the files marked with a line `// PHYXEL_WEBGPU: both — <why>` (their pages behave differently); a
// test of such a file whose pages do the same either way takes `WEBGPU_PASS_ONLY` as its options.
import { after, before, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { inflateSync } from 'node:zlib';
import { serve } from '../../web/serve.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WEBGPU = process.env.PHYXEL_WEBGPU !== '0';

/**
 * The options of a test in a `both` file that nothing about WebGPU changes (2D pages, refusals before
 * any step): it runs in the pass with WebGPU and is skipped, saying so, in the pass without.
 */
export const WEBGPU_PASS_ONLY = { skip: WEBGPU ? false : 'nothing in it depends on WebGPU: it ran in the pass with WebGPU' };

/**
 * How long the 3D demo may take to choose its solver (a WebGPU adapter or the CPU worker, and its
 * first steps): 20 s sufficed on an idle machine, and ran out once with two builds beside the tests
 * (2026-11-29): the choice's speed is the machine's, not what the tests check.
 */
const SOLVER_CHOICE_MS = 60_000;

/** Wait until the 3D demo has chosen its solver (body[data-solver-chosen]). */
export function solverChosen(page) {
  return page.waitForSelector('body[data-solver-chosen="true"]', { timeout: SOLVER_CHOICE_MS });
}

/**
 * Launch Debian's Chromium headless, with WebGPU (SwiftShader) when PHYXEL_WEBGPU is not 0, and any
 * `extraArgs` (e.g. --enable-precise-memory-info for the fuzz layer's heap readings).
 */
function launchChromium(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      ...(WEBGPU ? ['--enable-unsafe-webgpu'] : []),
      ...extraArgs,
    ],
  });
}

/**
 * Start the server and the browser for one test file; returns an object filled in `before`.
 * `browserPerTest`: a fresh browser for every test (the WebGPU tests: a GPU process that lost its
 * device in one test must not decide what the next one is granted). `extraArgs`: more Chromium flags.
 */
export function useBrowser({ isolation = true, browserPerTest = false, extraArgs = [] } = {}) {
  const env = { baseUrl: '', browser: null, server: null };
  before(async () => {
    env.server = await serve({ dir: join(ROOT, 'dist'), port: 0, isolation });
    env.baseUrl = `http://127.0.0.1:${env.server.address().port}/`;
    env.browser = await launchChromium(extraArgs);
  });
  if (browserPerTest) {
    beforeEach(async () => {
      await env.browser?.close();
      env.browser = await launchChromium(extraArgs);
    });
  }
  after(async () => {
    await env.browser?.close();
    await new Promise((resolve) => (env.server ? env.server.close(resolve) : resolve()));
  });
  return env;
}

/** Run in every frame before its own scripts: each `securitypolicyviolation` becomes a console error. */
export const RECORD_CSP_VIOLATIONS = `
  window.__cspViolations = [];
  window.addEventListener('securitypolicyviolation', (event) => {
    const what = event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' at ' + event.sourceFile + ':' + event.lineNumber + (event.sample ? ' (' + event.sample + ')' : '');
    window.__cspViolations.push(what);
    console.error('CSP violation: ' + what);
  }, true);`;

/**
 * Open `path` (relative to the site, or an absolute URL) in a fresh context. Returns
 * { page, problems, context }: `problems` collects console errors, uncaught page errors, failed
 * requests and requests to any origin but the site's and `alsoAllowed` (the site must work offline).
 */
export async function openPage(env, path, contextOptions = {}, { alsoAllowed = [], initScript = null } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions });
  // Every Content-Security-Policy violation in any frame is a problem (web/serve.mjs serves the site's
  // policy): reported as a console error, and counted in window.__cspViolations.
  await context.addInitScript(RECORD_CSP_VIOLATIONS);
  // A script run in every frame before the page's own (e.g. to stand in for a slow machine).
  if (initScript) await context.addInitScript(initScript);
  const page = await context.newPage();
  const problems = [];
  // Errors, and the warnings that say the site calls something in a way that is going away (wasm-bindgen's
  // "deprecated parameters" for an init called with bare arguments, in the page or in any of its workers).
  const watch = (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    if (message.type() === 'warning' && /deprecated/i.test(message.text())) problems.push(`deprecation warning: ${message.text()}`);
  };
  page.on('console', watch);
  page.on('worker', (worker) => worker.on('console', watch));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  page.on('request', (request) => {
    // blob: URLs of the site's own origin are local too (the solver's thread pool starts from them).
    const allowed = [env.baseUrl, `blob:${env.baseUrl}`, 'data:', ...alsoAllowed];
    if (!allowed.some((prefix) => request.url().startsWith(prefix))) {
      problems.push(`off-site request: ${request.url()}`);
    }
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  await page.goto(/^https?:/.test(path) ? path : env.baseUrl + path);
  return { page, context, problems };
}

/** Wait until the WebGPU probe has filled the footer badge, and check it matches the browser flags. */
export async function expectBackendBadge(page) {
  const badge = page.locator('#backend-badge');
  await page.waitForFunction(() => document.getElementById('backend-badge')?.dataset.webgpu !== 'pending');
  assert.equal(await badge.getAttribute('data-webgpu'), WEBGPU ? 'available' : 'unavailable', await badge.textContent());
}

/** A number parsed from an element's text ("1.234 s" → 1.234). */
export async function readNumber(page, selector) {
  const text = await page.locator(selector).textContent();
  const value = parseFloat(text);
  assert.ok(Number.isFinite(value), `${selector} shows “${text}”, not a number`);
  return value;
}

/**
 * Wait until an element's text matches `pattern` (a RegExp) and return the text: readouts of a solver
 * in a lesson worker arrive a frame or two after the page is ready.
 */
export async function waitForText(page, selector, pattern, timeout = 10_000) {
  try {
    await page.waitForFunction(
      ([sel, source, flags]) => new RegExp(source, flags).test(document.querySelector(sel)?.textContent ?? ''),
      [selector, pattern.source, pattern.flags],
      { timeout },
    );
  } catch {
    assert.fail(`${selector} shows “${await page.locator(selector).textContent()}”, not ${pattern}`);
  }
  return page.locator(selector).textContent();
}

/**
 * Wait until the page has finished what it had asked of its lesson worker when this was called (a Step,
 * a restart, a frame): js/site/page.js numbers that work in body[data-asked] and counts it finished in
 * body[data-done]. Work asked later (the next frames of a running simulation) is not waited for, so a
 * loaded machine whose frames always have one in flight still settles.
 */
export async function settled(page, timeout = 10_000) {
  const asked = await page.evaluate(() => Number(document.body.dataset.asked ?? 0));
  await page.waitForFunction((asked) => Number(document.body.dataset.done ?? 0) >= asked, asked, { timeout, polling: 10 });
}

/** Statistics of a canvas's pixels: how many differ from white, and a hash to compare frames. */
export function canvasStats(page, selector) {
  return page.evaluate((sel) => {
    const canvas = document.querySelector(sel);
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let ink = 0;
    let hash = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] < 250 || data[i + 1] < 250 || data[i + 2] < 250) ink++;
      hash = (hash * 31 + data[i] + 7 * data[i + 1] + 13 * data[i + 2]) | 0;
    }
    return { ink, hash, pixels: data.length / 4 };
  }, selector);
}

/**
 * Count the pixels of an element's screenshot that satisfy `predicate(r, g, b)` (a WebGPU or WebGL
 * canvas cannot be read back from script, but its screenshot can).
 */
export async function screenshotPixels(locator, predicate) {
  const png = await locator.screenshot();
  const { width, height, rgba } = decodePng(png);
  let count = 0;
  for (let i = 0; i < rgba.length; i += 4) if (predicate(rgba[i], rgba[i + 1], rgba[i + 2])) count++;
  return { count, total: width * height };
}

/** Decode an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium's screenshots are). */
export function decodePng(buffer) {
  const chunks = [];
  let width = 0;
  let height = 0;
  let channels = 4;
  for (let offset = 8; offset < buffer.length;) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('latin1', offset + 4, offset + 8);
    const data = buffer.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.equal(data[8], 8, '8-bit PNG');
      channels = { 2: 3, 6: 4 }[data[9]];
      assert.ok(channels && data[12] === 0, 'RGB(A), non-interlaced PNG');
    } else if (type === 'IDAT') {
      chunks.push(data);
    }
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(chunks));
  const stride = width * channels;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[y * stride + x - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels] : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter];
      pixels[y * stride + x] = (line[x] + predictor) & 0xff;
    }
  }
  const rgba = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    for (let k = 0; k < 3; k++) rgba[i * 4 + k] = pixels[i * channels + k];
    rgba[i * 4 + 3] = channels === 4 ? pixels[i * channels + 3] : 255;
  }
  return { width, height, rgba };
}

/** Wait for the bench page (opened with ?…&run=1) to finish; returns its JSON report. */
export async function benchReport(page) {
  try {
    await page.waitForSelector('body[data-bench="done"], body[data-bench="failed"]', { timeout: 180_000 });
  } catch (error) {
    // Say which run never finished (the page's status names it).
    error.message += `\nthe bench page's status: ${await page.locator('#bench-status').textContent()}`;
    throw error;
  }
  assert.equal(await page.getAttribute('body', 'data-bench'), 'done', await page.locator('#bench-status').textContent());
  return JSON.parse(await page.locator('#bench-json').textContent());
}
