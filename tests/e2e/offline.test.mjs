// The playground with the network gone, as deployed (the release build under a sub-path, its
// service worker, the browser context's offline mode, and a site server that drops every
// connection while "down"): an offline reload starts the playground, runs the newcomer's first
// task on the in-tab model and resumes a session started online; a new build deployed while a
// tab is open is offered and then runs alone; a remote provider's run that loses the network
// pauses and finishes when it returns, nothing lost and nothing of it cached; `run()` bounded by
// a pause timeout settles as paused; and Chromium's installability check passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { openPlayground, useMock, usePlaygroundSuite } from './support/playground.mjs';
import { openEmbed, waitFor } from './support/embed.mjs';
import { serveSite } from './support/site.mjs';
import { scriptedOpenAi } from './support/scripted_openai.mjs';
import { CHROMIUM_ARGS } from './support/browser.mjs';
import { newProfile, removeProfile } from './support/persistent.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUN_MS = 240_000;
const NEWCOMER_TASK = 'Use the vfs tool to write the text hello into the file /notes.txt.';

const suite = usePlaygroundSuite();

/** Waits until the service worker serves the page (after its first install it claims it). */
async function controlled(page) {
  await page.waitForFunction(() => navigator.serviceWorker?.controller != null, null, { timeout: 60_000 });
}

/** The build the worker serving the page carries. */
async function workerBuild(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) => {
        navigator.serviceWorker.addEventListener('message', (e) => e.data?.type === 'tabloop:build' && resolve(e.data.build), { once: true });
        navigator.serviceWorker.controller.postMessage({ type: 'tabloop:build' });
      }),
  );
}

/** Every URL in the page origin's caches, by cache name. */
async function cachedUrls(page) {
  return page.evaluate(async () => {
    const out = {};
    for (const name of await caches.keys()) out[name] = (await (await caches.open(name)).keys()).map((r) => r.url);
    return out;
  });
}

/**
 * Runs `fn` on the playground served as deployed (its worker controlling the page), pointed at
 * a fresh scripted OpenAI-compatible server; closes all of it afterwards, whatever happens.
 */
async function withRemotePlayground(fn) {
  const site = await serveSite();
  const mock = await scriptedOpenAi();
  const context = await suite.browser.newContext();
  try {
    const page = await openPlayground(context, site);
    await controlled(page);
    await useMock(page, mock);
    await fn({ site, mock, context, page });
  } finally {
    await context.close();
    await mock.close();
    await site.close();
  }
}

const runEnds = (page) => page.evaluate(() => document.querySelectorAll('[data-kind=run_finished]').length);
const stopReason = (page) => page.evaluate(() => [...document.querySelectorAll('[data-testid=stop-reason]')].at(-1)?.textContent ?? '');

/** Runs `task` from the composer and waits for the run's end; returns the stop reason shown. */
async function runTask(page, task) {
  const ends = await runEnds(page);
  await page.fill('[data-testid=task]', task);
  await page.press('[data-testid=task]', 'Control+Enter');
  await page.waitForFunction((n) => document.querySelectorAll('[data-kind=run_finished]').length > n, ends, { timeout: RUN_MS });
  const reason = await stopReason(page);
  if (reason !== 'completed') console.log('run ended:', (await page.textContent('[data-testid=timeline]')).slice(-1500));
  return reason;
}

test('offline, a reload starts the playground, runs the newcomer task on the in-tab model and resumes an earlier session', { timeout: 3 * RUN_MS }, async () => {
  let down = false;
  const site = await serveSite({ down: () => down });
  const context = await suite.browser.newContext();
  // Counts the page's requests for persistent storage (the browser still answers them).
  await context.addInitScript(() => {
    const persist = StorageManager.prototype.persist;
    window.persistAsked = 0;
    StorageManager.prototype.persist = function () {
      window.persistAsked += 1;
      return persist.call(this);
    };
  });
  try {
    const page = await openPlayground(context, site);
    await controlled(page);
    await page.waitForSelector('[data-testid=network-state][data-state=offline-ready]');
    assert.equal(await page.evaluate(() => window.persistAsked), 0, 'not asked before anything is stored');
    // Online: the newcomer's task stores the model and leaves a session to come back to.
    assert.equal(await runTask(page, NEWCOMER_TASK), 'completed');
    const [before] = await page.evaluate(() => window.tabloop.listSessions());
    assert.ok(before, 'a session was stored');
    // Storing the model asked once for persistent storage; the settings say how much is used.
    assert.equal(await page.evaluate(() => window.persistAsked), 1);
    await page.click('.settings summary');
    // The browser's estimate may lag the write it counts; the open settings read it again.
    await page.waitForFunction(
      () => /\d+(\.\d)? (MiB|GiB) used of .*(Persistent|Not persistent)/.test(document.querySelector('[data-testid=storage-use]')?.textContent ?? ''),
      null,
      { timeout: 30_000 },
    );
    const storageLine = await page.textContent('[data-testid=storage-use]');
    assert.match(storageLine, /Browser storage: \d+(\.\d)? (MiB|GiB) used of /);
    console.log(JSON.stringify({ storageLine }));
    await page.click('.settings summary');

    // The network goes: the browser is offline and the site's server answers nothing.
    down = true;
    await context.setOffline(true);
    const hitsBefore = site.hits.length;
    await page.reload();
    await page.waitForSelector('[data-testid=task]');
    await page.waitForSelector('[data-testid=network-state][data-state=offline]');
    const startedOffline = site.hits.slice(hitsBefore);

    // A new session: the newcomer's task on the in-tab model, from browser storage.
    await page.click('[data-testid=new-session]');
    assert.equal(await runTask(page, NEWCOMER_TASK), 'completed');

    // The earlier session opens from the log and takes another task.
    await page.click(`[data-testid=session-item][data-session="${before.session}"]`);
    await page.waitForFunction(() => document.querySelectorAll('[data-kind=run_finished]').length === 1);
    const grownFrom = before.records;
    assert.equal(await runTask(page, 'Use the vfs tool to read the file /notes.txt.'), 'completed');
    // The server answered nothing; the only requests that reached it are the browser's own
    // checks for a new worker (sw.js, which fail and leave the running one in place).
    assert.deepEqual(startedOffline.filter((p) => p !== '/tabloop/sw.js'), [], 'the page asked the server for nothing');
    const sessions = await page.evaluate(() => window.tabloop.listSessions());
    const after = sessions.find((s) => s.session === before.session);
    assert.equal(sessions.length, 2);
    assert.ok(after.records > grownFrom, `the earlier session grew (${grownFrom} -> ${after.records} records)`);
    console.log(JSON.stringify({ offlineRequestsReachingTheServer: startedOffline, records: [grownFrom, after.records] }));
  } finally {
    await context.close();
    await site.close();
  }
});

test('a new build deployed while a tab is open is offered, and after the reload the tab runs only the new files', { timeout: RUN_MS }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-deploy-'));
  const dist = process.env.TABLOOP_DIST ?? path.join(repo, 'dist');
  fs.cpSync(dist, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}models`) });
  const site = await serveSite({ dist: dir });
  const context = await suite.browser.newContext();
  try {
    const page = await openPlayground(context, site);
    await controlled(page);
    const first = await workerBuild(page);

    // The next build: other bytes in a script and a stylesheet, its worker written again.
    // (Files the page loads without Subresource Integrity: a real build rewrites the hashes
    // index.html pins, which this one leaves as they are.)
    fs.appendFileSync(path.join(dir, 'www/local/model_files.js'), '\n// build B\n');
    fs.appendFileSync(path.join(dir, 'www/tools/vfs.js'), '\n// build B\n');
    execFileSync('node', [path.join(repo, 'scripts/precache.mjs'), dir]);
    // The tab looks for a new build (it does so when shown again, when the network returns,
    // and hourly; here at once).
    await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r.update()));
    await page.waitForSelector('[data-testid=update-banner]', { timeout: 60_000 });
    // Until the person accepts, the tab keeps the files it started with.
    assert.ok(!(await page.evaluate(() => fetch('www/local/model_files.js').then((r) => r.text()))).includes('// build B'));
    assert.equal(await workerBuild(page), first);

    await Promise.all([page.waitForEvent('load'), page.click('[data-testid=update-reload]')]);
    await page.waitForSelector('[data-testid=task]');
    await controlled(page);
    const second = await workerBuild(page);
    assert.notEqual(second, first);
    const files = await page.evaluate(() => Promise.all(['www/local/model_files.js', 'www/tools/vfs.js'].map((f) => fetch(f).then((r) => r.text()))));
    assert.ok(files.every((text) => text.includes('// build B')), 'the new files are served');
    // The new build runs: the page's model list (model_files.js) answers through it.
    assert.ok(await page.evaluate(() => import(new URL('www/local/model_files.js', document.baseURI).href).then((m) => typeof m.listStoredModels === 'function')));
    const siteCaches = Object.keys(await cachedUrls(page)).filter((n) => n.startsWith('tabloop-site-'));
    assert.deepEqual(siteCaches, [`tabloop-site-${second}`], 'the old build is gone');
    assert.equal(await page.locator('[data-testid=update-banner]').count(), 0);
  } finally {
    await context.close();
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a remote provider run that loses the network pauses and finishes when it returns; nothing of it is cached', { timeout: RUN_MS }, () =>
  withRemotePlayground(async ({ site, mock, context, page }) => {
    // The reply starts streaming, then the network goes mid-reply.
    mock.script.push({ stall: true, text: 'Working on' }, { text: 'All done.' });
    const streaming = new Promise((resolve) => mock.emitter.once('chunk', resolve));
    await page.fill('[data-testid=task]', 'Say that it is done.');
    await page.press('[data-testid=task]', 'Control+Enter');
    await streaming;
    await context.setOffline(true);
    await page.waitForSelector('[data-testid=provider-error]', { timeout: 30_000 });
    assert.match(await page.textContent('[data-testid=provider-error]'), /offline/);
    assert.equal(await page.getAttribute('[data-testid=network-state]', 'data-state'), 'offline');
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(await stopReason(page), '', 'paused, not ended');
    assert.equal(mock.requests.length, 1);

    // The network returns: the paused call is sent again by itself and the run ends.
    await context.setOffline(false);
    await page.waitForFunction(() => document.querySelectorAll('[data-kind=run_finished]').length === 1, null, { timeout: 60_000 });
    assert.equal(await stopReason(page), 'completed');
    assert.equal(mock.requests.length, 2);
    const timeline = await page.textContent('[data-testid=timeline]');
    assert.match(timeline, /offline/);
    assert.match(timeline, /Retrying the model provider/);
    assert.match(timeline, /All done\./);
    const cached = Object.values(await cachedUrls(page)).flat();
    assert.ok(cached.length > 0);
    assert.deepEqual(cached.filter((url) => !url.startsWith(`${site.url}/tabloop/`)), [], 'only the site is cached');
    assert.deepEqual(cached.filter((url) => url.includes(mock.origin) || url.includes('/v1/')), []);
  }));

test('a remote run paused offline survives an offline reload and finishes when the network returns, once its key is typed again', { timeout: RUN_MS }, () =>
  withRemotePlayground(async ({ site, mock, context, page }) => {
    mock.script.push({ text: 'Done after the trip.' });
    await context.setOffline(true);
    await page.fill('[data-testid=task]', 'Say that the trip is over.');
    await page.press('[data-testid=task]', 'Control+Enter');
    await page.waitForSelector('[data-testid=provider-error]', { timeout: 30_000 });
    const before = await page.locator('[data-kind]').count();
    await page.reload();
    await page.waitForSelector('[data-testid=key-needed]', { timeout: 30_000 });
    await page.click('.settings summary');
    await page.selectOption('[data-testid=provider-kind]', 'openai');
    await page.fill('[data-testid=api-key]', 'sk-ui-SECRET');
    await page.click('[data-testid=resume]');
    await page.waitForSelector('[data-testid=provider-error]', { timeout: 30_000 });
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(await stopReason(page), '', 'still paused while offline');
    assert.equal(mock.requests.length, 0);
    assert.ok((await page.locator('[data-kind]').count()) >= before, 'nothing recorded was lost');

    await context.setOffline(false);
    await page.waitForFunction(() => document.querySelectorAll('[data-kind=run_finished]').length === 1, null, { timeout: 60_000 });
    assert.equal(await stopReason(page), 'completed');
    assert.equal(mock.requests.length, 1);
    assert.match(await page.textContent('[data-testid=timeline]'), /Done after the trip\./);
  }));

test('run() with a pause timeout settles as paused offline; the run finishes when the network returns; MCP fails fast', { timeout: RUN_MS }, async () => {
  const mock = await scriptedOpenAi();
  mock.script.push({ text: 'Back online.' });
  const context = await suite.browser.newContext();
  try {
    const page = await openEmbed(context, suite.site);
    // The embedding page is outside the site's worker: its MCP module is loaded while online.
    await page.evaluate(() => import(new URL('/tabloop/www/mcp/client.js', location.href).href));
    await context.setOffline(true);
    const outcome = await page.evaluate(async (baseUrl) => {
      window.statuses = [];
      window.agent = await window.tabloop.createAgent({ provider: { kind: 'openai', baseUrl, apiKey: 'sk', model: 'scripted' } });
      window.agent.onStatus((s) => window.statuses.push(s));
      const started = performance.now();
      const outcome = await window.agent.run('Say hi.', { pauseTimeoutMs: 0 });
      return { ...outcome, ms: performance.now() - started };
    }, mock.url);
    assert.equal(outcome.stopReason, 'paused');
    assert.deepEqual(outcome.detail, { reason: 'provider_unreachable' });
    assert.match(outcome.explanation, /offline/);
    assert.ok(outcome.ms < 5000, `offline fails fast (${Math.round(outcome.ms)} ms)`);
    assert.equal(mock.requests.length, 0);

    await context.setOffline(false);
    await waitFor(() => page.evaluate(() => window.statuses.some((s) => s.type === 'finished')), 30_000, 'the run to finish');
    const finished = await page.evaluate(() => window.statuses.find((s) => s.type === 'finished').outcome);
    assert.equal(finished.stopReason, 'completed');
    assert.equal(finished.finalText, 'Back online.');
    const types = await page.evaluate(async () => (await window.agent.events()).map((e) => e.type));
    assert.deepEqual(types.filter((t) => /model_failed|run_paused|run_unpaused|run_finished/.test(t)), ['model_failed', 'run_paused', 'run_unpaused', 'run_finished']);
    // An abort while paused settles as paused too, the run left paused.
    await context.setOffline(true);
    const aborted = await page.evaluate(async () => {
      const controller = new AbortController();
      window.agent.onStatus((s) => s.type === 'provider_unreachable' && controller.abort());
      return window.agent.run('Say hi again.', { signal: controller.signal });
    });
    assert.equal(aborted.stopReason, 'paused');
    // An MCP server is not waited for either: connecting fails at once, saying why.
    const mcp = await page.evaluate(async () => {
      const started = performance.now();
      const error = await window.tabloop.connectMcp({ name: 'gone', url: 'http://127.0.0.1:9/mcp' }).then(() => null, (e) => String(e?.message ?? e));
      return { error, ms: performance.now() - started };
    });
    assert.match(mcp.error, /offline/);
    assert.ok(mcp.ms < 2000, `MCP fails fast offline (${Math.round(mcp.ms)} ms)`);
    await context.setOffline(false);
  } finally {
    await context.close();
    await mock.close();
  }
});

test("the manifest and the service worker pass Chromium's installability check", { timeout: RUN_MS }, async () => {
  const profile = newProfile();
  // A profile on disk: a fresh context is incognito, which is never installable.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`${suite.site.url}/tabloop/`);
    await page.waitForSelector('h1');
    await controlled(page);
    const cdp = await context.newCDPSession(page);
    const manifest = await cdp.send('Page.getAppManifest');
    assert.deepEqual(manifest.errors, []);
    assert.equal(manifest.url, `${suite.site.url}/tabloop/www/offline/manifest.json`);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    assert.deepEqual(installabilityErrors, []);
    console.log(JSON.stringify({ manifest: manifest.url, installabilityErrors }));
  } finally {
    await context.close();
    removeProfile(profile);
  }
});
