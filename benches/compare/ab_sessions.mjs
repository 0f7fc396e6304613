// Two builds of tabloop against each other on resume and list: what a person waits for when a
// tab reopens (a stored session opened again, replaying its log) and when the sidebar fills
// (listSessions). Each package gets an origin of its own (so a database of its own) in one
// headless Chromium; the same sessions are recorded in both through the public API (one long
// session of `--steps` steps and `--small` sessions of two steps), then rounds alternate the
// packages, the order flipped every round, each round a fresh page per package timing
// `createAgent` on the long session and the page's first `listSessions`. Prints each package's
// medians and the paired ratios B / A with 90 % bootstrap intervals. Figures only; it asserts
// nothing but that the sessions were recorded.
//   node benches/compare/ab_sessions.mjs PKG_A PKG_B [--rounds 40] [--steps 1000] [--small 100]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '../../tests/e2e/support/server.mjs';
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const VALUED = ['--rounds', '--steps', '--small'];
const packages = args.filter((arg, i) => !arg.startsWith('--') && !VALUED.includes(args[i - 1]));
if (packages.length !== 2) {
  console.error('usage: node benches/compare/ab_sessions.mjs PKG_A PKG_B [--rounds 40] [--steps 1000] [--small 100]');
  process.exit(2);
}
const rounds = Number(option('--rounds', 40));
const steps = Number(option('--steps', 1000));
const small = Number(option('--small', 100));
const LONG = 'ab-sessions-long';

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** A server for `pkg` as /tabloop/ beside the harness page. */
async function serve(pkg) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-ab-sessions-'));
  fs.symlinkSync(path.resolve(pkg), path.join(root, 'tabloop'));
  for (const file of ['ab.html', 'compare_tabloop.js']) fs.copyFileSync(path.join(here, file), path.join(root, file));
  return { root, server: await serveStatic(root, { isolated: true }) };
}

async function freshPage(context, server) {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(`${server.url}/ab.html`);
  await page.waitForFunction(() => window.benchReady === true, null, { timeout: 60_000 });
  return page;
}

/** Records the long session and the small ones; returns the long one's record count. */
async function record(context, server) {
  const page = await freshPage(context, server);
  const records = await page.evaluate(async ({ steps, small, LONG }) => {
    const noop = { name: 'noop', description: 'Does nothing.', parameters: { type: 'object', properties: { i: { type: 'integer' } } }, permission: 'allow', execute: async ({ i }) => `ok ${(i * 7919) % 100_003}` };
    await tabloop.registerTool(noop, { replace: true });
    const usage = { prompt_tokens: 100, completion_tokens: 10 };
    const provider = (n) => {
      let step = 0;
      return {
        kind: 'custom',
        model: 'instant',
        complete: async () => {
          const last = step >= n - 1;
          const delta = last
            ? { role: 'assistant', content: 'done' }
            : { role: 'assistant', tool_calls: [{ index: 0, id: `call_${step}`, type: 'function', function: { name: 'noop', arguments: JSON.stringify({ i: step }) } }] };
          step += 1;
          const out = [
            { choices: [{ index: 0, delta, finish_reason: null }] },
            { choices: [{ index: 0, delta: {}, finish_reason: last ? 'stop' : 'tool_calls' }] },
            { choices: [], usage },
          ];
          return (async function* () { yield* out; })();
        },
      };
    };
    const runOne = async (session, n) => {
      const agent = await tabloop.createAgent({
        session,
        provider: provider(n),
        tools: ['noop'],
        permissions: { noop: 'allow' },
        budget: { maxSteps: n + 10, maxToolCalls: n + 10, maxWallMs: 3_600_000 },
        contextWindow: 1_000_000_000,
      });
      await agent.run('call noop until told otherwise');
      agent.close();
    };
    await runOne(LONG, steps);
    for (let k = 0; k < small; k += 1) await runOne(`ab-sessions-small-${k}`, 2);
    const listed = await tabloop.listSessions();
    return listed.find((s) => s.session === LONG)?.records ?? 0;
  }, { steps, small, LONG });
  await page.close();
  return records;
}

/** One fresh page's cold open of the long session and its first listing, in ms. */
async function measure(context, server) {
  const page = await freshPage(context, server);
  const times = await page.evaluate(async (LONG) => {
    const t0 = performance.now();
    const listed = await tabloop.listSessions();
    const list = performance.now() - t0;
    const t1 = performance.now();
    const agent = await tabloop.createAgent({ session: LONG, provider: { kind: 'custom', model: 'instant', complete: async () => (async function* () {})() } });
    const open = performance.now() - t1;
    agent.close();
    return { list, open, sessions: listed.length };
  }, LONG);
  await page.close();
  return times;
}

function interval(a, b) {
  const ratios = b.map((value, i) => value / a[i]);
  const resampled = [];
  for (let k = 0; k < 2000; k += 1) resampled.push(median(ratios.map(() => ratios[Math.floor(Math.random() * ratios.length)])));
  resampled.sort((x, y) => x - y);
  return `median ${median(ratios).toFixed(3)}, 90 % interval ${resampled[100].toFixed(3)}–${resampled[1900].toFixed(3)}`;
}

const browser = await launchBrowser();
// One context: its pages share each origin's IndexedDB, as a person's tabs do.
const context = await browser.newContext();
const served = [await serve(packages[0]), await serve(packages[1])];
try {
  for (const { server } of served) {
    const records = await record(context, server);
    if (records === 0) throw new Error(`the long session was not recorded on ${server.url}`);
    console.log(`${server.url}: long session ${records} records, ${small} small sessions`);
  }
  const samples = [[], []];
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const which of order) samples[which].push(await measure(context, served[which].server));
  }
  console.log(`${rounds} rounds; a fresh page a package a round`);
  for (const which of [0, 1]) {
    const s = samples[which];
    console.log(`${'AB'[which]} ${packages[which]}: open ${median(s.map((x) => x.open)).toFixed(1)} ms, first list ${median(s.map((x) => x.list)).toFixed(1)} ms (${s[0].sessions} sessions) (medians)`);
  }
  for (const key of ['open', 'list']) {
    console.log(`B / A ${key}: ${interval(samples[0].map((x) => x[key]), samples[1].map((x) => x[key]))}`);
  }
} finally {
  await browser.close();
  for (const { server, root } of served) {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
