// Helpers shared by the playground's end-to-end tests: open the page, point it at a scripted
// provider, import a log through the public API, and run axe-core on the page.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { startEmbedSuite, stopEmbedSuite } from './embed.mjs';
import { outDir } from './site.mjs';
import { scriptedOpenAi } from './scripted_openai.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const axeSource = fs.readFileSync(path.join(repo, 'node_modules/axe-core/axe.min.js'), 'utf8');

/**
 * Registers the set-up every playground test file shares: the built site and one Chromium for the
 * file, and the folder screenshots go to. Read `suite.site` and `suite.browser` inside tests.
 */
export function usePlaygroundSuite() {
  const suite = {};
  before(async () => {
    Object.assign(suite, await startEmbedSuite());
    fs.mkdirSync(outDir, { recursive: true });
  });
  after(() => stopEmbedSuite(suite));
  return suite;
}

/** Opens the playground in a new page of `context` and waits for it to mount. */
export async function openPlayground(context, site) {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(`${site.url}/tabloop/`);
  await page.waitForSelector('h1');
  return page;
}

/** Fills the settings form for a scripted OpenAI-compatible server. */
export async function useMock(page, mock) {
  await page.selectOption('[data-testid=provider-kind]', 'openai');
  await page.fill('[data-testid=base-url]', mock.url);
  await page.fill('[data-testid=api-key]', 'sk-ui-SECRET');
  await page.fill('[data-testid=model-name]', 'scripted');
}

/**
 * Runs `fn(page, mock)` on the playground in a new context (`options` for it), pointed at a fresh
 * scripted OpenAI-compatible server (`mockOptions` for it); closes both afterwards, whatever happens.
 */
export async function withScriptedPlayground(suite, fn, options = {}, mockOptions = {}) {
  const mock = await scriptedOpenAi(mockOptions);
  const context = await suite.browser.newContext(options);
  try {
    const page = await openPlayground(context, suite.site);
    await useMock(page, mock);
    await fn(page, mock);
  } finally {
    await context.close();
    await mock.close();
  }
}

/** Stores the bench's finished synthetic session `long` of `events` records; resolves to its id. */
export async function importSynthetic(page, events) {
  return page.evaluate((n) => window.tabloop.importSession(window.tabloop.benchSessionLog(n, 'long')), events);
}

/** Stores a session `session` with one completed run per text; resolves to its id. */
export async function importReplies(page, session, texts) {
  return page.evaluate(
    ({ session, texts }) =>
      window.tabloop.importSession(window.tabloop.benchRepliesLog(session, JSON.stringify(texts))),
    { session, texts },
  );
}

/** Reloads so the session list shows what was imported, then opens `session`. */
export async function showImported(page, session) {
  await page.reload();
  await page.waitForSelector(`[data-testid=session-item][data-session="${session}"]`);
  await page.click(`[data-testid=session-item][data-session="${session}"]`);
}

/** Runs axe-core on the page; returns the serious and critical violations (id, impact, nodes). */
export async function axeSerious(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) {
    // Evaluated by the test driver: the page's content policy refuses an injected <script>.
    await page.evaluate(`${axeSource}\n;undefined`);
  }
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ' :: ' + n.failureSummary),
    }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
