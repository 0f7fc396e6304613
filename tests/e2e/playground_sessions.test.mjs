// The session list driven as a person would: rename a session in place (the name is kept in the
// sessions index and survives a reload; Esc gives up; an empty name brings back the first
// message), search by name, first message or id (every word), and delete only after a
// confirmation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { outDir } from './support/site.mjs';
import { openPlayground, importReplies, usePlaygroundSuite } from './support/playground.mjs';

const suite = usePlaygroundSuite();

const row = (id) => `[data-testid=session-item][data-session="${id}"]`;
const listed = (page) => page.$$eval('[data-testid=session-item]', (els) => els.map((e) => e.dataset.session).sort());
const titleOf = (page, id) => page.textContent(`${row(id)} .session-title`);

async function withSessions(fn) {
  const context = await suite.browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await openPlayground(context, suite.site);
    await importReplies(page, 'alpha-1', ['Plan the garden']);
    await importReplies(page, 'beta-2', ['Write the report']);
    await importReplies(page, 'gamma-3', ['Fix the bike']);
    await page.reload();
    await page.waitForSelector(row('gamma-3'));
    await fn(page);
  } finally {
    await context.close();
  }
}

test('a session is renamed in place and keeps its name after a reload', async () => {
  await withSessions(async (page) => {
    const first = await titleOf(page, 'beta-2');
    assert.ok(first.length > 0 && first !== 'Untitled session', first);
    const item = page.locator('.session-row', { has: page.locator(row('beta-2')) });

    // Esc gives up: nothing changes.
    await item.locator('[data-testid=rename-session]').click();
    await page.fill('[data-testid=rename-input]', 'Not kept');
    await page.press('[data-testid=rename-input]', 'Escape');
    assert.equal(await titleOf(page, 'beta-2'), first);

    // Enter saves; the list and the session header show the name.
    await item.locator('[data-testid=rename-session]').click();
    assert.equal(await page.inputValue('[data-testid=rename-input]'), first, 'the field starts with the current title');
    await page.fill('[data-testid=rename-input]', 'Quarterly report  ');
    await page.press('[data-testid=rename-input]', 'Enter');
    await page.waitForFunction(() => document.querySelector('[data-session="beta-2"] .session-title')?.textContent === 'Quarterly report');
    await page.click(row('beta-2'));
    await page.waitForFunction(() => document.querySelector('[data-testid=session-title]')?.textContent === 'Quarterly report');

    // Kept in the sessions index: a reload lists it under its name.
    await page.reload();
    await page.waitForSelector(row('beta-2'));
    assert.equal(await titleOf(page, 'beta-2'), 'Quarterly report');
    assert.equal(await titleOf(page, 'alpha-1'), await titleOf(page, 'alpha-1'), 'the others are untouched');
    assert.notEqual(await titleOf(page, 'alpha-1'), 'Quarterly report');

    // Saving an empty name gives the session back its first message as title.
    await page.locator('.session-row', { has: page.locator(row('beta-2')) }).locator('[data-testid=rename-session]').click();
    await page.fill('[data-testid=rename-input]', '   ');
    await page.click('[data-testid=rename-save]');
    await page.waitForFunction((t) => document.querySelector('[data-session="beta-2"] .session-title')?.textContent === t, first);
  });
});

test('search narrows the list by name, first message or id, every word counting', async () => {
  await withSessions(async (page) => {
    const item = page.locator('.session-row', { has: page.locator(row('gamma-3')) });
    await item.locator('[data-testid=rename-session]').click();
    await page.fill('[data-testid=rename-input]', 'Bicycle repair');
    await page.press('[data-testid=rename-input]', 'Enter');
    await page.waitForFunction(() => document.querySelector('[data-session="gamma-3"] .session-title')?.textContent === 'Bicycle repair');

    await page.fill('[data-testid=session-search]', 'BICYCLE');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-item]').length === 1);
    assert.deepEqual(await listed(page), ['gamma-3'], 'by name, ignoring case');
    await page.fill('[data-testid=session-search]', 'alpha');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-item]').length === 1);
    assert.deepEqual(await listed(page), ['alpha-1'], 'by id');
    // The first message still counts for a renamed session.
    await page.fill('[data-testid=session-search]', 'payload');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-item]').length === 3);
    await page.fill('[data-testid=session-search]', 'PAYLOAD bicycle');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-item]').length === 1);
    assert.deepEqual(await listed(page), ['gamma-3'], 'every word, from the name and the first message');
    await page.fill('[data-testid=session-search]', 'report bicycle');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-item]').length === 0);
    await page.fill('[data-testid=session-search]', '');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-item]').length === 3);
  });
});

test('delete asks first: Keep leaves the session, Delete removes it for good', async () => {
  await withSessions(async (page) => {
    const item = page.locator('.session-row', { has: page.locator(row('alpha-1')) });
    await item.locator('[data-testid=delete-session]').click();
    await page.waitForSelector('[data-testid=confirm-delete]');
    assert.equal(await page.locator(row('alpha-1')).count(), 1, 'the row stays while asking');
    await page.click('[data-testid=keep-session]');
    assert.equal(await page.locator('[data-testid=confirm-delete]').count(), 0);
    assert.deepEqual(await listed(page), ['alpha-1', 'beta-2', 'gamma-3']);

    await item.locator('[data-testid=delete-session]').click();
    await page.click('[data-testid=confirm-delete]');
    await page.waitForSelector(row('alpha-1'), { state: 'detached' });
    assert.deepEqual(await listed(page), ['beta-2', 'gamma-3']);
    const stored = await page.evaluate(async () => (await window.tabloop.listSessions()).map((s) => s.session ?? s.id));
    assert.ok(!stored.includes('alpha-1'), JSON.stringify(stored));
    await page.reload();
    await page.waitForSelector(row('gamma-3'));
    assert.deepEqual(await listed(page), ['beta-2', 'gamma-3']);
  });
});

test('a fork is shown at once and listed under a name saying where it came from', async () => {
  await withSessions(async (page) => {
    await page.click(row('alpha-1'));
    await page.waitForSelector('[data-testid=fork]');
    const source = await titleOf(page, 'alpha-1');
    await page.locator('[data-testid=fork]').first().click();
    // The fork is a new session, on screen, named after its source; the source is unchanged.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=session-item]').length === 4);
    const forked = (await listed(page)).find((id) => !['alpha-1', 'beta-2', 'gamma-3'].includes(id));
    assert.ok(forked, 'a fourth session');
    await page.waitForFunction((id) => document.querySelector(`[data-testid=session-item][data-session="${id}"] .session-title`)?.textContent.startsWith('Fork at step 1: '), forked);
    assert.equal(await titleOf(page, forked), `Fork at step 1: ${source}`);
    assert.equal(await titleOf(page, 'alpha-1'), source);
    await page.waitForFunction((name) => document.querySelector('[data-testid=session-title]')?.textContent === name, `Fork at step 1: ${source}`);
  });
});
