// Shared set-up of the tests that drive the public API on the embedding page: the built site and
// one Chromium per test file, a page with tabloop loaded, and polling for a condition.
import { launchBrowser } from './browser.mjs';
import { serveSite } from './site.mjs';

/** Serves the built site and launches Chromium (call from `before`). */
export async function startEmbedSuite() {
  const site = await serveSite();
  const browser = await launchBrowser();
  return { site, browser };
}

/** Closes what `startEmbedSuite` started (call from `after`; either may be missing). */
export async function stopEmbedSuite({ site, browser } = {}) {
  await browser?.close();
  await site?.close();
}

/** A new page of `context` on the embedding page, once tabloop has loaded there. */
export async function openEmbed(context, site) {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(`${site.url}/embed.html`);
  await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
  return page;
}

/** Polls `predicate` every 100 ms until it holds; throws naming `what` after `ms`. */
export async function waitFor(predicate, ms, what) {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
