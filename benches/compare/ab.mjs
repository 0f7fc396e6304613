// Two builds of tabloop against each other, for changes too small for the side-by-side run's
// seven repetitions (a run's ratio moves by a tenth from one run to the next on a shared machine;
// a change of a few percent needs many short runs, alternated). Each package gets a page of its
// own in one headless Chromium; rounds alternate them, the order flipped every round, each round
// one run of the harness workload (compare_tabloop.js) per page. Prints each package's median ms
// a step, the median of the per-round ratios B / A with a 90 % bootstrap interval, and the ratio
// of the means. Figures only; it asserts nothing but that the runs completed.
//   node benches/compare/ab.mjs PKG_A PKG_B [--rounds 150] [--steps 300] [--idempotent]
// A package is a directory as scripts/build-package.sh writes it. Run it with the same package
// twice to see the noise on this machine (an interval that holds 1).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../tests/e2e/support/server.mjs';
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
// The options that take a value; every other argument not starting with -- is a package.
const VALUED = ['--rounds', '--steps'];
const packages = args.filter((arg, i) => !arg.startsWith('--') && !VALUED.includes(args[i - 1]));
if (packages.length !== 2) {
  console.error('usage: node benches/compare/ab.mjs PKG_A PKG_B [--rounds 150] [--steps 300] [--idempotent]');
  process.exit(2);
}
const rounds = Number(option('--rounds', 150));
const steps = Number(option('--steps', 300));
const idempotent = args.includes('--idempotent');

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** A page serving `pkg` as /tabloop/ beside the harness. */
async function open(browser, pkg) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-ab-'));
  fs.symlinkSync(path.resolve(pkg), path.join(root, 'tabloop'));
  for (const file of ['ab.html', 'compare_tabloop.js']) fs.copyFileSync(path.join(here, file), path.join(root, file));
  const server = await serveStatic(root, { isolated: true });
  const page = await browser.newPage();
  await page.goto(`${server.url}/ab.html`);
  await page.waitForFunction(() => window.benchReady === true, null, { timeout: 60_000 });
  return { page, server, root };
}

/** One run's ms a step. */
async function run(page, n, tag) {
  const result = await page.evaluate(([n, idempotent, tag]) => window.tabloopHarness(n, { idempotent, tag }), [n, idempotent, tag]);
  if (result.stopReason !== 'completed' || result.steps !== n) {
    throw new Error(`a run stopped ${result.stopReason} after ${result.steps} of ${n} steps`);
  }
  return result.ms / n;
}

const browser = await launchBrowser();
const pages = [await open(browser, packages[0]), await open(browser, packages[1])];
try {
  for (const { page } of pages) await run(page, 50, '-warm');
  const times = [[], []];
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order) times[which].push(await run(pages[which].page, steps, `-${round}`));
  }
  const ratios = times[1].map((b, i) => b / times[0][i]);
  const resampled = [];
  for (let k = 0; k < 2000; k += 1) {
    resampled.push(median(ratios.map(() => ratios[Math.floor(Math.random() * ratios.length)])));
  }
  resampled.sort((a, b) => a - b);
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  console.log(`${rounds} rounds of ${steps} steps, tool ${idempotent ? '' : 'not '}idempotent`);
  console.log(`A ${packages[0]}: ${median(times[0]).toFixed(3)} ms a step (median)`);
  console.log(`B ${packages[1]}: ${median(times[1]).toFixed(3)} ms a step (median)`);
  console.log(`B / A paired: median ${median(ratios).toFixed(3)}, 90 % interval ${resampled[100].toFixed(3)}–${resampled[1900].toFixed(3)}; ratio of the means ${(mean(times[1]) / mean(times[0])).toFixed(3)}`);
} finally {
  await browser.close();
  for (const { server, root } of pages) {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
