// The playground's file browser over the tools' volumes: a file the model wrote shows in the
// session's tree and opens as text (markup stays text), downloads under its name, uploads land
// in the volume the `vfs` tool reads, delete asks first, the shared volume is separate, and a
// name that would leave the root is refused by the tools' own path checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { outDir } from './support/site.mjs';
import { scriptedOpenAi } from './support/scripted_openai.mjs';
import { openPlayground, useMock, usePlaygroundSuite } from './support/playground.mjs';

const suite = usePlaygroundSuite();

const item = (p) => `[data-testid=file-item][data-path="${p}"]`;

test('files: tree, view, download, upload and delete on the session and shared volumes', async () => {
  const mock = await scriptedOpenAi();
  const context = await suite.browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  try {
    mock.script.push(
      { calls: [{ id: 'w1', name: 'vfs', args: { op: 'write', path: '/notes/hello.md', content: '# Hello\n<img src=x onerror="window.pwned=1">\n' } }] },
      { calls: [{ id: 'w2', name: 'vfs', args: { op: 'write', path: '/top.txt', content: 'top level' } }] },
      { text: 'Wrote two files.' },
    );
    const page = await openPlayground(context, suite.site);
    await useMock(page, mock);
    await page.fill('[data-testid=task]', 'Write two files');
    await page.click('[data-testid=run]');
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });

    // Tree: the folder the paths imply, before its file; files with their sizes.
    await page.click('[data-testid=files] > summary');
    await page.waitForSelector(item('/notes/hello.md'));
    const rows = await page.$$eval('[data-testid=file-item]', (els) => els.map((e) => `${e.dataset.kind}:${e.dataset.path}`));
    assert.deepEqual(rows, ['dir:/notes', 'file:/notes/hello.md', 'file:/top.txt']);

    // View: the text as text.
    await page.click(item('/notes/hello.md'));
    await page.waitForSelector('[data-testid=file-view]');
    assert.equal(await page.textContent('[data-testid=file-view]'), '# Hello\n<img src=x onerror="window.pwned=1">\n');
    assert.equal(await page.locator('[data-testid=files] img').count(), 0, 'file text never becomes markup');
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    await page.locator('[data-testid=files]').screenshot({ path: path.join(outDir, 'files-panel.png') });

    // Download: the file under its own name with its content.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=file-download]')]);
    assert.equal(download.suggestedFilename(), 'hello.md');
    assert.equal(fs.readFileSync(await download.path(), 'utf8'), '# Hello\n<img src=x onerror="window.pwned=1">\n');

    // Upload into the picked file's folder; the vfs tool of the same session reads it.
    await page.setInputFiles('[data-testid=file-upload]', { name: 'up.txt', mimeType: 'text/plain', buffer: Buffer.from('uploaded\ntext') });
    await page.waitForSelector(item('/notes/up.txt'));
    const session = await page.getAttribute('[data-testid=session-item]', 'data-session');
    const read = await page.evaluate(async (session) => {
      const registry = await import(new URL('www/tools/registry.js', document.baseURI).href);
      return registry.callTool('vfs', { op: 'read', path: '/notes/up.txt' }, { session });
    }, session);
    assert.equal(read.ok, true, JSON.stringify(read));
    assert.match(read.value.text, /uploaded\n.*text/);

    // A name that would leave the root once decoded is refused by the tools' path checks (escapes
    // are never decoded); nothing is written.
    await page.click(item('/top.txt'));
    await page.setInputFiles('[data-testid=file-upload]', { name: '%2e%2e', mimeType: 'text/plain', buffer: Buffer.from('escape') });
    await page.waitForSelector('[data-testid=files-error]');
    assert.match(await page.textContent('[data-testid=files-error]'), /Upload of \/%2e%2e failed: invalid path: .*percent escape/);
    assert.equal(await page.locator('[data-testid=file-item]').count(), 4);

    // A binary file is refused with a reason rather than stored with its bytes replaced.
    await page.setInputFiles('[data-testid=file-upload]', { name: 'blob.bin', mimeType: 'application/octet-stream', buffer: Buffer.from([0xff, 0xfe, 0x00, 0x81]) });
    await page.waitForFunction(() => /blob\.bin failed: it is not a UTF-8 text file/.test(document.querySelector('[data-testid=files-error]')?.textContent ?? ''));
    assert.equal(await page.locator('[data-testid=file-item]').count(), 4);

    // Delete asks first: Keep leaves the file, Delete removes it.
    await page.click(item('/top.txt'));
    await page.click('[data-testid=file-delete]');
    await page.click('[data-testid=file-keep]');
    assert.equal(await page.locator(item('/top.txt')).count(), 1);
    await page.click('[data-testid=file-delete]');
    await page.click('[data-testid=file-confirm-delete]');
    await page.waitForSelector(item('/top.txt'), { state: 'detached' });
    // A folder goes with everything in it.
    await page.click(item('/notes'));
    await page.click('[data-testid=file-delete]');
    await page.click('[data-testid=file-confirm-delete]');
    await page.waitForSelector(item('/notes/hello.md'), { state: 'detached' });
    assert.equal(await page.locator('[data-testid=file-item]').count(), 0);

    // The shared volume is another one: an upload there is not in the session's.
    await page.selectOption('[data-testid=files-volume]', 'shared');
    await page.setInputFiles('[data-testid=file-upload]', { name: 'common.txt', mimeType: 'text/plain', buffer: Buffer.from('for all') });
    await page.waitForSelector(item('/common.txt'));
    const shared = await page.evaluate(async () => {
      const registry = await import(new URL('www/tools/registry.js', document.baseURI).href);
      return registry.callTool('vfs', { op: 'read', path: '/common.txt', volume: 'shared' }, { session: 'any' });
    });
    assert.equal(shared.ok, true, JSON.stringify(shared));
    await page.selectOption('[data-testid=files-volume]', 'session');
    await page.waitForSelector(item('/common.txt'), { state: 'detached' });
    assert.equal(await page.locator('[data-testid=file-item]').count(), 0);
  } finally {
    await context.close();
    await mock.close();
  }
});
