// The browser side of the tool suites: a canary server, the repository served plain and with
// COOP/COEP (plus the loopback routes the tools call), one Chromium, and the tools harness page.
// `useToolsHarness()` registers the suite's before/after hooks and returns what the tests use.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { serveStatic } from './server.mjs';
import { launchBrowser } from './browser.mjs';
import { startCanary } from './sandbox_probes.mjs';

export const ROOT = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const SANDBOX_HTML = path.join(ROOT, 'www/sandbox/sandbox.html');
const HARNESS = '/tests/e2e/pages/tools-harness.html';

/** Prints one figure line for the test log. */
export function report(figures) {
  console.log(JSON.stringify({ suite: 'tools', ...figures }));
}

function routes(canaryPort, reports) {
  const big = 'x'.repeat(300 * 1024);
  return {
    '/api/small': (req, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-test': 'yes' }).end('{"hello":"world"}'),
    '/api/big': (req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(big),
    '/api/echo': (req, res) => {
      let body = '';
      req.on('data', (chunk) => { body += chunk; });
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, body, header: req.headers['x-custom'] ?? null })));
    },
    '/api/binary': (req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(1000)),
    '/api/redirect-private': (req, res) => res.writeHead(302, { location: `http://127.0.0.1:${canaryPort}/from-redirect` }).end(),
    '/api/redirect-metadata': (req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    '/api/slow': (req, res) => {
      const timer = setTimeout(() => res.writeHead(200).end('late'), 5000);
      req.on('close', () => clearTimeout(timer));
    },
    '/report': (req, res) => {
      reports.push(JSON.parse(decodeURIComponent(new URL(req.url, 'http://x').search.slice(1))));
      res.writeHead(204).end();
    },
    // The sandbox page served WITHOUT any isolation headers, to prove `credentialless` lets it load
    // under the app's COEP anyway.
    '/nocoep/sandbox.html': (req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(fs.readFileSync(SANDBOX_HTML)),
  };
}


/** Paths of `server` hit that lead to the canary (directly or by a redirect). */
export function canaryHits(server) {
  return server.hits.filter((p) => p.startsWith('/canary') || p === '/from-redirect');
}

/**
 * Starts the canary, both servers and Chromium before the file's tests and stops them after.
 * Returns `{ servers: { plain, isolated }, canary, browser, reports, openHarness(server) }`,
 * filled in once the hooks ran; `reports` collects what pages send to /report.
 */
export function useToolsHarness() {
  const h = { servers: {}, reports: [], canary: null, browser: null };
  before(async () => {
    h.canary = await startCanary();
    h.servers.plain = await serveStatic(ROOT, { isolated: false, routes: routes(h.canary.port, h.reports) });
    h.servers.isolated = await serveStatic(ROOT, { isolated: true, routes: routes(h.canary.port, h.reports) });
    h.browser = await launchBrowser();
  });
  after(async () => {
    await h.browser?.close();
    await Promise.all(Object.values(h.servers).map((s) => s.close()));
    await h.canary?.close();
  });
  h.openHarness = async (server) => {
    const page = await h.browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.url}${HARNESS}`);
    await page.waitForFunction(() => window.toolsReady === true, null, { timeout: 15000 });
    page.errors = errors;
    return page;
  };
  return h;
}
