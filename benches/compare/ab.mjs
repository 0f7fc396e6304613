// Two builds of tabloop against each other, for changes too small for the side-by-side run's
// seven repetitions (a run's ratio moves by a tenth from one run to the next on a shared machine;
// a change of a few percent needs many short runs, alternated). Each package gets a page of its
// own in one headless Chromium; rounds alternate them, the order flipped every round, each round
// one run of the harness workload (compare_tabloop.js) per page. Prints each package's median ms
// a step, the median of the per-round ratios B / A with a 90 % bootstrap interval, and the ratio
// of the means. Figures only; it asserts nothing but that the runs completed.
//   node benches/compare/ab.mjs PKG_A PKG_B [--rounds 150] [--steps 300] [--idempotent] [--first-rules]
// --first-rules runs both with the loop guard's first rules only (`guard: { reflective: false }`:
// exact repeats, no similarity or cycle detectors), to tell the cost of those detectors from
// the rest of a step; a package older than that option ignores it and has only those rules.
// A package is a directory as scripts/build-package.sh writes it. Run it with the same package
// twice to see the noise on this machine (an interval that holds 1).
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';
import { median, openHarness, pairedRatio, readArgs, servePackage } from './ab_support.mjs';

const { args, option, packages } = readArgs(
  ['--rounds', '--steps'],
  'node benches/compare/ab.mjs PKG_A PKG_B [--rounds 150] [--steps 300] [--idempotent] [--first-rules]',
);
const rounds = Number(option('--rounds', 150));
const steps = Number(option('--steps', 300));
const idempotent = args.includes('--idempotent');
const agent = args.includes('--first-rules') ? { guard: { reflective: false } } : {};

/** One run's ms a step. */
async function run(page, n, tag) {
  const result = await page.evaluate(([n, idempotent, tag, agent]) => window.tabloopHarness(n, { idempotent, tag, agent }), [n, idempotent, tag, agent]);
  if (result.stopReason !== 'completed' || result.steps !== n) {
    throw new Error(`a run stopped ${result.stopReason} after ${result.steps} of ${n} steps`);
  }
  return result.ms / n;
}

const browser = await launchBrowser();
const served = [await servePackage(packages[0]), await servePackage(packages[1])];
try {
  const pages = [];
  for (const { server } of served) pages.push(await openHarness(browser, server));
  for (const page of pages) await run(page, 50, '-warm');
  const times = [[], []];
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order) times[which].push(await run(pages[which], steps, `-${round}`));
  }
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  console.log(`${rounds} rounds of ${steps} steps, tool ${idempotent ? '' : 'not '}idempotent${agent.guard ? ', first guard rules only' : ''}`);
  console.log(`A ${packages[0]}: ${median(times[0]).toFixed(3)} ms a step (median)`);
  console.log(`B ${packages[1]}: ${median(times[1]).toFixed(3)} ms a step (median)`);
  console.log(`B / A paired: ${pairedRatio(times[0], times[1])}; ratio of the means ${(mean(times[1]) / mean(times[0])).toFixed(3)}`);
} finally {
  await browser.close();
  for (const each of served) await each.close();
}
