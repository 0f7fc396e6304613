// End-to-end tests of the custom model provider through the public API, on the embedding page:
// a page function in the Chat Completions shape answers as a stream of chunks or as one
// completion; usage and cost are counted; cancel aborts its signal; malformed replies are
// recorded; a resumed session needs the function again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEmbedSuite, stopEmbedSuite, openEmbed } from './support/embed.mjs';
import { installScriptedModel } from './support/page_model.mjs';

let site;
let browser;

before(async () => ({ site, browser } = await startEmbedSuite()));
after(() => stopEmbedSuite({ site, browser }));

async function open(context) {
  const page = await openEmbed(context, site);
  await installScriptedModel(page);
  return page;
}

test('a streaming custom provider runs a tool loop with usage, cost and the Chat Completions request', async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async () => {
      const model = scriptedProvider([
        { calls: [{ id: 'w1', name: 'vfs', args: { op: 'write', path: '/a.txt', content: 'hello' } }] },
        { text: 'Wrote a.txt.' },
      ], { stream: true });
      const agent = await tabloop.createAgent({
        session: 'custom-stream',
        provider: { kind: 'custom', model: 'page-model', complete: model.complete },
        tools: ['vfs'],
        permissions: { vfs: 'allow' },
        price: { input_per_mtok: 1000, output_per_mtok: 2000, cached_input_per_mtok: 0 },
      });
      const deltas = [];
      agent.onStatus((s) => s.type === 'delta' && deltas.push(s.text));
      const outcome = await agent.run('write a.txt');
      return { outcome, deltas, requests: model.requests, events: await agent.events() };
    });
    assert.equal(result.outcome.stopReason, 'completed');
    assert.equal(result.outcome.finalText, 'Wrote a.txt.');
    assert.deepEqual(result.deltas, ['Wrote', ' a.txt.']);
    assert.deepEqual(result.outcome.usage, { inputTokens: 200, outputTokens: 20, cachedInputTokens: 0 });
    assert.ok(Math.abs(result.outcome.costUsd - (200 * 1000 + 20 * 2000) / 1e6) < 1e-9, `cost ${result.outcome.costUsd}`);
    const first = result.requests[0];
    assert.equal(first.signalIsSignal, true);
    assert.equal(first.request.model, 'page-model');
    assert.equal(first.request.stream, true);
    assert.equal(first.request.tool_choice, 'auto');
    assert.equal(typeof first.request.max_tokens, 'number');
    // The runtime offers give_up beside the session's tools (it handles that one itself).
    assert.deepEqual(first.request.tools.map((t) => t.function.name), ['vfs', 'give_up']);
    assert.equal(first.request.messages.at(-1).content, 'write a.txt');
    const second = result.requests[1].request.messages;
    assert.equal(second.at(-1).role, 'tool');
    assert.equal(second.at(-1).tool_call_id, 'w1');
    const started = result.events.find((e) => e.type === 'session_started');
    assert.equal(started.config.provider.kind, 'custom');
    assert.equal(started.config.provider.model, 'page-model');
    const finished = result.events.filter((e) => e.type === 'tool_call_finished');
    assert.equal(finished.length, 1);
    assert.equal(finished[0].is_error, false);
  } finally {
    await context.close();
  }
});

test('each call gets the whole history in a fresh messages array; a page cannot change later requests', async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async () => {
      const model = scriptedProvider([
        { calls: [{ id: 'a1', name: 'vfs', args: { op: 'write', path: '/a.txt', content: 'one' } }] },
        { calls: [{ id: 'a2', name: 'vfs', args: { op: 'write', path: '/b.txt', content: 'two' } }] },
        { text: 'Wrote both.' },
      ], { stream: true });
      const refused = [];
      const complete = function (request, options) {
        'use strict';
        const out = model.complete(request, options);
        // What a careless page might do with the object it was handed.
        request.messages.push({ role: 'user', content: 'injected by the page' });
        try {
          request.messages[0].content = 'changed by the page';
        } catch (error) {
          refused.push(error.name);
        }
        return out;
      };
      const agent = await tabloop.createAgent({
        session: 'custom-history',
        provider: { kind: 'custom', model: 'page-model', complete },
        tools: ['vfs'],
        permissions: { vfs: 'allow' },
      });
      const outcome = await agent.run('write two files');
      return { outcome, requests: model.requests, refused };
    });
    assert.equal(result.outcome.finalText, 'Wrote both.');
    assert.deepEqual(result.refused, ['TypeError', 'TypeError', 'TypeError']);
    const shape = (messages) => messages.map((m) => [m.role, m.tool_call_id ?? m.tool_calls?.[0]?.id ?? m.content]);
    const third = result.requests[2].request.messages;
    assert.deepEqual(shape(third.filter((m) => m.role !== 'system')), [
      ['user', 'write two files'],
      ['assistant', 'a1'],
      ['tool', 'a1'],
      ['assistant', 'a2'],
      ['tool', 'a2'],
    ]);
    assert.deepEqual(result.requests[1].request.messages, third.slice(0, result.requests[1].request.messages.length));
  } finally {
    await context.close();
  }
});

test('a custom provider may answer with one ChatCompletion; bad tool arguments become an is_error observation', async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async () => {
      const model = scriptedProvider([
        { calls: [{ id: 'bad', name: 'vfs', rawArgs: '{"op": "read", "path": ' }] },
        { text: 'Could not read it.' },
      ], { stream: false });
      const agent = await tabloop.createAgent({ session: 'custom-object', provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: ['vfs'], permissions: { vfs: 'allow' } });
      const outcome = await agent.run('read');
      return { outcome, events: await agent.events(), requests: model.requests };
    });
    assert.equal(result.outcome.stopReason, 'completed');
    assert.equal(result.outcome.finalText, 'Could not read it.');
    const observation = result.requests[1].request.messages.at(-1);
    assert.equal(observation.role, 'tool');
    assert.match(observation.content, /^Error: /);
    assert.equal(result.outcome.usage.inputTokens, 200);
  } finally {
    await context.close();
  }
});

test('a reply that is not a ChatCompletion ends the run with a recorded error; a throwing provider too', async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async () => {
      const out = {};
      for (const [name, complete] of [
        ['string', async () => 'just some text'],
        ['throws', async () => { throw new TypeError('engine not loaded'); }],
      ]) {
        const agent = await tabloop.createAgent({ session: `custom-bad-${name}`, provider: { kind: 'custom', model: 'm', complete }, tools: [] });
        const outcome = await agent.run('hi');
        out[name] = { outcome, failed: (await agent.events()).filter((e) => e.type === 'model_failed') };
      }
      return out;
    });
    assert.equal(result.string.outcome.stopReason, 'fatal_error');
    assert.deepEqual(result.string.failed[0].error.kind, { kind: 'malformed' });
    assert.match(result.string.failed[0].error.message, /ChatCompletion object/);
    assert.equal(result.throws.outcome.stopReason, 'fatal_error');
    assert.match(result.throws.failed[0].error.message, /TypeError: engine not loaded/);
  } finally {
    await context.close();
  }
});

test('cancel aborts the signal the provider was given, even when it never answers', async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async () => {
      let aborted = null;
      let called;
      const calledPromise = new Promise((r) => { called = r; });
      const complete = (request, { signal }) => {
        signal.addEventListener('abort', () => { aborted = signal.reason?.name ?? 'aborted'; });
        called();
        return new Promise(() => {}); // never settles, ignores the signal
      };
      const agent = await tabloop.createAgent({ session: 'custom-cancel', provider: { kind: 'custom', model: 'm', complete }, tools: [] });
      const running = agent.run('wait');
      await calledPromise;
      agent.cancel();
      const outcome = await running;
      return { outcome, aborted };
    });
    assert.equal(result.outcome.stopReason, 'cancelled');
    assert.equal(result.aborted, 'AbortError');
  } finally {
    await context.close();
  }
});

test('the page hears of a running tool while it runs, then of every record once, in order', async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async () => {
      let release;
      const held = new Promise((r) => { release = r; });
      let started;
      const running = new Promise((r) => { started = r; });
      await tabloop.registerTool({
        name: 'hold',
        description: 'Waits until the page lets it finish.',
        parameters: { type: 'object', properties: {} },
        permission: 'allow',
        execute: async () => { started(); await held; return 'released'; },
      }, { replace: true });
      const model = scriptedProvider([
        { calls: [{ id: 'h1', name: 'hold', args: {} }] },
        { text: 'Done.' },
      ], { stream: true });
      const agent = await tabloop.createAgent({
        session: 'custom-hold',
        provider: { kind: 'custom', model: 'page-model', complete: model.complete },
        tools: ['hold'],
        permissions: { hold: 'allow' },
      });
      const heard = [];
      agent.onEvent((e) => heard.push(e));
      const outcome = agent.run('hold on');
      await running;
      // Nothing more is written while the tool runs: only the driver's next task can tell.
      const deadline = performance.now() + 5_000;
      while (!heard.some((e) => e.type === 'tool_call_started') && performance.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      const whileRunning = heard.map((e) => e.type);
      release();
      const done = await outcome;
      return { whileRunning, heard: heard.map((e) => e.seq), stored: (await agent.events()).map((e) => e.seq), stop: done.stopReason };
    });
    assert.equal(result.stop, 'completed');
    assert.ok(result.whileRunning.includes('tool_call_started'), `heard while the tool ran: ${result.whileRunning}`);
    assert.deepEqual(result.heard, result.stored, 'every stored record heard once, in order');
  } finally {
    await context.close();
  }
});

test('a tool that is not safe to run twice runs only once its start record is in IndexedDB, with the session\'s context', async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async () => {
      // Reads the session's log straight from the database, as a tab opened after a crash would.
      const storedCalls = () => new Promise((resolve, reject) => {
        const open = indexedDB.open('tabloop');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const rows = db.transaction('records', 'readonly').objectStore('records')
            .getAll(IDBKeyRange.bound(['custom-effects', -Infinity], ['custom-effects', Infinity]));
          rows.onerror = () => reject(rows.error);
          rows.onsuccess = () => {
            db.close();
            const events = rows.result.flatMap((row) => (Array.isArray(row.json) ? row.json : [row.json])).map((json) => JSON.parse(json));
            resolve(events.filter((e) => e.event?.type === 'tool_call_started').map((e) => e.event.call));
          };
        };
      });
      // Read-write transactions begun and not yet complete: the one holding a call's start
      // record is among them until it commits (a later read would wait for it, so the read
      // above alone cannot tell).
      let writing = 0;
      const transaction = IDBDatabase.prototype.transaction;
      IDBDatabase.prototype.transaction = function (stores, mode, options) {
        const tx = transaction.call(this, stores, mode, options);
        if (mode === 'readwrite') {
          writing += 1;
          const done = () => (writing -= 1);
          tx.addEventListener('complete', done);
          tx.addEventListener('abort', done);
        }
        return tx;
      };
      const seen = [];
      await tabloop.registerTool({
        name: 'effect',
        description: 'Does something that must not happen twice.',
        parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        permission: 'allow',
        execute: async ({ n }, ctx) => {
          const writesUnderWay = writing;
          const { session, allowHosts, idempotencyKey, signal } = ctx;
          const context = { session, allowHosts: [...allowHosts], frozen: Object.isFrozen(allowHosts), idempotencyKey, signal: signal instanceof AbortSignal && !signal.aborted };
          seen.push({ call: ctx.callId, writesUnderWay, stored: (await storedCalls()).includes(ctx.callId), context });
          return `did ${n}`;
        },
      }, { replace: true });
      const steps = 12;
      const replies = Array.from({ length: steps }, (_, n) => ({ calls: [{ id: `e${n}`, name: 'effect', args: { n } }] }));
      const model = scriptedProvider([...replies, { text: 'Done.' }], { stream: true });
      const agent = await tabloop.createAgent({
        session: 'custom-effects',
        provider: { kind: 'custom', model: 'page-model', complete: model.complete },
        tools: ['effect'],
        permissions: { effect: 'allow' },
        allowHosts: ['example.org', 'api.example.com'],
      });
      const done = await agent.run('do it');
      return { seen, stop: done.stopReason };
    });
    assert.equal(result.stop, 'completed');
    assert.equal(result.seen.length, 12);
    assert.deepEqual(result.seen.filter((s) => s.writesUnderWay > 0 || !s.stored), [], 'a tool ran before its start record was stored');
    // Every call is handed the session, its allow-list (a frozen copy), its own idempotency
    // key and a live signal.
    result.seen.forEach(({ call, context: { idempotencyKey, ...context } }) => {
      assert.deepEqual(context, { session: 'custom-effects', allowHosts: ['example.org', 'api.example.com'], frozen: true, signal: true });
      assert.match(idempotencyKey, new RegExp(`^custom-effects:\\d+:${call}$`));
    });
  } finally {
    await context.close();
  }
});

test('a long run that never waits on the outside lets the page have its tasks, and writes as it goes', async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async () => {
      // An instant in-page model and a tool safe to run twice: every step is microtasks only,
      // so without the driver's slices the page would get no task (no paint, no input) until
      // the run ended.
      await tabloop.registerTool({
        name: 'echo_safe',
        description: 'Echoes its argument.',
        parameters: { type: 'object', properties: { i: { type: 'integer' } }, required: ['i'] },
        permission: 'allow',
        idempotent: true,
        execute: async ({ i }) => `echo ${i}`,
      }, { replace: true });
      const steps = 1500;
      const script = Array.from({ length: steps }, (_, i) => ({ calls: [{ id: `e${i}`, name: 'echo_safe', args: { i } }] }));
      const model = scriptedProvider([...script, { text: 'Echoed.' }], { stream: true });
      // The page's own task, queued from within the run (its tenth model call, long after the
      // task's own commit): how far had the run gone when it ran?
      const channel = new MessageChannel();
      const firstTask = new Promise((resolve) => {
        channel.port1.onmessage = () => resolve({ calls: model.requests.length });
      });
      const complete = (request, options) => {
        if (model.requests.length === 9) channel.port2.postMessage(null);
        return model.complete(request, options);
      };
      const agent = await tabloop.createAgent({
        session: 'custom-slices',
        provider: { kind: 'custom', model: 'page-model', complete },
        tools: ['echo_safe'],
        permissions: { echo_safe: 'allow' },
        budget: { maxSteps: steps + 10, maxToolCalls: steps + 10 },
        contextWindow: 1_000_000_000,
        // An echo of its own argument is no new evidence to the loop guard; this test is about
        // the driver's slices, so it keeps the first rules (exact repeats only).
        guard: { reflective: false },
      });
      let heard = 0;
      agent.onEvent(() => (heard += 1));
      // How many model calls had been made each time a write committed.
      const commits = [];
      const transaction = IDBDatabase.prototype.transaction;
      IDBDatabase.prototype.transaction = function (stores, mode, options) {
        const tx = transaction.call(this, stores, mode, options);
        if (mode === 'readwrite') tx.addEventListener('complete', () => commits.push(model.requests.length));
        return tx;
      };
      const outcome = agent.run('echo until told otherwise');
      const atFirstTask = await firstTask;
      const done = await outcome;
      IDBDatabase.prototype.transaction = transaction;
      const events = await agent.events();
      return { atFirstTask, commits, heardAtEnd: heard, stop: done.stopReason, stored: events.length, calls: model.requests.length };
    });
    assert.equal(result.stop, 'completed');
    assert.equal(result.calls, 1501);
    assert.ok(result.atFirstTask.calls < result.calls / 2, `the page's task ran after ${result.atFirstTask.calls} of ${result.calls} model calls`);
    const midRun = result.commits.filter((calls) => calls > 0 && calls < result.calls / 2);
    assert.ok(midRun.length > 0, `writes committed after ${result.commits.join(', ')} model calls`);
    assert.equal(result.heardAtEnd, result.stored, 'every stored record heard once');
  } finally {
    await context.close();
  }
});

test('a custom session resumed after a reload needs the provider again, with a clear error', async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    await page.evaluate(async () => {
      const model = scriptedProvider([{ text: 'first answer' }], { stream: true });
      const agent = await tabloop.createAgent({ session: 'custom-resume', provider: { kind: 'custom', model: 'page-model', complete: model.complete }, tools: [] });
      await agent.run('one');
      agent.close();
    });
    await page.reload();
    await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
    const refused = await page.evaluate(async () => {
      try {
        await tabloop.createAgent({ session: 'custom-resume' });
        return null;
      } catch (error) {
        return String(error?.message ?? error);
      }
    });
    assert.match(refused ?? '', /custom model provider \(page-model\).*kind: 'custom', complete/);
    await page.evaluate(() => {
      window.second = [];
    });
    const resumed = await page.evaluate(async () => {
      const complete = async (request) => {
        window.second.push(request);
        return { choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'second answer' } }] };
      };
      const agent = await tabloop.createAgent({ session: 'custom-resume', provider: { kind: 'custom', complete } });
      const outcome = await agent.run('two');
      return { outcome, request: window.second[0] };
    });
    assert.equal(resumed.outcome.finalText, 'second answer');
    assert.equal(resumed.request.model, 'page-model', 'the stored model name is kept');
    assert.deepEqual(resumed.request.messages.filter((m) => m.role === 'user').map((m) => m.content), ['one', 'two']);
  } finally {
    await context.close();
  }
});

test('figures: loop time per step with an instant custom provider (printed, not asserted)', async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const figures = await page.evaluate(async () => {
      const steps = 20;
      const replies = Array.from({ length: steps - 1 }, (_, i) => ({ calls: [{ id: `t${i}`, name: 'vfs', args: { op: 'write', path: `/f${i}.txt`, content: `item ${i}` } }] }));
      replies.push({ text: 'done' });
      const model = scriptedProvider(replies, { stream: true });
      const agent = await tabloop.createAgent({ session: 'custom-figures', provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: ['vfs'], permissions: { vfs: 'allow' }, budget: { maxSteps: 50 } });
      const started = performance.now();
      const outcome = await agent.run('write files');
      return { ms: performance.now() - started, steps: outcome.steps, stop: outcome.stopReason };
    });
    console.log(`# custom provider: ${figures.steps} steps (${figures.stop}) in ${figures.ms.toFixed(0)} ms = ${(figures.ms / figures.steps).toFixed(1)} ms/step (store writes included)`);
    assert.ok(figures.steps > 0);
  } finally {
    await context.close();
  }
});
