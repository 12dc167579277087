// The static server (web/serve.mjs) against a temporary folder, without a browser: the site's
// Content-Security-Policy and nosniff on every answer (and the same policy in web/_headers), GET and
// HEAD only, 400 for a path that does not decode, and nothing outside the served folder — not through
// `..`, encoded or not, nor through a symbolic link. Run: cd tests && node --test unit/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTENT_SECURITY_POLICY, serve } from '../../web/serve.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const top = mkdtempSync(join(tmpdir(), 'phyxel-serve-'));
const site = join(top, 'dist');
let server;
let port;

before(async () => {
  mkdirSync(join(site, 'js'), { recursive: true });
  writeFileSync(join(site, 'index.html'), '<!doctype html><title>index</title>');
  writeFileSync(join(site, 'js', 'a.js'), 'export const a = 1;');
  writeFileSync(join(top, 'secret.txt'), 'not for the web');
  symlinkSync(join(top, 'secret.txt'), join(site, 'leak.txt'));
  symlinkSync(top, join(site, 'up'));
  symlinkSync(join(site, 'js', 'a.js'), join(site, 'alias.js'));
  server = await serve({ dir: site, port: 0 });
  port = server.address().port;
});
after(() => {
  server.close();
  rmSync(top, { recursive: true, force: true });
});

/** A raw request (the path is sent as written, not normalised by a URL parser). */
function fetchRaw(method, path) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path }, (res) => {
      let body = '';
      res.on('data', (chunk) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('every answer carries the CSP and nosniff; files are served with their type', async () => {
  for (const path of ['/', '/js/a.js', '/missing.html', '/%zz']) {
    const { headers } = await fetchRaw('GET', path);
    assert.equal(headers['content-security-policy'], CONTENT_SECURITY_POLICY, path);
    assert.equal(headers['x-content-type-options'], 'nosniff', path);
  }
  const page = await fetchRaw('GET', '/');
  assert.equal(page.status, 200);
  assert.match(page.body, /<title>index<\/title>/);
  assert.equal((await fetchRaw('GET', '/js/a.js')).headers['content-type'], 'text/javascript; charset=utf-8');
  const head = await fetchRaw('HEAD', '/js/a.js');
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
});

test('the policy is strict: no unsafe-inline or unsafe-eval, WebAssembly allowed, no plugins or <base>', () => {
  assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-inline|'unsafe-eval'|\*|data:|https?:/);
  assert.deepEqual(CONTENT_SECURITY_POLICY.split('; ').filter((d) => d.includes('blob:')), ["worker-src 'self' blob:"], 'blob: for workers only');
  for (const directive of ["default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "object-src 'none'", "base-uri 'none'"]) {
    assert.ok(CONTENT_SECURITY_POLICY.split('; ').includes(directive), directive);
  }
});

test('web/_headers sends the same policy and nosniff to every path', () => {
  const headers = readFileSync(join(ROOT, 'web', '_headers'), 'utf8');
  const block = headers.split(/^\/\*$/m)[1].split(/^\S/m)[0];
  assert.ok(block.includes(`  Content-Security-Policy: ${CONTENT_SECURITY_POLICY}\n`), block);
  assert.ok(block.includes('  X-Content-Type-Options: nosniff\n'), block);
});

test('GET and HEAD only', async () => {
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE']) {
    const answer = await fetchRaw(method, '/index.html');
    assert.equal(answer.status, 405, method);
    assert.equal(answer.headers.allow, 'GET, HEAD');
  }
});

test('a path that does not decode is 400, not 500', async () => {
  for (const path of ['/%', '/%zz', '/%E0%A4%A', '/js/%c0%af', '/index.html%00', '/%ff%fe']) {
    const answer = await fetchRaw('GET', path);
    assert.equal(answer.status, 400, path);
    assert.match(answer.body, /Bad request: the path does not decode/);
  }
});

test('nothing outside the served folder: not by .., encoded or not, nor by a link', async () => {
  for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/js/..%2f..%2fsecret.txt', '/..%5csecret.txt', '/leak.txt', '/up/secret.txt']) {
    const answer = await fetchRaw('GET', path);
    assert.equal(answer.status, 404, path);
    assert.doesNotMatch(answer.body, /not for the web/, path);
  }
  const alias = await fetchRaw('GET', '/alias.js');
  assert.equal(alias.status, 200, 'a link to a file inside is served');
  assert.equal(alias.body, 'export const a = 1;');
});
