// Opening and listing sessions through the public JS API, on a page of `server` that loads
// tabloop (sessions.html): a cold open of an N-event session (createAgent resolving, and the
// next task's first record persisted, which needs the log replayed) and listSessions alone and
// next to `small` small sessions. Returns the samples; asserts nothing. Used by run.mjs and by
// the side-by-side benchmark (benches/compare/run.mjs). The sessions are made by a page opened
// with `setupQuery` (a build with the diagnostics' `benchSessionLog`), on the same origin.
import { scriptedOpenAi } from '../../tests/e2e/support/scripted_openai.mjs';

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function freshPage(context, server, query = '') {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(`${server.url}/sessions.html${query}`);
  await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 60_000 });
  return page;
}

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

/** `events()` of an opened session: the first call and a second one, in ms, and the count. */
async function eventsOnce(context, server, session, provider) {
  const page = await freshPage(context, server);
  const times = await page.evaluate(async ({ session, provider }) => {
    const agent = await tabloop.createAgent({ session, provider });
    const t0 = performance.now();
    const events = await agent.events();
    const first = performance.now() - t0;
    const t1 = performance.now();
    await agent.events();
    const again = performance.now() - t1;
    agent.close();
    return { first, again, count: events.length };
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
  // A page that lists in init's own task, before it was ever idle (no warm-up has run).
  const atOnce = await freshPage(context, server, '?listAtOnce');
  result.atOnce = await atOnce.evaluate(() => window.listedAtOnce);
  await atOnce.close();
  return result;
}

/**
 * Measures, in a fresh browser context: for each size of `sizes`, `samples` cold opens of a
 * session of that many events and `samples` reads of all its events (`events()`), and listing with those sessions alone; then listing once
 * `small` 20-event sessions are added. Figures in ms. `setupQuery`: see the top of this file.
 */
export async function measureSessions(browser, server, { sizes = [10_000], small = 100, samples = 7, setupQuery = '' } = {}) {
  const mock = await scriptedOpenAi();
  const provider = { kind: 'openai', baseUrl: mock.url, apiKey: 'sk-bench', model: 'scripted' };
  const context = await browser.newContext();
  const out = { open: [], list: [], events: [] };
  try {
    for (const size of sizes) {
      const session = `bench-${size}`;
      const setup = await freshPage(context, server, setupQuery);
      const events = await setup.evaluate(async ({ size, session }) => {
        await tabloop.importSession(tabloop.benchSessionLog(size, session));
        return (await tabloop.listSessions()).find((s) => s.session === session).records;
      }, { size, session });
      await setup.close();
      const created = [];
      const ready = [];
      for (let i = 0; i < samples; i += 1) {
        mock.script.push({ text: 'done' });
        const t = await openOnce(context, server, session, provider);
        created.push(t.created);
        ready.push(t.ready);
      }
      out.open.push({ events, created, ready });
      const first = [];
      const again = [];
      let count = 0;
      for (let i = 0; i < samples; i += 1) {
        const t = await eventsOnce(context, server, session, provider);
        first.push(t.first);
        again.push(t.again);
        count = t.count;
      }
      out.events.push({ events: count, first, again });
    }
    const listSamples = async () => {
      const first = [];
      const again = [];
      const atOnce = [];
      let count = 0;
      for (let i = 0; i < samples; i += 1) {
        const t = await listOnce(context, server);
        first.push(t.first);
        again.push(t.again);
        atOnce.push(t.atOnce);
        count = t.count;
      }
      return { sessions: count, first, again, atOnce };
    };
    out.list.push(await listSamples());
    if (small > 0) {
      const fill = await freshPage(context, server, setupQuery);
      await fill.evaluate(async (small) => {
        for (let i = 0; i < small; i += 1) {
          await tabloop.importSession(tabloop.benchSessionLog(20, `bench-small-${i}`));
        }
      }, small);
      await fill.close();
      out.list.push(await listSamples());
    }
  } finally {
    await context.close();
    await mock.close();
  }
  return out;
}
