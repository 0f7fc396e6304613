// Two tabs on one session's storage: the writer tab appends without reading the sessions row
// while it continues its own last append (www/store/idb_append.js), so what another tab does to
// that row in between must still hold: a rename is kept by the appends that follow, and a
// delete is not undone by them (the writer pauses instead of writing a log with its start
// missing). The other tab uses the store exactly as the page's own code does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEmbedSuite, stopEmbedSuite, openEmbed } from './support/embed.mjs';
import { installScriptedModel } from './support/page_model.mjs';

let site;
let browser;

before(async () => ({ site, browser } = await startEmbedSuite()));
after(() => stopEmbedSuite({ site, browser }));

const STEPS = 4;

// Starts a run in `page` whose model calls `gate` (not idempotent) STEPS times, then answers;
// every call of `gate` waits until `window.openGate()`. Resolves once the first call waits.
async function startGatedRun(page, session) {
  await installScriptedModel(page);
  await page.evaluate(async ({ session, steps }) => {
    let open;
    const gate = new Promise((resolve) => (open = resolve));
    window.openGate = open;
    window.gateCalls = 0;
    await tabloop.registerTool({
      name: 'gate',
      description: 'Waits for the test.',
      parameters: { type: 'object', properties: { i: { type: 'integer' } }, required: ['i'] },
      permission: 'allow',
      idempotent: false,
      execute: async ({ i }) => {
        window.gateCalls += 1;
        await gate;
        return `passed ${i}`;
      },
    });
    const replies = [...Array(steps).keys()].map((i) => ({ calls: [{ id: `g${i}`, name: 'gate', args: { i } }] }));
    const model = scriptedProvider([...replies, { text: 'all gates passed' }], { stream: true });
    window.agent = await tabloop.createAgent({
      session,
      provider: { kind: 'custom', model: 'page-model', complete: model.complete },
      tools: ['gate'],
      permissions: { gate: 'allow' },
    });
    window.statuses = [];
    window.agent.onStatus((s) => window.statuses.push(s.type));
    window.events = 0;
    window.agent.onEvent(() => (window.events += 1));
    window.outcome = window.agent.run('pass every gate');
  }, { session, steps: STEPS });
  await page.waitForFunction(() => window.gateCalls === 1, null, { timeout: 10_000 });
}

// The store module this page's tabloop loaded (the same instance its own code uses).
async function storeCall(page, name, ...args) {
  return page.evaluate(async ({ name, args }) => {
    const url = performance.getEntriesByType('resource').map((e) => e.name).find((n) => n.endsWith('/www/store/idb_store.js'));
    const store = await import(url);
    return store[name](...args);
  }, { name, args });
}

test('a session renamed in another tab keeps its name while the writer tab goes on', async () => {
  const context = await browser.newContext();
  try {
    const writer = await openEmbed(context, site);
    await startGatedRun(writer, 'renamed-elsewhere');
    const other = await openEmbed(context, site);
    await storeCall(other, 'renameSession', 'tabloop', 'renamed-elsewhere', 'Named in the other tab');
    const outcome = await writer.evaluate(async () => {
      window.openGate();
      const outcome = await window.outcome;
      return { stopReason: outcome.stopReason, finalText: outcome.finalText, events: window.events };
    });
    assert.equal(outcome.stopReason, 'completed');
    assert.equal(outcome.finalText, 'all gates passed');
    const row = await storeCall(other, 'indexRow', 'tabloop', 'renamed-elsewhere');
    assert.equal(row.name, 'Named in the other tab', 'the rename survived the appends after it');
    assert.equal(row.records, outcome.events, 'every record the writer reported is counted');
  } finally {
    await context.close();
  }
});

test('a session deleted in another tab is not written back by the writer tab', async () => {
  const context = await browser.newContext();
  try {
    const writer = await openEmbed(context, site);
    await startGatedRun(writer, 'deleted-elsewhere');
    const other = await openEmbed(context, site);
    await other.evaluate(() => tabloop.deleteSession('deleted-elsewhere'));
    await writer.evaluate(() => window.openGate());
    // Its next append finds the log gone: the run pauses on storage instead of going on.
    await writer.waitForFunction(() => window.statuses.includes('storage_failed'), null, { timeout: 10_000 });
    const listed = await other.evaluate(async () => (await tabloop.listSessions()).map((s) => s.session));
    assert.ok(!listed.includes('deleted-elsewhere'), `still listed: ${listed}`);
    assert.equal(await storeCall(other, 'indexRow', 'tabloop', 'deleted-elsewhere'), null);
    assert.equal(await storeCall(other, 'load', 'tabloop', 'deleted-elsewhere'), '', 'no record written back');
  } finally {
    await context.close();
  }
});
