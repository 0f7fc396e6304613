// The browser benchmarks, in headless Chromium on the release build. Prints figures; asserts
// nothing.
//   core:     the loop core's per-step cost in wasm after histories of 10 to 10,000 events.
//   sessions: opening a 10,000-event session and listing sessions through the public JS API
//             (alone, and next to 100 small sessions).
//   trunk build --release --public-url ./ && node benches/browser/run.mjs [core|sessions]
// TABLOOP_DIST=<dir> measures another build (default: dist/ of this checkout).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../tests/e2e/support/server.mjs';
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';
import { measureSessions, median } from './sessions.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-bench-'));
fs.symlinkSync(path.resolve(process.env.TABLOOP_DIST ?? path.join(repo, 'dist')), path.join(root, 'tabloop'));
for (const page of ['bench.html', 'sessions.html']) {
  fs.copyFileSync(path.join(repo, 'benches/browser', page), path.join(root, page));
}
const which = process.argv[2] ?? 'all';
const SAMPLES = 7;

const fmt = (xs) => `median ${median(xs).toFixed(1)} ms  (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)}, n=${xs.length})`;

async function coreStep(browser, server) {
  const page = await browser.newPage();
  await page.goto(`${server.url}/bench.html`);
  await page.waitForFunction(() => Array.isArray(window.results), null, { timeout: 300_000 });
  const results = await page.evaluate(() => window.results);
  await page.close();
  const base = results[0].us_per_step;
  console.log('events  µs/step (wasm, Chromium)  ratio to 10 events');
  for (const { events, us_per_step } of results) {
    console.log(`${String(events).padStart(6)}  ${us_per_step.toFixed(2).padStart(24)}  ${(us_per_step / base).toFixed(2).padStart(18)}`);
  }
}

async function sessions(browser, server) {
  const figures = await measureSessions(browser, server, { sizes: [10_000], small: 100, samples: SAMPLES });
  for (const { events, created, ready } of figures.open) {
    console.log(`session of ${events} events`);
    console.log(`open, createAgent resolved:      ${fmt(created)}`);
    console.log(`open, next task recorded:        ${fmt(ready)}`);
  }
  for (const { events, first, again } of figures.events) {
    console.log(`events() of ${events} events (first call):  ${fmt(first)}`);
    console.log(`events() of ${events} events (second call): ${fmt(again)}`);
  }
  for (const { sessions, first, again, atOnce } of figures.list) {
    console.log(`listSessions, ${sessions} sessions (first call on the page): ${fmt(first)}`);
    console.log(`listSessions, ${sessions} sessions (second call):            ${fmt(again)}`);
    console.log(`listSessions, ${sessions} sessions (in init's own task):     ${fmt(atOnce)}`);
  }
}

const server = await serveStatic(root, { isolated: true });
const browser = await launchBrowser();
try {
  if (which === 'all' || which === 'core') await coreStep(browser, server);
  if (which === 'all' || which === 'sessions') await sessions(browser, server);
} finally {
  await browser.close();
  await server.close();
}
