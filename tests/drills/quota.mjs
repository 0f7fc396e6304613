// Quota exhausted: Chromium's storage quota for the site is cut (DevTools
// `Storage.overrideQuotaForOrigin`) before a run whose next batch cannot fit. The run must pause
// with a clear error, commit no part of the refused batch, keep every earlier record, and go on
// once the quota is raised again.
import crypto from 'node:crypto';
import { launchBrowser } from '../e2e/support/browser.mjs';
import { scriptedOpenAi } from '../e2e/support/scripted_openai.mjs';
import { runInPage, mockProvider } from './page.mjs';

export async function quotaDrill({ site, figures, quotaRounds }) {
  const browser = await launchBrowser();
  const results = [];
  try {
    for (let round = 0; round < quotaRounds; round += 1) {
      const big = crypto.randomBytes(384 * 1024).toString('base64');
      const queue = [{ text: 'small warm-up answer' }, { text: big }];
      const mock = await scriptedOpenAi({ respond: () => queue.shift() ?? { text: 'after' } });
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        const origin = new URL(site.url).origin;
        // Applies to storage opened after it: set before the page touches IndexedDB.
        await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 400 * 1024 });
        await page.goto(`${site.url}/embed.html`);
        await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
        const session = `quota-${round}`;
        await runInPage(page, { session, provider: mockProvider(mock), tools: [] }, 'warm up');
        const paused = await runInPage(page, { session, provider: mockProvider(mock), tools: [] }, 'write a very long answer');
        const message = paused.end.message ?? '';
        const partial = paused.events.filter((e) => e.type === 'model_replied' && JSON.stringify(e).includes(big.slice(0, 64))).length;
        const t0 = Date.now();
        await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 64 * 1024 * 1024 });
        const after = await page.evaluate(async () => {
          const outcome = await new Promise((resolve) => {
            window.drillAgent.onStatus((s) => s.type === 'finished' && resolve(s.outcome));
            window.drillAgent.retryStorage();
          });
          return { outcome, events: await window.drillAgent.events() };
        });
        const kept = JSON.stringify(after.events.slice(0, paused.events.length)) === JSON.stringify(paused.events);
        results.push({
          paused: paused.end.type === 'storage_failed', clear: /storage is full/i.test(message), message, partial, kept,
          resumed: after.outcome.stopReason === 'completed' && after.outcome.finalText === big, resumeMs: Date.now() - t0,
          gaps: after.events.filter((e, i) => e.seq !== i).length,
        });
      } finally {
        await context.close();
        await mock.close();
      }
    }
  } finally {
    await browser.close();
  }
  const n = (k) => results.filter((r) => r[k]).length;
  figures.add('quota', 'runs paused with storage_failed', n('paused'), { eq: quotaRounds }, results[0]?.message.slice(0, 120));
  figures.add('quota', 'pauses with a clear "storage is full" error', n('clear'), { eq: quotaRounds });
  figures.add('quota', 'partial batches committed', results.reduce((s, r) => s + r.partial, 0), { eq: 0 });
  figures.add('quota', 'earlier records changed or lost', results.length - n('kept'), { eq: 0 });
  figures.add('quota', 'runs completed after space was freed', n('resumed'), { eq: quotaRounds });
  figures.add('quota', 'seq gaps', results.reduce((s, r) => s + r.gaps, 0), { eq: 0 });
}
