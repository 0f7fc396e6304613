// The README's serve command serves the playground: it answers with the cross-origin isolation
// headers (threads for the local model), the page renders in headless Chromium, and after that
// first visit it starts again with the network gone (its service worker keeps the site).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { freePort } from './support/free_port.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from './support/browser.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function waitForHttp(url, ms) {
  const start = Date.now();
  while (Date.now() - start < ms) {
    try {
      const response = await fetch(url);
      if (response.ok) return response;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${url} did not answer within ${ms} ms`);
}

test('scripts/serve.sh serves a playground that renders, cross-origin isolated', { timeout: 600_000 }, async () => {
  const port = await freePort();
  const dist = path.join(repo, 'target', 'serve-dist');
  const child = spawn('bash', ['scripts/serve.sh', '--port', String(port), '--dist', dist], {
    cwd: repo,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const browser = await launchBrowser();
  try {
    const url = `http://127.0.0.1:${port}/`;
    const response = await waitForHttp(url, 480_000).catch((error) => {
      throw new Error(`${error.message}\n--- serve output ---\n${output.slice(-4000)}`);
    });
    assert.equal(response.headers.get('cross-origin-opener-policy'), 'same-origin');
    assert.equal(response.headers.get('cross-origin-embedder-policy'), 'require-corp');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector('h1', { timeout: 60_000 });
    assert.equal(await page.textContent('h1'), 'tabloop');
    assert.equal(await page.evaluate(() => window.crossOriginIsolated), true);
    assert.equal(await page.evaluate(() => typeof window.tabloop?.createAgent), 'function');
    fs.mkdirSync(path.join(repo, 'tests/e2e/out'), { recursive: true });
    await page.screenshot({ path: path.join(repo, 'tests/e2e/out/serve.png') });
    // The worker took the site; offline, a reload starts the playground from it.
    await page.waitForFunction(() => navigator.serviceWorker?.controller != null, null, { timeout: 60_000 });
    await page.waitForSelector('[data-testid=network-state][data-state=offline-ready]', { timeout: 60_000 });
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('[data-testid=task]', { timeout: 60_000 });
    assert.equal(await page.getAttribute('[data-testid=network-state]', 'data-state'), 'offline');
  } finally {
    await browser.close();
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
});
