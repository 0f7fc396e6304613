// End-to-end tests of the public JS API on a page that embeds tabloop (no playground UI), against
// the release build served under a sub-path: a full run with real JS tools, approvals, a reload in
// the middle of a run (resumed, no event lost), key hygiene, and a step on the real local model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startEmbedSuite, stopEmbedSuite, openEmbed, waitFor } from './support/embed.mjs';
import { scriptedOpenAi } from './support/scripted_openai.mjs';

const KEY = 'sk-e2e-SECRET-0123456789';
let site;
let browser;

before(async () => ({ site, browser } = await startEmbedSuite()));
after(() => stopEmbedSuite({ site, browser }));

const open = (context) => openEmbed(context, site);

function provider(mock) {
  return { kind: 'openai', baseUrl: mock.url, apiKey: KEY, model: 'scripted' };
}


test('a log with integers beyond 2^53 reaches events() whole, those numbers rounded as JSON.parse rounds them', async () => {
  const mock = await scriptedOpenAi();
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async ({ provider }) => {
      // The synthetic log's configuration holds an unbounded context window (u64::MAX / 4).
      const log = tabloop.benchSessionLog(40, 'big-numbers');
      await tabloop.importSession(log);
      const agent = await tabloop.createAgent({ session: 'big-numbers', provider });
      const events = await agent.events();
      agent.close();
      return { log, events };
    }, { provider: provider(mock) });
    const lines = result.log.trim().split('\n').map((line) => JSON.parse(line));
    assert.equal(result.events.length, lines.length);
    assert.deepEqual(result.events, lines.map(({ seq, at, event }) => ({ seq, at, ...event })));
    assert.ok(JSON.stringify(lines[0]).includes('4611686018427388000'), 'the test log holds a number beyond 2^53');
  } finally {
    await context.close();
    await mock.close();
  }
});

test('a run uses the real vfs tool, persists every event and ends with a structured outcome', async () => {
  const mock = await scriptedOpenAi();
  const context = await browser.newContext();
  try {
    mock.script.push(
      { calls: [{ id: 'w1', name: 'vfs', args: { op: 'write', path: '/notes.txt', content: 'alpha\nbeta\n' } }] },
      { calls: [{ id: 'r1', name: 'vfs', args: { op: 'read', path: '/notes.txt' } }] },
      { text: 'The file says alpha and beta.' },
    );
    const page = await open(context);
    const result = await page.evaluate(async ({ provider }) => {
      const agent = await tabloop.createAgent({ session: 'run-1', provider, tools: ['vfs', 'todo', 'finish'] });
      const seen = [];
      agent.onEvent((e) => seen.push(e));
      const outcome = await agent.run('Write notes.txt then read it back.');
      const stored = await agent.events();
      const exported = await agent.exportJsonl();
      return { outcome, seen, stored, exported };
    }, { provider: provider(mock) });

    assert.equal(result.outcome.stopReason, 'completed');
    assert.equal(result.outcome.finalText, 'The file says alpha and beta.');
    assert.equal(result.outcome.steps, 3);
    assert.deepEqual(result.seen, result.stored, 'onEvent delivered exactly the stored events');
    assert.deepEqual(result.stored.map((e) => e.seq), result.stored.map((_, i) => i));
    const finished = result.stored.filter((e) => e.type === 'tool_call_finished');
    assert.equal(finished.length, 2);
    assert.match(finished[1].content, /alpha/);
    assert.equal(finished[1].is_error, false);
    const reasons = result.stored.filter((e) => e.type === 'step_started').map((e) => e.reason.kind);
    assert.deepEqual(reasons, ['next_turn', 'tool_results', 'tool_results']);
    // The model saw the tool result on its next call.
    const third = mock.requests[2].body.messages;
    assert.equal(third.at(-1).role, 'tool');
    assert.match(third.at(-1).content, /alpha/);
    // The key went to the provider only: never into events, exports or storage.
    assert.equal(mock.requests[0].headers.authorization, `Bearer ${KEY}`);
    assert.ok(!JSON.stringify(result.stored).includes(KEY));
    assert.ok(!result.exported.includes(KEY));
    const dump = await page.evaluate(async () => {
      const db = await new Promise((ok, fail) => {
        const r = indexedDB.open('tabloop');
        r.onsuccess = () => ok(r.result);
        r.onerror = () => fail(r.error);
      });
      const names = [...db.objectStoreNames];
      const all = [];
      for (const name of names) {
        all.push(await new Promise((ok) => {
          const q = db.transaction(name).objectStore(name).getAll();
          q.onsuccess = () => ok(q.result);
        }));
      }
      return JSON.stringify(all);
    });
    assert.ok(dump.includes('notes.txt'), 'the dump holds the log');
    assert.ok(!dump.includes(KEY), 'no key in IndexedDB');
  } finally {
    await context.close();
    await mock.close();
  }
});

test('an ask tool waits for approval and the approved call runs', async () => {
  const mock = await scriptedOpenAi();
  const context = await browser.newContext();
  try {
    mock.script.push(
      { calls: [{ id: 'w1', name: 'vfs', args: { op: 'write', path: '/a.txt', content: 'x' } }] },
      { text: 'written' },
    );
    const page = await open(context);
    const result = await page.evaluate(async ({ provider }) => {
      const agent = await tabloop.createAgent({ session: 'ask-1', provider, tools: ['vfs'], permissions: { vfs: 'ask' } });
      const approvals = [];
      agent.onStatus((s) => {
        if (s.type === 'approval') {
          approvals.push(s);
          agent.approve(s.callId);
        }
      });
      const outcome = await agent.run('write a.txt');
      const events = await agent.events();
      return { outcome, approvals, types: events.map((e) => e.type) };
    }, { provider: provider(mock) });
    assert.equal(result.outcome.stopReason, 'completed');
    assert.equal(result.approvals.length, 1);
    assert.deepEqual(result.approvals[0].args, { op: 'write', path: '/a.txt', content: 'x' });
    const order = ['approval_requested', 'approval_decided', 'tool_call_started', 'tool_call_finished'];
    assert.deepEqual(result.types.filter((t) => order.includes(t)), order);
  } finally {
    await context.close();
    await mock.close();
  }
});

test('a reload in the middle of a run resumes it with no event lost', async () => {
  const mock = await scriptedOpenAi();
  const context = await browser.newContext();
  try {
    mock.script.push(
      { calls: [{ id: 'w1', name: 'vfs', args: { op: 'write', path: '/r.txt', content: 'kept' } }] },
      'hold',
    );
    const page = await open(context);
    await page.evaluate(async ({ provider }) => {
      const agent = await tabloop.createAgent({ session: 'reload-1', provider, tools: ['vfs'] });
      agent.run('write r.txt and report');
    }, { provider: provider(mock) });
    await waitFor(() => mock.requests.length === 2, 20_000, 'the second model call');
    const before = await page.evaluate(async () => {
      const agent = await tabloop.createAgent({ session: 'reload-1-probe', tools: [] });
      agent.close();
      const db = await new Promise((ok) => {
        const r = indexedDB.open('tabloop');
        r.onsuccess = () => ok(r.result);
      });
      return await new Promise((ok) => {
        const q = db.transaction('records').objectStore('records').getAll(IDBKeyRange.bound(['reload-1', 0], ['reload-1', Infinity]));
        // A row holds consecutive records (an array) or, as earlier builds wrote, one.
        q.onsuccess = () => ok(q.result.flatMap((r) => [r.json].flat()).map((json) => JSON.parse(json)));
      });
    });
    assert.equal(before.at(-1).event.type, 'model_call_started', 'killed while the model thinks');

    mock.script.push({ text: 'r.txt holds "kept".' });
    await page.reload();
    await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
    const after = await page.evaluate(async () => {
      // No provider given: the session keeps the one it was created with.
      const agent = await tabloop.createAgent({ session: 'reload-1' });
      const done = new Promise((resolve) => agent.onStatus((s) => s.type === 'finished' && resolve(s.outcome)));
      const outcome = await done;
      return { outcome, events: await agent.events() };
    });
    assert.equal(after.outcome.stopReason, 'completed');
    assert.equal(after.outcome.finalText, 'r.txt holds "kept".');
    const prefix = after.events.slice(0, before.length).map(({ seq, at, type }) => ({ seq, at, type }));
    assert.deepEqual(prefix, before.map((r) => ({ seq: r.seq, at: r.at, type: r.event.type })), 'nothing recorded was lost');
    assert.deepEqual(after.events.map((e) => e.seq), after.events.map((_, i) => i), 'no gap, no duplicate');
    const resumed = after.events.slice(before.length).map((e) => e.type);
    assert.deepEqual(resumed.slice(0, 3), ['resumed', 'model_call_abandoned', 'model_call_started']);
    assert.equal(mock.requests.length, 3, 'the interrupted model call was sent again');
    assert.ok(!String(mock.requests[2].headers.authorization ?? '').includes(KEY), 'no key survives a reload');
  } finally {
    await context.close();
    await mock.close();
  }
});

test('a tool the page registers runs, and a log from a newer build is refused on import', async () => {
  const mock = await scriptedOpenAi();
  const context = await browser.newContext();
  try {
    mock.script.push({ calls: [{ id: 'c1', name: 'add', args: { a: 2, b: 40 } }] }, { text: '42' });
    const page = await open(context);
    const result = await page.evaluate(async ({ provider }) => {
      await tabloop.registerTool({
        name: 'add',
        description: 'adds two numbers',
        parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        permission: 'allow',
        execute: async ({ a, b }) => ({ sum: a + b }),
      });
      const agent = await tabloop.createAgent({ session: 'tool-1', provider, tools: ['add'] });
      const outcome = await agent.run('add 2 and 40');
      const events = await agent.events();
      const jsonl = await agent.exportJsonl();
      const future = jsonl.replace('"schema_version":1', '"schema_version":99').replaceAll('tool-1', 'tool-1-future');
      let refused = null;
      try {
        await tabloop.importSession(future);
      } catch (error) {
        refused = String(error.message);
      }
      const imported = await tabloop.importSession(jsonl.replaceAll('"tool-1"', '"tool-1-copy"'));
      return { outcome, result: events.find((e) => e.type === 'tool_call_finished'), refused, imported };
    }, { provider: provider(mock) });
    assert.equal(result.outcome.stopReason, 'completed');
    assert.equal(result.result.content, '{"sum":42}');
    assert.match(result.refused, /schema version 99, newer than this build/);
    assert.equal(result.imported, 'tool-1-copy');
  } finally {
    await context.close();
    await mock.close();
  }
});

test('the local model in the tab takes a step whose tool call the loop executes', { timeout: 300_000 }, async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const started = Date.now();
    const result = await page.evaluate(async () => {
      await tabloop.registerTool({
        name: 'read_note',
        description: 'Reads the note with the given name and returns its text.',
        parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
        permission: 'allow',
        idempotent: true,
        execute: async ({ name }) => `Note ${name}: buy milk and eggs.`,
      });
      const agent = await tabloop.createAgent({
        session: 'local-1',
        provider: { kind: 'local' },
        tools: ['read_note'],
        budget: { maxSteps: 2 },
        maxOutputTokens: 48,
        system: 'You are an assistant with one tool, read_note. Always call read_note before answering.',
      });
      const deltas = [];
      const shown = { delta: '', thinking: '' };
      agent.onStatus((s) => {
        if (s.type === 'delta' || s.type === 'thinking') {
          deltas.push(s.text);
          shown[s.type] += s.text;
        }
      });
      const outcome = await agent.run('Read the note named groceries with the read_note tool.');
      return { outcome, deltas: deltas.length, shown, events: await agent.events() };
    });
    const replies = result.events.filter((e) => e.type === 'model_replied');
    const calls = replies.flatMap((e) => e.reply.tool_calls ?? []);
    const finished = result.events.filter((e) => e.type === 'tool_call_finished');
    console.log(JSON.stringify({
      local_step_ms: Date.now() - started,
      stop: result.outcome.stopReason,
      deltas: result.deltas,
      answer_shown: result.shown.delta,
      calls: calls.map((c) => `${c.name}(${c.arguments})`),
      output_tokens: result.outcome.usage.outputTokens,
    }));
    assert.ok(result.deltas >= 2, 'the reply was streamed');
    // A call is previewed as its raw JSON; an answer streams as its text, never as JSON.
    assert.match(result.shown.thinking, /^\{"tool":"read_note","arguments":/);
    const last = replies.at(-1)?.reply;
    const answer = last && (last.tool_calls ?? []).length === 0 ? last.text : '';
    assert.equal(result.shown.delta, answer, 'the text shown is the answer');
    assert.equal(calls[0]?.name, 'read_note', 'the model called the tool');
    assert.equal(finished.length >= 1, true, 'the loop executed it');
    assert.match(finished[0].content, /buy milk/);
    assert.ok(['completed', 'budget_exhausted'].includes(result.outcome.stopReason), result.outcome.stopReason);
  } finally {
    await context.close();
  }
});

test('an answer from the local model streams as its text, not as the JSON it is written in', { timeout: 300_000 }, async () => {
  const context = await browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async () => {
      const agent = await tabloop.createAgent({ session: 'local-answer', provider: { kind: 'local' }, tools: ['vfs', 'todo'], budget: { maxSteps: 1 } });
      const shown = { delta: '', thinking: '' };
      agent.onStatus((s) => (s.type === 'delta' || s.type === 'thinking') && (shown[s.type] += s.text));
      const outcome = await agent.run('What is the capital of France? Answer in one word without using any tool.');
      return { outcome, shown };
    });
    console.log(JSON.stringify({ local_answer: result.outcome.finalText, shown: result.shown }));
    assert.equal(result.outcome.stopReason, 'completed');
    assert.match(result.outcome.finalText, /Paris/);
    assert.equal(result.shown.delta, result.outcome.finalText);
    assert.equal(result.shown.thinking, '');
  } finally {
    await context.close();
  }
});

test('one writer per session across tabs: a follower takes over when the writer tab closes', async () => {
  const mock = await scriptedOpenAi();
  const context = await browser.newContext();
  try {
    mock.script.push({ text: 'first' }, { text: 'second, from the other tab' });
    const writer = await open(context);
    await writer.evaluate(async ({ provider }) => {
      window.agent = await tabloop.createAgent({ session: 'tabs-1', provider, tools: [] });
    }, { provider: provider(mock) });
    const follower = await open(context);
    const status = await follower.evaluate(async () => {
      window.statuses = [];
      window.seen = [];
      window.agent = await tabloop.createAgent({ session: 'tabs-1' });
      window.agent.onStatus((s) => window.statuses.push(s.type));
      window.agent.onEvent((e) => window.seen.push(e.type));
      await new Promise((r) => setTimeout(r, 500));
      return { isWriter: window.agent.isWriter, statuses: [...window.statuses] };
    });
    assert.equal(status.isWriter, false, 'the second tab follows while the first writes');
    // The writer runs; the follower sees the run as it is written.
    await writer.evaluate(async () => {
      window.outcome = await window.agent.run('hello');
    });
    await follower.waitForFunction(() => window.seen.includes('run_finished'), null, { timeout: 10_000 });
    const followed = await follower.evaluate(() => window.seen);
    assert.deepEqual(followed.slice(0, 3), ['user_message', 'run_started', 'step_started']);
    const closedAt = Date.now();
    await writer.close();
    await follower.waitForFunction(() => window.agent.isWriter === true, null, { timeout: 10_000 });
    console.log(JSON.stringify({ failover_ms: Date.now() - closedAt }));
    const result = await follower.evaluate(async () => {
      const outcome = await window.agent.run('and again');
      const events = await window.agent.events();
      const forked = await window.agent.fork(1);
      const copy = await tabloop.createAgent({ session: forked });
      const copyEvents = await copy.events();
      return { outcome, runs: events.filter((e) => e.type === 'run_started').length, forked, copyEvents };
    });
    assert.equal(result.outcome.finalText, 'second, from the other tab');
    assert.equal(result.runs, 2, 'both runs are in one log');
    assert.equal(result.copyEvents[0].session, result.forked, 'the fork is a session of its own');
    assert.ok(result.copyEvents.some((e) => e.type === 'step_finished' && e.step === 1));
  } finally {
    await context.close();
    await mock.close();
  }
});

test('a full disk pauses the run with a clear error, loses nothing, and it goes on once space is freed', async () => {
  const mock = await scriptedOpenAi();
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const origin = new URL(site.url).origin;
    // Chromium applies a quota override to storage opened after it: set it before the page
    // touches IndexedDB. 400 KB holds the log of a short run, not a 512 KB answer.
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 400 * 1024 });
    await page.goto(`${site.url}/embed.html`);
    await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
    mock.script.push({ text: 'small warm-up answer' });
    await page.evaluate(async ({ provider }) => {
      window.agent = await tabloop.createAgent({ session: 'quota-1', provider, tools: [] });
      window.statuses = [];
      window.agent.onStatus((s) => window.statuses.push(s));
      await window.agent.run('warm up');
    }, { provider: provider(mock) });
    // Random text does not compress, so it really takes its size on disk.
    const big = crypto.randomBytes(384 * 1024).toString('base64');
    mock.script.push({ text: big });
    const before = await page.evaluate(async () => {
      window.settled = false;
      window.pending = window.agent.run('write a very long answer');
      window.pending.then(() => (window.settled = true));
      return (await window.agent.events()).length;
    });
    await page.waitForFunction(() => window.statuses.some((s) => s.type === 'storage_failed'), null, { timeout: 20_000 });
    const paused = await page.evaluate(async () => ({
      message: window.statuses.find((s) => s.type === 'storage_failed').message,
      settled: window.settled,
      events: await window.agent.events(),
    }));
    console.log(JSON.stringify({ storage_failed_message: paused.message }));
    assert.match(paused.message, /storage is full/i);
    assert.equal(paused.settled, false, 'the run is paused, not ended');
    assert.ok(paused.events.length >= before, 'nothing already written was lost');
    assert.deepEqual(paused.events.map((e) => e.seq), paused.events.map((_, i) => i));
    assert.ok(!paused.events.some((e) => e.type === 'model_replied' && e.reply.text === big), 'the refused batch left no trace');
    // The user frees space; the same records are written and the run finishes.
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 64 * 1024 * 1024 });
    const after = await page.evaluate(async () => {
      window.agent.retryStorage();
      const outcome = await window.pending;
      return { outcome, events: await window.agent.events(), statuses: window.statuses.map((s) => s.type) };
    });
    assert.equal(after.outcome.stopReason, 'completed');
    assert.equal(after.outcome.finalText, big);
    assert.ok(after.statuses.includes('storage_recovered'));
    assert.deepEqual(after.events.slice(0, paused.events.length), paused.events);
    assert.deepEqual(after.events.map((e) => e.seq), after.events.map((_, i) => i));
  } finally {
    await context.close();
    await mock.close();
  }
});

test('setApiKey: a session whose key was refused runs its next task with the new one', async () => {
  const mock = await scriptedOpenAi();
  const context = await browser.newContext();
  try {
    mock.script.push(
      { status: 401, body: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } } },
      { text: 'Hello!' },
    );
    const page = await open(context);
    const result = await page.evaluate(async ({ provider }) => {
      const agent = await tabloop.createAgent({ session: 'rekey-1', provider, tools: [] });
      const refused = await agent.run('Say hello.');
      agent.setApiKey('sk-the-right-one');
      const answered = await agent.run('Say hello.');
      return { refused: refused.stopReason, answered: answered.stopReason, exported: await agent.exportJsonl() };
    }, { provider: provider(mock) });
    assert.equal(result.refused, 'fatal_error');
    assert.equal(result.answered, 'completed');
    assert.deepEqual(mock.requests.map((r) => r.headers.authorization), [`Bearer ${KEY}`, 'Bearer sk-the-right-one']);
    assert.ok(!result.exported.includes('sk-the-right-one') && !result.exported.includes(KEY), 'no key in the export');
  } finally {
    await context.close();
    await mock.close();
  }
});
