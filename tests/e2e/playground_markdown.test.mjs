// Model text as markdown in a real browser: the hostile corpus shared with the native test
// (tests/fixtures/hostile_markdown.json) is shown as model messages, the whole timeline is
// scrolled through, and nothing executes, no element outside the renderer's own small set
// appears, and no request leaves the page — until the user clicks an image placeholder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { outDir } from './support/site.mjs';
import { openPlayground, importReplies, showImported, usePlaygroundSuite } from './support/playground.mjs';
import { scanTimeline } from './support/markdown_check.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = JSON.parse(fs.readFileSync(path.join(here, '../fixtures/hostile_markdown.json'), 'utf8'));

const suite = usePlaygroundSuite();

test('a hundred and thirty hostile payloads: nothing runs, no foreign element, no request', async () => {
  const context = await suite.browser.newContext();
  try {
    const page = await openPlayground(context, suite.site);
    const session = await importReplies(page, 'hostile', corpus);
    const dialogs = [];
    page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss(); });
    await showImported(page, session);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.waitForSelector('[data-kind=run_finished]');

    const { seen, problems } = await scanTimeline(page, corpus.length);
    assert.deepEqual(problems, []);
    assert.equal(seen.size, corpus.length, 'every payload was drawn as one model message');
    assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no payload ran');
    assert.deepEqual(dialogs, []);
    assert.equal(await page.locator('.md img, .md script, .md iframe, .md svg, .md style').count(), 0);
    const outside = requests.filter((u) => !u.startsWith(suite.site.url));
    assert.deepEqual(outside, [], 'rendering made no request');
    assert.deepEqual(requests, [], 'showing the session made no request at all');
    await page.screenshot({ path: path.join(outDir, 'markdown-hostile.png') });

    // An image loads only when asked, with no referrer (find a placeholder in the list first).
    await page.$eval('.timeline-scroll', (el) => { el.scrollTop = 0; });
    for (let i = 0; i < 200 && (await page.locator('button.md-image').count()) === 0; i++) {
      await page.$eval('.timeline-scroll', (el) => { el.scrollTop += el.clientHeight * 0.8; });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    }
    const placeholder = page.locator('button.md-image').first();
    await placeholder.scrollIntoViewIfNeeded();
    const src = await placeholder.getAttribute('data-src');
    await placeholder.click();
    await page.waitForSelector('img.md-loaded');
    assert.equal(await page.getAttribute('img.md-loaded', 'src'), src);
    assert.equal(await page.getAttribute('img.md-loaded', 'referrerpolicy'), 'no-referrer');
    await page.waitForTimeout(200);
    assert.ok(requests.includes(src), `the click requested ${src}: ${requests}`);
  } finally {
    await context.close();
  }
});

test('ordinary markdown renders: a table, code, lists and a safe link', async () => {
  const context = await suite.browser.newContext();
  try {
    const page = await openPlayground(context, suite.site);
    const text = [
      '## Result',
      'The **totals** by *region*, see [the docs](https://example.org/docs):',
      '',
      '| region | total |',
      '|:--|--:|',
      '| north | 12 |',
      '| south | 7 |',
      '',
      '1. read the file',
      '2. count the rows',
      '',
      '```js',
      'const total = rows.length;',
      '```',
      '',
      '> A quote with `inline code`.',
      '',
      '![chart of totals](https://img.example.org/chart.png)',
    ].join('\n');
    const session = await importReplies(page, 'markdown', [text]);
    await showImported(page, session);
    const md = page.locator('[data-kind=assistant] .md');
    await md.waitFor();
    assert.equal(await md.locator('table tbody tr').count(), 2);
    assert.equal(await md.locator('td.right').first().textContent(), '12');
    assert.equal(await md.locator('pre code[data-lang=js]').textContent(), 'const total = rows.length;\n');
    assert.equal(await md.locator('ol > li').count(), 2);
    const link = md.locator('a');
    assert.equal(await link.getAttribute('href'), 'https://example.org/docs');
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.match(await md.locator('button.md-image').textContent(), /Load image: chart of totals \(img\.example\.org\)/);
    await page.screenshot({ path: path.join(outDir, 'markdown-rendered.png') });
  } finally {
    await context.close();
  }
});
