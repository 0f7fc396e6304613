// The newcomer's task in the playground, as a person does it with the model already in browser
// storage: open the page, type "Use the vfs tool to write the text hello into the file
// /notes.txt.", press Ctrl+Enter. Prints the time to the first visible model output and to the
// end of the run, and the tool calls' results. Figures only; nothing is asserted.
//
//   node benches/scenarios/newcomer.mjs [seconds to type, default 15] [page URL]
// Without a URL it serves the release build (dist/); with one, e.g. http://127.0.0.1:8080/ while
// `scripts/serve.sh` runs, it measures the page the README's serve command gives.
// GUARD_RULES=first unticks "Reflect and give up" in the settings first (before/after figures).
import { launchBrowser } from '../../tests/e2e/support/browser.mjs';
import { serveSite } from '../../tests/e2e/support/site.mjs';

const TASK = 'Use the vfs tool to write the text hello into the file /notes.txt.';
const typingSeconds = Number(process.argv[2] ?? 15);
const pageUrl = process.argv[3] ?? null;
const site = pageUrl === null ? await serveSite() : null;
const browser = await launchBrowser();
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(pageUrl ?? `${site.url}/tabloop/`);
  await page.waitForSelector('[data-testid=task]', { timeout: 30_000 });
  // A returning user: the model is in browser storage.
  await page.evaluate(async () => {
    const store = await import(new URL('www/local/model_store.js', document.baseURI).href);
    await store.fetchModel(store.DEFAULT_MODEL_URL);
  });
  await page.reload();
  await page.waitForSelector('[data-testid=task]', { timeout: 30_000 });
  const opened = Date.now();
  if (process.env.GUARD_RULES === 'first') {
    // The loop guard's first rules, as a person would choose them in the settings.
    await page.click('details.run-settings > summary');
    await page.uncheck('[data-testid=guard-reflective]');
    await page.click('details.run-settings > summary');
  }
  await page.fill('[data-testid=task]', TASK);
  await page.waitForTimeout(typingSeconds * 1000);
  const progressAtRun = await page.locator('[data-testid=model-progress-text]').textContent().catch(() => null);
  // Times are taken in the page: from the key press to the first change to the DOM that shows
  // the model's own output (the streamed call, shown as its reasoning, or text), and to the
  // run's end. (Playwright's waitForSelector polls, at up to 500 ms apart: it read ~400 ms as
  // ~900 about half the time.)
  await page.evaluate(() => {
    const seen = (window.newcomerTimes = {});
    document.addEventListener('keydown', (e) => { if (e.key === 'Enter' && e.ctrlKey) seen.pressed ??= performance.now(); }, true);
    new MutationObserver(() => {
      if (seen.pressed === undefined) return;
      if (seen.output === undefined && document.querySelector('[data-testid=streaming] .thinking, [data-testid=streaming] p.text')) seen.output = performance.now();
      if (seen.ended === undefined && document.querySelector('[data-testid=stop-reason]')) seen.ended = performance.now();
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  const pressed = Date.now();
  await page.press('[data-testid=task]', 'Control+Enter');
  // A run that takes longer than the limit still reports what it did so far.
  const limit = Number(process.env.NEWCOMER_LIMIT_MS ?? 300_000);
  await page.waitForSelector('[data-testid=stop-reason]', { timeout: limit }).catch(() => null);
  const times = await page.evaluate(() => window.newcomerTimes);
  const since = (at) => (at === undefined || times.pressed === undefined ? null : Math.round(at - times.pressed));
  const ended = times.ended === undefined ? null : pressed + since(times.ended);
  const statuses = await page.locator('[data-testid=tool-status]').allTextContents();
  const results = await page.locator('[data-testid=tool-result]').allTextContents();
  console.log(JSON.stringify({
    typing_s: typingSeconds,
    progress_when_run_pressed: progressAtRun,
    first_visible_output_ms: since(times.output),
    run_ended_ms: since(times.ended),
    stop: ended ? await page.textContent('[data-testid=stop-reason]') : `still running after ${limit} ms`,
    tool_statuses: statuses,
    tool_results: results.map((r) => r.slice(0, 120)),
    page_open_to_end_ms: (ended ?? Date.now()) - opened,
    // Where the model ran, with the threads the core probe chose.
    model_backend: await page.textContent('[data-testid=model-backend]').catch(() => null),
  }));
} finally {
  await browser.close();
  await site?.close();
}
