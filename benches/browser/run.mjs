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
import { scriptedOpenAi } from '../../tests/e2e/support/scripted_openai.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-bench-'));
fs.symlinkSync(path.resolve(process.env.TABLOOP_DIST ?? path.join(repo, 'dist')), path.join(root, 'tabloop'));
for (const page of ['bench.html', 'sessions.html']) {
  fs.copyFileSync(path.join(repo, 'benches/browser', page), path.join(root, page));
}
const which = process.argv[2] ?? 'all';
const SAMPLES = 7;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
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

async function freshPage(context, server) {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(`${server.url}/sessions.html`);
  await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 60_000 });
  return page;
}

// One cold open of `session` on a freshly loaded page: `createAgent` resolving, and the session
// accepting its next task (its first new record persisted), which needs the log replayed.
async function openOnce(context, server, session, provider) {
  const page = await freshPage(context, server);
  const times = await page.evaluate(async ({ session, provider }) => {
    const t0 = performance.now();
    const agent = await tabloop.createAgent({ session, provider });
    const created = performance.now() - t0;
    const recorded = new Promise((resolve) => agent.onEvent((e) => e.type === 'user_message' && resolve(performance.now() - t0)));
    const finished = agent.run('one more');
    const ready = await recorded;
    await finished;
    agent.close();
    return { created, ready };
  }, { session, provider });
  await page.close();
  return times;
}

async function listOnce(context, server) {
  const page = await freshPage(context, server);
  const result = await page.evaluate(async () => {
    const t0 = performance.now();
    const list = await tabloop.listSessions();
    const first = performance.now() - t0;
    const t1 = performance.now();
    await tabloop.listSessions();
    return { first, again: performance.now() - t1, count: list.length };
  });
  await page.close();
  return result;
}

async function sessions(browser, server) {
  const mock = await scriptedOpenAi();
  const provider = { kind: 'openai', baseUrl: mock.url, apiKey: 'sk-bench', model: 'scripted' };
  const context = await browser.newContext();
  try {
    const setup = await freshPage(context, server);
    const events = await setup.evaluate(async () => {
      await tabloop.importSession(tabloop.benchSessionLog(10000, 'bench-big'));
      return (await tabloop.listSessions()).find((s) => s.session === 'bench-big').records;
    });
    await setup.close();
    console.log(`session bench-big: ${events} events`);
    const created = [];
    const ready = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      mock.script.push({ text: 'done' });
      const t = await openOnce(context, server, 'bench-big', provider);
      created.push(t.created);
      ready.push(t.ready);
    }
    console.log(`open, createAgent resolved:      ${fmt(created)}`);
    console.log(`open, next task recorded:        ${fmt(ready)}`);
    const alone = [];
    const aloneAgain = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      const t = await listOnce(context, server);
      alone.push(t.first);
      aloneAgain.push(t.again);
    }
    console.log(`listSessions, 1 session (first call on the page):   ${fmt(alone)}`);
    console.log(`listSessions, 1 session (second call):              ${fmt(aloneAgain)}`);
    const fill = await freshPage(context, server);
    await fill.evaluate(async () => {
      for (let i = 0; i < 100; i += 1) {
        await tabloop.importSession(tabloop.benchSessionLog(20, `bench-small-${i}`));
      }
    });
    await fill.close();
    const many = [];
    const manyAgain = [];
    let count = 0;
    for (let i = 0; i < SAMPLES; i += 1) {
      const t = await listOnce(context, server);
      many.push(t.first);
      manyAgain.push(t.again);
      count = t.count;
    }
    console.log(`listSessions, ${count} sessions (first call on the page): ${fmt(many)}`);
    console.log(`listSessions, ${count} sessions (second call):            ${fmt(manyAgain)}`);
  } finally {
    await context.close();
    await mock.close();
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
