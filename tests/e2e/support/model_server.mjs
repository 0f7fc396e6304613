// A loopback server that hands out GGUF files under URLs of its own, as a model host would (a
// different origin from the site, with CORS), for tests of models other than the bundled one:
//
//   /m/<name>.gguf          the file, at full speed (or slowly after `throttle(true)`)
//   /slow/<name>.gguf       the file in 64 KiB pieces, one every `slowMs` ms (to cancel midway)
//   /cut/<name>.gguf        the Content-Length of the whole file, then half of it and a reset
//   /missing.gguf           404
//   /not-gguf.gguf          an HTML page served as a model
//
// `hits` lists every path asked for; `aborted` the paths whose reader went away early.
import http from 'node:http';
import fs from 'node:fs';

const PIECE = 64 * 1024;

/**
 * @param {string} file the GGUF to serve
 * @param {{slowMs?: number}} [options]
 */
export async function serveModels(file, { slowMs = 40 } = {}) {
  const bytes = fs.readFileSync(file);
  const hits = [];
  const aborted = [];
  let throttled = false;
  const server = http.createServer((req, res) => {
    const path = new URL(req.url, 'http://127.0.0.1').pathname;
    hits.push(path);
    const cors = {
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'cache-control': 'no-store',
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, 'access-control-allow-headers': '*' }).end();
      return;
    }
    const send = (status, type, body) =>
      res.writeHead(status, { ...cors, 'content-type': type, 'content-length': body.length }).end(body);
    if (path === '/not-gguf.gguf') return send(200, 'application/octet-stream', Buffer.from('<!doctype html><h1>Not a model</h1>\n'.repeat(64)));
    if (!/^\/(m|slow|cut)\/[\w.-]+\.gguf$/.test(path)) return send(404, 'text/plain', Buffer.from('not found'));
    const mode = path.split('/')[1];
    res.writeHead(200, { ...cors, 'content-type': 'application/octet-stream', 'content-length': bytes.length });
    res.on('close', () => {
      if (!res.writableFinished) aborted.push(path);
    });
    if (mode === 'm' && !throttled) {
      res.end(bytes);
      return;
    }
    if (mode === 'cut') {
      res.write(bytes.subarray(0, bytes.length >> 1), () => setTimeout(() => res.destroy(), 50));
      return;
    }
    let at = 0;
    const next = () => {
      if (res.destroyed) return;
      if (at >= bytes.length) {
        res.end();
        return;
      }
      res.write(bytes.subarray(at, at + PIECE));
      at += PIECE;
      setTimeout(next, slowMs);
    };
    next();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    bytes: bytes.length,
    hits,
    aborted,
    /** Makes /m/ as slow as /slow/ (true) or full speed again (false). */
    throttle: (on) => {
      throttled = on;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
