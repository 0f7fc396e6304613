// Steering a run from the keyboard and using the playground with assistive technology, in both
// themes and at phone width: Ctrl+Enter sends, Esc stops the run, Tab reaches every control in
// page order, axe-core finds no serious or critical violation on the main states, and a
// follower tab is read-only. Screenshots of each state (files included) go to tests/e2e/out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { outDir } from './support/site.mjs';
import { scriptedOpenAi } from './support/scripted_openai.mjs';
import { openPlayground, useMock, axeSerious, usePlaygroundSuite } from './support/playground.mjs';

const suite = usePlaygroundSuite();

// From the top: a full-page capture of a scrolled page draws the sticky header mid-page.
const shot = async (page, name) => {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(outDir, `${name}.png`), fullPage: true });
};

async function waitFor(predicate, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function assertAccessible(page, state) {
  const violations = await axeSerious(page);
  assert.deepEqual(violations, [], `axe on "${state}"`);
}

test('keyboard: Ctrl+Enter sends, Esc stops the run; axe is clean on every main state', async () => {
  const mock = await scriptedOpenAi();
  const context = await suite.browser.newContext({ colorScheme: 'dark', viewport: { width: 1280, height: 900 } });
  try {
    const page = await openPlayground(context, suite.site);
    await assertAccessible(page, 'empty');
    await shot(page, 'state-empty');

    // Tab order follows the page: the session list, the settings, then the composer.
    const order = [];
    await page.focus('[data-testid=new-session]');
    for (let i = 0; i < 30; i++) {
      order.push(await page.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.id ?? document.activeElement?.tagName));
      await page.keyboard.press('Tab');
    }
    const at = (id) => order.indexOf(id);
    assert.ok(at('new-session') === 0 && at('provider-kind') > 0 && at('task') > at('provider-kind'), order.join(' → '));
    await useMock(page, mock);
    await assertAccessible(page, 'settings');
    await shot(page, 'state-settings');

    mock.script.push('hold');
    await page.fill('[data-testid=task]', 'Wait for a model that never answers');
    await page.focus('[data-testid=task]');
    await page.keyboard.press('Control+Enter');
    await waitFor(() => mock.requests.length === 1);
    await page.waitForSelector('[data-testid=streaming]');
    await page.waitForSelector('[data-testid=cancel]');
    await assertAccessible(page, 'running');
    await shot(page, 'state-running');

    // Esc from anywhere on the page stops the run.
    await page.focus('body');
    const stopMs = await page.evaluate(() => new Promise((resolve) => {
      const start = performance.now();
      document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
      const poll = () => {
        if (document.querySelector('[data-kind=run_finished]')) resolve(performance.now() - start);
        else requestAnimationFrame(poll);
      };
      poll();
    }));
    console.log(`# Esc → run ended in ${stopMs.toFixed(0)} ms`);
    assert.match(await page.textContent('[data-testid=stop-reason]'), /cancel/i);

    // An approval, decided from the keyboard.
    mock.script.push(
      { calls: [{ id: 'w1', name: 'vfs', args: { op: 'write', path: '/notes/plan.md', content: '# Plan\n\n- fetch example.org\n- write it down\n' } }] },
      { calls: [{ id: 'k1', name: 'http_fetch', args: { url: 'https://example.org/' } }] },
      { text: 'Finished. Here is a **table**:\n\n| a | b |\n|---|---|\n| 1 | 2 |' },
    );
    await page.fill('[data-testid=task]', 'Fetch example.org');
    await page.press('[data-testid=task]', 'Control+Enter');
    await page.waitForSelector('[data-testid=approval]', { timeout: 20_000 });
    await assertAccessible(page, 'approval');
    await shot(page, 'state-approval');
    await page.focus('[data-testid=deny]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-kind=run_finished] >> nth=1', { timeout: 20_000 });
    await page.waitForSelector('[data-kind=assistant] .md table');
    await assertAccessible(page, 'finished');
    await shot(page, 'state-finished');

    // The files the run wrote, in the file browser.
    await page.click('[data-testid=files] > summary');
    await page.click('[data-testid=file-item][data-path="/notes/plan.md"]');
    await page.waitForSelector('[data-testid=file-view]');
    await assertAccessible(page, 'files');
    await shot(page, 'state-files');

    // The light theme, from the toggle; the choice survives a reload.
    await page.click('[data-testid=theme-toggle]');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
    await page.waitForTimeout(400); // buttons fade their colours for 0.12 s; judge the end state
    await assertAccessible(page, 'finished, light');
    await shot(page, 'state-finished-light');
    await page.reload();
    await page.waitForSelector('h1');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'light');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, 'rgb(246, 247, 249)');
  } finally {
    await context.close();
    await mock.close();
  }
});

test('the system light theme is followed, and the page works at 390 px', async () => {
  const mock = await scriptedOpenAi();
  const context = await suite.browser.newContext({ colorScheme: 'light', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    const page = await openPlayground(context, suite.site);
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(246, 247, 249)');
    assert.equal(await page.getAttribute('html', 'data-theme'), null, 'no choice stored: the system decides');
    await useMock(page, mock);
    mock.script.push({ text: 'Done:\n\n| a wide column | another wide column | a third one |\n|---|---|---|\n| 1 | 2 | 3 |\n\n```\nsome long code line that would overflow a phone screen if it was not wrapped\n```' });
    // A task as long as people type: its title in the session list must not widen the page.
    await page.fill('[data-testid=task]', 'Use the vfs tool to write the text hello into the file /notes.txt.');
    await page.tap('[data-testid=run]');
    await page.waitForSelector('[data-kind=run_finished]', { timeout: 20_000 });
    const overflow = await page.evaluate(() => document.scrollingElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
    const run = await page.locator('[data-testid=run]').boundingBox();
    assert.ok(run.x + run.width <= 390, 'the Run button is on screen');
    await assertAccessible(page, 'phone, light');
    await shot(page, 'state-phone');
  } finally {
    await context.close();
    await mock.close();
  }
});

test('a follower tab is read-only with a banner while the writer runs', async () => {
  const mock = await scriptedOpenAi();
  const context = await suite.browser.newContext();
  try {
    const writer = await openPlayground(context, suite.site);
    await useMock(writer, mock);
    mock.script.push('hold');
    await writer.fill('[data-testid=task]', 'Run in the first tab');
    await writer.click('[data-testid=run]');
    await waitFor(() => mock.requests.length === 1);
    await writer.waitForSelector('[data-testid=session-item]');
    const session = await writer.getAttribute('[data-testid=session-item]', 'data-session');

    const follower = await openPlayground(context, suite.site);
    // The second tab opens on the running session (following it, or asking for its key) with
    // its settings folded; wait for that before unfolding them.
    await follower.waitForSelector('[data-testid=follower-banner], [data-testid=key-needed]', { timeout: 20_000 });
    if (!(await follower.isVisible('[data-testid=provider-kind]'))) await follower.click('.settings summary');
    await useMock(follower, mock);
    await follower.click(`[data-testid=session-item][data-session="${session}"]`);
    await follower.waitForSelector('[data-testid=follower-banner]', { timeout: 20_000 });
    assert.match(await follower.textContent('[data-testid=follower-banner]'), /another tab is running this session/);
    assert.equal(await follower.locator('[data-testid=cancel]').count(), 0, 'no Cancel in the follower');
    await follower.fill('[data-testid=task]', 'try to send');
    assert.equal(await follower.isDisabled('[data-testid=run]'), true, 'Run is disabled');
    await assertAccessible(follower, 'follower');
    await shot(follower, 'state-follower');
    assert.equal(mock.requests.length, 1, 'the follower sent nothing');
  } finally {
    await context.close();
    await mock.close();
  }
});
