// Two to five tabs on one session: how many write at once (sampled every 25 ms in every tab),
// how long a follower takes to become the writer when the writer's tab closes (a chain of
// takeovers down to the last tab), and how many inputs given to followers were applied.
import { launchBrowser } from '../e2e/support/browser.mjs';
import { openEmbed } from '../e2e/support/embed.mjs';
import { scriptedOpenAi } from '../e2e/support/scripted_openai.mjs';
import { mockProvider } from './page.mjs';
import { spread } from './figures.mjs';

const FOLLOWER_TASK = 'FOLLOWER-INPUT';

async function tabsOnce(browser, site, tabs) {
  const session = `tabs-${tabs}`;
  // The writer's model call is held; a tab that takes over resends it (unless it is closed
  // first). Calls wait until the last writer is known; only that tab's call is answered. Each
  // tab has its own key, so the server tells the tabs apart.
  const pages = [];
  const keyOf = (i) => `sk-drill-tab-${i}`;
  let lastWriter;
  const lastKnown = new Promise((resolve) => (lastWriter = resolve));
  const mock = await scriptedOpenAi({
    respond: (body, req) => ({
      wait: lastKnown.then((last) => (req.headers.authorization === `Bearer ${keyOf(last)}` ? { text: 'finished by the last tab' } : 'hold')),
    }),
  });
  const context = await browser.newContext();
  try {
    for (let i = 0; i < tabs; i += 1) {
      const page = await openEmbed(context, site);
      await page.evaluate(async ({ options, first }) => {
        window.agent = await tabloop.createAgent(options);
        if (first) window.agent.run('the one task');
      }, { options: { session, provider: mockProvider(mock, keyOf(i)), tools: [] }, first: i === 0 });
      pages.push(page);
    }
    let maxWriters = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const open = pages.filter((p) => !p.isClosed());
        const flags = await Promise.all(open.map((p) => p.evaluate(() => window.agent.isWriter).catch(() => false)));
        maxWriters = Math.max(maxWriters, flags.filter(Boolean).length);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    const takeovers = [];
    let refused = 0;
    let inputs = 0;
    let writer = 0;
    await new Promise((r) => setTimeout(r, 300));
    for (let round = 0; round < tabs - 1; round += 1) {
      // Every follower tries every input; each must be refused.
      for (const [i, page] of pages.entries()) {
        if (i === writer || page.isClosed()) continue;
        const out = await page.evaluate(async (task) => {
          let refusedHere = 0;
          const tries = [() => window.agent.run(task), () => window.agent.cancel(), () => window.agent.extendBudget({ maxSteps: 99 }), () => window.agent.approve('x'), () => window.agent.retryProvider()];
          for (const act of tries) {
            try {
              await act();
            } catch (error) {
              if (/another tab writes this session/.test(String(error.message ?? error))) refusedHere += 1;
            }
          }
          return { tries: tries.length, refusedHere };
        }, FOLLOWER_TASK);
        inputs += out.tries;
        refused += out.refusedHere;
      }
      const closedAt = Date.now();
      await pages[writer].close();
      const next = await Promise.race(pages.map((p, i) => (p.isClosed() ? new Promise(() => {}) : p.waitForFunction(() => window.agent.isWriter === true, null, { timeout: 15_000 }).then(() => i))));
      takeovers.push(Date.now() - closedAt);
      writer = next;
    }
    lastWriter(writer);
    // The run may have ended before this tab took over (then it never saw a `finished` status),
    // so the log decides: the last tab must hold a completed run_finished.
    const ended = (events) => events.some((e) => e.type === 'run_finished' && e.outcome?.stop?.kind === 'completed');
    const deadline = Date.now() + 15_000;
    let events = await pages[writer].evaluate(() => window.agent.events());
    while (!ended(events) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      events = await pages[writer].evaluate(() => window.agent.events());
    }
    sampling = false;
    await sampler;
    const applied = events.filter((e) => JSON.stringify(e).includes(FOLLOWER_TASK) || e.type === 'budget_extended' || (e.type === 'run_finished' && JSON.stringify(e).includes('cancelled'))).length;
    return { maxWriters, takeovers, inputs, refused, applied, completed: ended(events), last: events.slice(-3).map((e) => e.type).join('/'), gaps: events.filter((e, i) => e.seq !== i).length };
  } finally {
    await context.close();
    await mock.close();
  }
}

export async function tabsDrill({ site, figures, maxTabs }) {
  const browser = await launchBrowser();
  try {
    const all = [];
    for (let tabs = 2; tabs <= maxTabs; tabs += 1) all.push({ tabs, ...(await tabsOnce(browser, site, tabs)) });
    const sum = (k) => all.reduce((n, r) => n + r[k], 0);
    figures.add('tabs', 'max concurrent writers', Math.max(...all.map((r) => r.maxWriters)), { eq: 1 }, `2 to ${maxTabs} tabs`);
    figures.add('tabs', 'takeover ms (writer tab closed → a follower writes)', spread(all.flatMap((r) => r.takeovers)));
    figures.add('tabs', 'follower inputs applied', sum('applied') + (sum('inputs') - sum('refused')), { eq: 0 }, `${sum('inputs')} inputs tried, ${sum('refused')} refused with a clear error`);
    figures.add('tabs', 'runs not completed by the last tab', all.filter((r) => !r.completed).length, { eq: 0 }, all.filter((r) => !r.completed).map((r) => `log ends ${r.last}`).join('; '));
    figures.add('tabs', 'seq gaps', sum('gaps'), { eq: 0 });
  } finally {
    await browser.close();
  }
}
