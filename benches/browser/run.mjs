// The browser benchmark: the loop core's per-step cost in wasm, in headless Chromium, after
// histories of 10 to 10,000 events. Prints figures and ratios; asserts nothing.
//   trunk build --release --public-url ./ && node benches/browser/run.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../tests/e2e/support/server.mjs';
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-bench-'));
fs.symlinkSync(path.join(repo, 'dist'), path.join(root, 'tabloop'));
fs.copyFileSync(path.join(repo, 'benches/browser/bench.html'), path.join(root, 'bench.html'));
const server = await serveStatic(root, { isolated: true });
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}/bench.html`);
  await page.waitForFunction(() => Array.isArray(window.results), null, { timeout: 300_000 });
  const results = await page.evaluate(() => window.results);
  const base = results[0].us_per_step;
  console.log('events  µs/step (wasm, Chromium)  ratio to 10 events');
  for (const { events, us_per_step } of results) {
    console.log(`${String(events).padStart(6)}  ${us_per_step.toFixed(2).padStart(24)}  ${(us_per_step / base).toFixed(2).padStart(18)}`);
  }
} finally {
  await browser.close();
  await server.close();
}
