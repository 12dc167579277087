#!/usr/bin/env node
// Static server for the built site (dist/). Sends the cross-origin isolation headers the threaded
// build needs (COOP/COEP) unless --no-isolation is given, CORS for every file (a course page on
// another origin imports js/phyxel-demo.js), the right MIME type for .wasm, and the site's
// Content-Security-Policy with `X-Content-Type-Options: nosniff` (the same as web/_headers).
// GET and HEAD only (405 otherwise); a path that does not decode is 400; a file whose real path (links
// followed) lies outside the served folder is 404, as a missing one.
//
//   node web/serve.mjs [--dir dist] [--port 8080] [--host 127.0.0.1] [--no-isolation]
import { createServer } from 'node:http';
import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

/**
 * The site's Content-Security-Policy (docs/hosting.md): scripts, styles, workers, frames, fonts and
 * fetches from the site itself only (workers also from blob: URLs, which the threaded solver's pool,
 * wasm-bindgen-rayon, makes from its own module); WebAssembly may be compiled ('wasm-unsafe-eval', not 'unsafe-eval':
 * no eval or new Function); no inline script or style (styles set from script through CSSOM are
 * allowed; style attributes in markup are not); no plugins; no <base>. Framing is not restricted: any
 * course page may embed a demo. web/_headers sends the same (a unit test compares them).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');


const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};

function parseArgs(argv) {
  const options = { dir: 'dist', port: 8080, host: '127.0.0.1', isolation: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--dir') options.dir = argv[++i];
    else if (arg === '--port') options.port = Number(argv[++i]);
    else if (arg === '--host') options.host = argv[++i];
    else if (arg === '--no-isolation') options.isolation = false;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) throw new Error('--port must be 0…65535');
  return options;
}

/** Start serving; resolves to the http.Server once listening (port 0 picks a free port). */
export function serve({ dir = 'dist', port = 8080, host = '127.0.0.1', isolation = true } = {}) {
  const root = resolve(dir);
  // The served folder's own real path (dist/ may itself be a link), found at the first request.
  let realRoot = null;
  const server = createServer(async (request, response) => {
    // Any origin may load the site's files (a course page importing js/phyxel-demo.js as a module
    // needs CORS); the pages themselves hold nothing private.
    const headers = {
      'Cache-Control': 'no-cache',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Access-Control-Allow-Origin': '*',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
    };
    if (isolation) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    }
    const fail = (status, text, extra = {}) => {
      response.writeHead(status, { ...headers, ...extra, 'Content-Type': 'text/plain; charset=utf-8' });
      response.end(request.method === 'HEAD' ? undefined : text);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return fail(405, 'Method not allowed: GET or HEAD only\n', { Allow: 'GET, HEAD' });
    let path;
    try {
      const url = new URL(request.url, 'http://localhost');
      const decoded = decodeURIComponent(url.pathname);
      if (decoded.includes('\0')) throw new URIError('NUL in path');
      path = normalize(join(root, decoded));
    } catch {
      return fail(400, 'Bad request: the path does not decode\n');
    }
    try {
      const inside = (p, top) => p === top || p.startsWith(top + sep);
      if (!inside(path, root)) return fail(404, 'Not found\n');
      // Links are followed, but only to files inside the served folder.
      let real = await realpath(path);
      if ((await stat(real)).isDirectory()) real = await realpath(join(real, 'index.html'));
      realRoot ??= await realpath(root);
      if (!inside(real, realRoot)) return fail(404, 'Not found\n');
      const body = await readFile(real);
      response.writeHead(200, { ...headers, 'Content-Type': MIME[extname(real)] ?? 'application/octet-stream' });
      response.end(request.method === 'HEAD' ? undefined : body);
    } catch (error) {
      if (['ENOENT', 'ENOTDIR', 'ELOOP', 'ENAMETOOLONG'].includes(error.code)) return fail(404, 'Not found\n');
      return fail(500, 'Server error\n');
    }
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolvePromise(server));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = parseArgs(process.argv.slice(2));
  const server = await serve(options);
  const { port } = server.address();
  console.log(`Serving ${options.dir}/ at http://${options.host}:${port}/ ${options.isolation ? '(cross-origin isolated)' : '(not isolated)'}`);
}
