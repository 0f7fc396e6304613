#!/usr/bin/env node
// Cargo's runner for wasm32 test binaries. wasm-bindgen-test-runner serves the test page
// (NO_HEADLESS mode); headless Chromium, driven by playwright-core exactly as in the end-to-end
// tests, runs it, and its output and verdict become this process's. A run that does not finish
// within WASM_BINDGEN_TEST_TIMEOUT seconds fails with what it printed so far.
//
// Why not wasm-bindgen-test-runner's own chromedriver mode: on these machines the test page
// sometimes stalls while loading its scripts (about one run in six of the IndexedDB suite), before
// any test starts; chromedriver then waits 300 s and fails. Here a page that has started no test
// after 15 s is loaded again, and that is reported.
import { spawn } from 'node:child_process';
import { launchBrowser } from '../e2e/support/browser.mjs';
import { freePort } from '../e2e/support/free_port.mjs';

const [wasm, ...args] = process.argv.slice(2);
const limitMs = Number(process.env.WASM_BINDGEN_TEST_TIMEOUT ?? 120) * 1000;

const port = await freePort();
const runner = spawn('wasm-bindgen-test-runner', [wasm, ...args], {
  env: { ...process.env, NO_HEADLESS: '1', WASM_BINDGEN_TEST_ADDRESS: `127.0.0.1:${port}` },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const url = await new Promise((resolve, reject) => {
  let text = '';
  const timer = setTimeout(() => reject(new Error(`the test server did not start:\n${text}`)), 120_000);
  runner.stdout.on('data', (d) => {
    text += d;
    const match = text.match(/available at (http:\/\/\S+)/);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
  runner.on('exit', (code) => reject(new Error(`wasm-bindgen-test-runner exited (${code}):\n${text}`)));
});

let exitCode = 1;
let lastLoad = 0;
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  // The tests run while the page loads, so do not wait for the load event. If no test has
  // started after 15 s the page itself stalled while loading its scripts (seen here now and
  // then); no test ran, so loading it again is safe. It is reported, never hidden.
  let output = '';
  let loads = 0;
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if (loads === 0 || (!/running \d+ tests?/.test(output) && Date.now() - lastLoad > 15_000 && loads < 4)) {
      if (loads > 0) console.error(`the test page stalled before any test started; loading it again (${loads})`);
      await page.goto(url, { waitUntil: 'commit' });
      loads += 1;
      lastLoad = Date.now();
    }
    output = await page.evaluate(() => document.body?.innerText ?? '').catch(() => '');
    if (/test result: (ok|FAILED)\./.test(output)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  console.log(output.trim());
  if (/test result: ok\./.test(output)) exitCode = 0;
  else if (!/test result: FAILED\./.test(output)) console.error(`no result within ${limitMs / 1000} s`);
} finally {
  await browser.close();
  runner.kill('SIGTERM');
}
process.exit(exitCode);
