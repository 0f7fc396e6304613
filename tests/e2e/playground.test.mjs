// The playground driven as a person would: pick a provider, type a task, approve a tool call,
// watch the timeline, and see a reload wait for the API key (never stored) and then resume the
// run. Model output is shown as text only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { outDir } from './support/site.mjs';
import { scriptedOpenAi } from './support/scripted_openai.mjs';
import { openPlayground, useMock, usePlaygroundSuite, withScriptedPlayground } from './support/playground.mjs';

const suite = usePlaygroundSuite();

test('a task runs from the playground, with an approval, and the reply is text only', async () => {
  const mock = await scriptedOpenAi();
  const context = await suite.browser.newContext();
  try {
    mock.script.push(
      { calls: [{ id: 'h1', name: 'http_fetch', args: { url: 'https://example.org/' } }] },
      { text: 'Done. <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>' },
    );
    const page = await openPlayground(context, suite.site);
    await useMock(page, mock);
    await page.fill('[data-testid=task]', 'Fetch example.org');
    await page.click('[data-testid=run]');
    await page.waitForSelector('[data-testid=approval]', { timeout: 20_000 });
    assert.match(await page.textContent('[data-testid=approval]'), /example\.org/);
    await page.click('[data-testid=deny]');
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
    assert.match(await page.textContent('[data-testid=stop-reason]'), /completed/i);
    const timeline = page.locator('[data-testid=timeline]');
    assert.match(await timeline.textContent(), /<img src=x onerror/, 'the markup shows as text');
    assert.equal(await timeline.locator('img, script').count(), 0, 'no element came from model output');
    assert.equal(await page.evaluate(() => window.pwned), undefined);
    assert.match(await page.textContent('[data-testid=tool-rejected]'), /denied by the user/);
    await page.screenshot({ path: path.join(outDir, 'playground-finished.png'), fullPage: true });
    assert.equal(mock.requests.length, 2);
  } finally {
    await context.close();
    await mock.close();
  }
});

test('a run paused on a provider that was down goes on by itself after a reload once its key is back', async () => {
  let up = false;
  const mock = await scriptedOpenAi({ respond: () => (up ? { text: 'Answered after the reload.' } : { status: 500 }) });
  const context = await suite.browser.newContext();
  try {
    const page = await openPlayground(context, suite.site);
    await useMock(page, mock);
    await page.fill('[data-testid=task]', 'Say hello after the provider is back');
    await page.click('[data-testid=run]');
    await page.waitForSelector('[data-testid=provider-error]', { timeout: 30_000 });
    const failed = mock.requests.length;
    up = true;
    await page.reload();
    await page.waitForSelector('[data-testid=key-needed]', { timeout: 20_000 });
    assert.equal(mock.requests.length, failed, 'nothing is sent without the key');
    await page.click('.settings summary');
    await page.selectOption('[data-testid=provider-kind]', 'openai');
    await page.fill('[data-testid=api-key]', 'sk-ui-SECRET');
    await page.click('[data-testid=resume]');
    // No Retry press: the tab that writes the session again sends the paused call itself.
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
    assert.match(await page.textContent('[data-testid=stop-reason]'), /completed/i);
    assert.match(await page.textContent('[data-testid=timeline]'), /Answered after the reload\./);
    assert.equal(await page.locator('[data-testid=provider-error]').count(), 0);
    assert.equal(mock.requests.length, failed + 1);
  } finally {
    await context.close();
    await mock.close();
  }
});

test('after a reload a remote session waits for its key instead of calling without it', async () => {
  const mock = await scriptedOpenAi();
  const context = await suite.browser.newContext();
  try {
    mock.script.push('hold');
    const page = await openPlayground(context, suite.site);
    await useMock(page, mock);
    await page.fill('[data-testid=task]', 'Needs the key after a reload');
    await page.click('[data-testid=run]');
    const deadline = Date.now() + 20_000;
    while (mock.requests.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(mock.requests[0].headers.authorization, 'Bearer sk-ui-SECRET');
    mock.script.push({ text: 'Resumed with the key.' });
    await page.reload();
    await page.waitForSelector('[data-testid=key-needed]', { timeout: 20_000 });
    assert.match(await page.textContent('[data-testid=key-needed]'), /OpenAI-compatible API \(scripted\)/);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(mock.requests.length, 1, 'no request went out without the key');
    await page.click('.settings summary');
    await page.selectOption('[data-testid=provider-kind]', 'openai');
    await page.fill('[data-testid=api-key]', 'sk-ui-SECRET');
    await page.click('[data-testid=resume]');
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
    assert.match(await page.textContent('[data-testid=timeline]'), /Resumed with the key\./);
    assert.equal(mock.requests.length, 2);
    assert.equal(mock.requests[1].headers.authorization, 'Bearer sk-ui-SECRET');
    assert.equal(await page.locator('[data-testid=key-needed]').count(), 0);
  } finally {
    await context.close();
    await mock.close();
  }
});

test('Verify replay checks the session on screen and says so under its buttons', async () => {
  await withScriptedPlayground(suite, async (page, mock) => {
    mock.script.push({ text: 'The plan has three parts.' });
    await page.fill('[data-testid=task]', 'Summarise the plan for the quarterly report in two lines');
    await page.click('[data-testid=run]');
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
    await page.click('[data-testid=verify-replay]');
    await page.waitForFunction(() => /^Replay verified: all \d+ records match/.test(document.querySelector('[data-testid=verify-result]')?.textContent ?? ''));
    // The result has a line of its own: the title keeps most of the toolbar's width.
    const boxes = await page.evaluate(() => {
      const box = (selector) => document.querySelector(selector).getBoundingClientRect().toJSON();
      return { toolbar: box('.session-toolbar'), title: box('[data-testid=session-title]'), button: box('[data-testid=verify-replay]'), result: box('[data-testid=verify-result]') };
    });
    assert.ok(boxes.title.width >= boxes.toolbar.width / 2, `the title is squeezed to ${boxes.title.width} of ${boxes.toolbar.width} px`);
    assert.ok(boxes.result.top >= boxes.button.bottom, 'the result is under the buttons');
  }, { viewport: { width: 1280, height: 900 } });
});

test('a fetch of something that is not a URL is refused without asking the person', async () => {
  await withScriptedPlayground(suite, async (page, mock) => {
    // What the default model wrote when asked for a haiku.
    mock.script.push(
      { calls: [{ id: 'h1', name: 'http_fetch', args: { url: 'http_fetch', body: 'truncated to 100 KB' } }] },
      { text: 'Tabs line the window' },
    );
    await page.fill('[data-testid=task]', 'Write a haiku about browser tabs.');
    await page.click('[data-testid=run]');
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
    assert.equal(await page.locator('[data-testid=approval]').count(), 0, 'no approval was asked');
    assert.match(await page.textContent('[data-testid=tool-rejected]'), /arguments\.url: must be an absolute URI/);
    assert.match(await page.textContent('[data-testid=stop-reason]'), /completed/i);
    assert.equal(mock.requests.length, 2, 'the refusal went back to the model');
  });
});

test('a reply cancelled while it streams stays on screen, the next task builds on it, and a reload keeps it', async () => {
  await withScriptedPlayground(suite, async (page, mock) => {
    const start = 'Tabs pile up because every link opens one more';
    mock.script.push({ stall: true, text: start }, { text: 'Then close the ones you have read.' });
    await page.fill('[data-testid=task]', 'Write a long essay about why browser tabs pile up');
    await page.click('[data-testid=run]');
    await page.waitForFunction((text) => (document.querySelector('[data-testid=streaming]')?.textContent ?? '').includes(text), start, { timeout: 20_000 });
    await page.click('[data-testid=cancel]');
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
    const kept = async () => {
      assert.equal(await page.locator('[data-kind=assistant]', { hasText: start }).count(), 1, 'what the model had written is shown once');
      assert.match(await page.textContent('[data-testid=timeline]'), /Stopped while the model was writing: what it had written is kept above/);
    };
    await kept();
    assert.match(await page.textContent('[data-testid=stop-reason]'), /cancelled/i);
    assert.equal(await page.locator('[data-testid=task-alone]').count(), 0, 'a remote model reads the earlier tasks');
    await page.fill('[data-testid=task]', 'Go on');
    await page.click('[data-testid=run]');
    await page.waitForFunction(() => document.querySelectorAll('[data-kind=run_finished]').length === 2, null, { timeout: 20_000 });
    const messages = mock.requests.at(-1).body.messages.map((m) => [m.role, m.content]);
    assert.deepEqual(messages.slice(-3), [['user', 'Write a long essay about why browser tabs pile up'], ['assistant', start], ['user', 'Go on']]);
    // Opened again after a reload: shown from the stored log (the context's only session).
    await page.reload();
    await page.click('[data-testid=session-item]');
    await page.waitForFunction(() => document.querySelectorAll('[data-kind=run_finished]').length === 2, null, { timeout: 20_000 });
    await kept();
  });
});
