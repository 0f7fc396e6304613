// What the A/B benchmarks (ab.mjs, ab_sessions.mjs) share: reading their arguments, serving a
// package beside the harness page, and the paired ratio with its bootstrap interval.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../tests/e2e/support/server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

export const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/**
 * The command line: `option(name, fallback)` for the valued options named in `valued`, and the
 * two packages (every other argument not starting with --); exits with `usage` otherwise.
 */
export function readArgs(valued, usage) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const packages = args.filter((arg, i) => !arg.startsWith('--') && !valued.includes(args[i - 1]));
  if (packages.length !== 2) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return { args, option, packages };
}

/** A loopback server with `pkg` as /tabloop/ beside ab.html and the harness; `close()` ends it. */
export async function servePackage(pkg) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-ab-'));
  fs.symlinkSync(path.resolve(pkg), path.join(root, 'tabloop'));
  for (const file of ['ab.html', 'compare_tabloop.js']) fs.copyFileSync(path.join(here, file), path.join(root, file));
  const server = await serveStatic(root, { isolated: true });
  return {
    server,
    async close() {
      await server.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Opens ab.html of `server` in `context` and waits for the harness. */
export async function openHarness(context, server) {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(`${server.url}/ab.html`);
  await page.waitForFunction(() => window.benchReady === true, null, { timeout: 60_000 });
  return page;
}

/** The median of the paired ratios b[i] / a[i] and its 90 % bootstrap interval, as text. */
export function pairedRatio(a, b) {
  const ratios = b.map((value, i) => value / a[i]);
  const resampled = [];
  for (let k = 0; k < 2000; k += 1) resampled.push(median(ratios.map(() => ratios[Math.floor(Math.random() * ratios.length)])));
  resampled.sort((x, y) => x - y);
  return `median ${median(ratios).toFixed(3)}, 90 % interval ${resampled[100].toFixed(3)}–${resampled[1900].toFixed(3)}`;
}
