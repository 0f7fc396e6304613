// Two builds of tabloop against each other on resume and list: what a person waits for when a
// tab reopens (a stored session opened again, replaying its log) and when the sidebar fills
// (listSessions). Each package gets an origin of its own (so a database of its own) in one
// headless Chromium; the same sessions are recorded in both by the harness workload
// (compare_tabloop.js, sessions kept: one of `--steps` steps and `--small` of two steps), then
// rounds alternate the packages, the order flipped every round, each round a fresh page per
// package timing its first `listSessions` and `createAgent` on the long session. Prints each
// package's medians and the paired ratios B / A with 90 % bootstrap intervals. Figures only;
// it asserts nothing but that the sessions were recorded.
//   node benches/compare/ab_sessions.mjs PKG_A PKG_B [--rounds 40] [--steps 1000] [--small 100]
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';
import { median, openHarness, pairedRatio, readArgs, servePackage } from './ab_support.mjs';

const { option, packages } = readArgs(
  ['--rounds', '--steps', '--small'],
  'node benches/compare/ab_sessions.mjs PKG_A PKG_B [--rounds 40] [--steps 1000] [--small 100]',
);
const rounds = Number(option('--rounds', 40));
const steps = Number(option('--steps', 1000));
const small = Number(option('--small', 100));

/** Records the long session and the small ones; returns the long one's name and record count. */
async function record(context, server) {
  const page = await openHarness(context, server);
  const long = await page.evaluate(async ({ steps, small }) => {
    const long = await window.tabloopHarness(steps, { tag: '-long', keep: true });
    for (let k = 0; k < small; k += 1) await window.tabloopHarness(2, { tag: `-small-${k}`, keep: true });
    return { session: long.session, records: long.persisted };
  }, { steps, small });
  await page.close();
  return long;
}

/** One fresh page's first listing and cold open of the long session, in ms. */
async function measure(context, server, session) {
  const page = await openHarness(context, server);
  const times = await page.evaluate(async (session) => {
    const t0 = performance.now();
    const listed = await tabloop.listSessions();
    const list = performance.now() - t0;
    const t1 = performance.now();
    const agent = await tabloop.createAgent({ session, provider: { kind: 'custom', model: 'instant', complete: async () => (async function* () {})() } });
    const open = performance.now() - t1;
    agent.close();
    return { list, open, sessions: listed.length };
  }, session);
  await page.close();
  return times;
}

const browser = await launchBrowser();
// One context: its pages share each origin's IndexedDB, as a person's tabs do.
const context = await browser.newContext();
const served = [await servePackage(packages[0]), await servePackage(packages[1])];
try {
  const sessions = [];
  for (const { server } of served) {
    const long = await record(context, server);
    if (long.records === 0) throw new Error(`the long session was not recorded on ${server.url}`);
    console.log(`${server.url}: long session ${long.records} records, ${small} small sessions`);
    sessions.push(long.session);
  }
  const samples = [[], []];
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order) samples[which].push(await measure(context, served[which].server, sessions[which]));
  }
  console.log(`${rounds} rounds; a fresh page a package a round`);
  for (const which of [0, 1]) {
    const s = samples[which];
    console.log(`${'AB'[which]} ${packages[which]}: open ${median(s.map((x) => x.open)).toFixed(1)} ms, first list ${median(s.map((x) => x.list)).toFixed(1)} ms (${s[0].sessions} sessions) (medians)`);
  }
  for (const key of ['open', 'list']) {
    console.log(`B / A ${key}: ${pairedRatio(samples[0].map((x) => x[key]), samples[1].map((x) => x[key]))}`);
  }
} finally {
  await browser.close();
  for (const each of served) await each.close();
}
