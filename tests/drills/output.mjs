// Output: the hostile markdown corpus (tests/fixtures/hostile_markdown.json) shown as model
// messages in the playground and scrolled through: payloads executed, foreign (raw HTML) nodes
// and attributes, and requests made without a click.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../e2e/support/browser.mjs';
import { openPlayground, importReplies, showImported } from '../e2e/support/playground.mjs';
import { scanTimeline } from '../e2e/support/markdown_check.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = JSON.parse(fs.readFileSync(path.join(here, '../fixtures/hostile_markdown.json'), 'utf8'));

export async function outputDrill({ site, figures }) {
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext();
    const page = await openPlayground(context, site);
    const session = await importReplies(page, 'hostile-drill', corpus);
    const dialogs = [];
    page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
    await showImported(page, session);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.waitForSelector('[data-kind=run_finished]');
    const { seen, problems } = await scanTimeline(page, corpus.length);
    const executed = (await page.evaluate(() => (window.__pwned === undefined ? 0 : 1))) + dialogs.length;
    figures.add('output', 'hostile markdown payloads drawn', seen.size, { eq: corpus.length });
    figures.add('output', 'payloads executed (window.__pwned, dialogs)', executed, { eq: 0 });
    figures.add('output', 'raw HTML nodes or attributes outside the renderer\'s set', problems.length, { eq: 0 }, problems.slice(0, 3).join(' | '));
    figures.add('output', 'automatic requests while drawing', requests.length, { eq: 0 }, requests.slice(0, 3).join(' | '));
    await context.close();
  } finally {
    await browser.close();
  }
}
