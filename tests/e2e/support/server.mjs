// A static file server on loopback for end-to-end tests. Serves a directory, optionally with the
// cross-origin isolation headers (COOP/COEP) that let wllama use threads.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.gguf': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
};

/**
 * Starts a server for `root` on 127.0.0.1 with an ephemeral port.
 * @param {string} root directory to serve
 * @param {{isolated?: boolean, routes?: Record<string, (req, res) => void>, down?: () => boolean}} [options]
 *   `down()` true: every request's connection is dropped unanswered (the network is gone)
 * @returns {Promise<{url: string, close: () => Promise<void>, hits: string[]}>}
 */
export async function serveStatic(root, options = {}) {
  const hits = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    hits.push(url.pathname);
    if (options.down?.()) return req.socket.destroy();
    const route = options.routes?.[url.pathname];
    if (route) return route(req, res);
    const file = path.normalize(path.join(root, decodeURIComponent(url.pathname)));
    if (!file.startsWith(path.resolve(root))) {
      res.writeHead(403).end();
      return;
    }
    let target = file;
    if (fs.existsSync(target) && fs.statSync(target).isDirectory()) target = path.join(target, 'index.html');
    if (!fs.existsSync(target)) {
      res.writeHead(404).end('not found');
      return;
    }
    const headers = {
      'content-type': TYPES[path.extname(target)] ?? 'application/octet-stream',
      'content-length': fs.statSync(target).size,
      'cache-control': 'no-store',
    };
    if (options.isolated) {
      headers['cross-origin-opener-policy'] = 'same-origin';
      headers['cross-origin-embedder-policy'] = 'require-corp';
      headers['cross-origin-resource-policy'] = 'same-origin';
    }
    res.writeHead(200, headers);
    fs.createReadStream(target).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
