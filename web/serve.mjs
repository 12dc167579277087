#!/usr/bin/env node
// Static server for the built site (dist/). Sends the cross-origin isolation headers the threaded
// build needs (COOP/COEP) unless --no-isolation is given, CORS for every file (a course page on
// another origin imports js/phyxel-demo.js), and the right MIME type for .wasm.
//
//   node web/serve.mjs [--dir dist] [--port 8080] [--host 127.0.0.1] [--no-isolation]
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

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
  const server = createServer(async (request, response) => {
    // Any origin may load the site's files (a course page importing js/phyxel-demo.js as a module
    // needs CORS); the pages themselves hold nothing private.
    const headers = { 'Cache-Control': 'no-cache', 'Cross-Origin-Resource-Policy': 'cross-origin', 'Access-Control-Allow-Origin': '*' };
    if (isolation) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    }
    try {
      const url = new URL(request.url, 'http://localhost');
      let path = normalize(join(root, decodeURIComponent(url.pathname)));
      if (path !== root && !path.startsWith(root + sep)) throw Object.assign(new Error('outside root'), { code: 'ENOENT' });
      if ((await stat(path)).isDirectory()) path = join(path, 'index.html');
      const body = await readFile(path);
      response.writeHead(200, { ...headers, 'Content-Type': MIME[extname(path)] ?? 'application/octet-stream' });
      response.end(request.method === 'HEAD' ? undefined : body);
    } catch (error) {
      const status = error.code === 'ENOENT' || error.code === 'ENOTDIR' ? 404 : 500;
      response.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      response.end(status === 404 ? 'Not found\n' : 'Server error\n');
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
