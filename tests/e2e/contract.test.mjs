// End-to-end tests of what the loop reports against what happened, through `window.tabloop` on an
// embedding page: finish without a verifier, a cut stream and a provider that stays down, hidden
// tab time, eval failures, the idempotency key a tool sees, and inputs given to a follower tab.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEmbedSuite, stopEmbedSuite, openEmbed, waitFor } from './support/embed.mjs';
import { scriptedOpenAi } from './support/scripted_openai.mjs';

let site;
let browser;

before(async () => ({ site, browser } = await startEmbedSuite()));
after(() => stopEmbedSuite({ site, browser }));

const open = (context) => openEmbed(context, site);

function provider(mock) {
  return { kind: 'openai', baseUrl: mock.url, apiKey: 'sk-test', model: 'scripted' };
}


/** Runs `fn` with a fresh context, page and scripted provider. */
async function withPage(fn) {
  const mock = await scriptedOpenAi();
  const context = await browser.newContext();
  try {
    const page = await open(context);
    return await fn(page, mock, context);
  } finally {
    await context.close();
    await mock.close();
  }
}

const finishCall = { calls: [{ id: 'f1', name: 'finish', args: { summary: 'all done' } }] };

test('finish with no verifier is reported as unverified, and requireFinish without one is refused', async () => {
  await withPage(async (page, mock) => {
    mock.script.push(finishCall);
    const result = await page.evaluate(async ({ provider }) => {
      let refused = null;
      try {
        await tabloop.createAgent({ session: 'nover-1', provider, tools: ['finish'], requireFinish: true });
      } catch (error) {
        refused = String(error.message ?? error);
      }
      const agent = await tabloop.createAgent({ session: 'nover-2', provider, tools: ['finish'] });
      const outcome = await agent.run('finish at once');
      return { refused, outcome, events: await agent.events() };
    }, { provider: provider(mock) });
    assert.match(result.refused ?? 'created', /requireFinish needs a finish verifier/);
    assert.equal(result.outcome.stopReason, 'unverified_finish');
    assert.match(result.outcome.explanation, /no verifier/i);
    assert.equal(result.outcome.finalText, 'all done');
    assert.ok(!result.events.some((e) => e.type === 'run_finished' && e.outcome.stop.kind === 'verified_finish'));
  });
  await withPage(async (page, mock) => {
    mock.script.push(finishCall);
    const outcome = await page.evaluate(async ({ provider }) => {
      await tabloop.registerTool({
        name: 'finish',
        description: 'checks the claim',
        parameters: { type: 'object' },
        permission: 'allow',
        execute: async ({ summary }) => `checked: ${summary}`,
      });
      const agent = await tabloop.createAgent({ session: 'ver-1', provider, tools: ['finish'], requireFinish: true });
      return agent.run('finish at once');
    }, { provider: provider(mock) });
    assert.equal(outcome.stopReason, 'verified_finish', 'a registered verifier that passes verifies');
  });
});

test('a stream cut mid-reply is retried within the step and the partial text never reaches the context', async () => {
  await withPage(async (page, mock) => {
    mock.script.push({ cut: 'PARTIAL-TEXT ' }, { text: 'the whole answer' });
    const result = await page.evaluate(async ({ provider }) => {
      const agent = await tabloop.createAgent({ session: 'cut-1', provider, tools: [] });
      const outcome = await agent.run('answer');
      return { outcome, events: await agent.events() };
    }, { provider: provider(mock) });
    assert.equal(result.outcome.stopReason, 'completed');
    assert.equal(result.outcome.finalText, 'the whole answer');
    assert.equal(result.outcome.steps, 1, 'the retry is part of the same step');
    const types = result.events.map((e) => e.type);
    assert.ok(types.includes('model_failed'));
    assert.equal(types.filter((t) => t === 'model_call_started').length, 2);
    assert.equal(mock.requests.length, 2);
    assert.ok(!JSON.stringify(mock.requests[1].body.messages).includes('PARTIAL-TEXT'), 'the partial reply is not in the retried request');
  });
});

test('a provider that stays down pauses the run resumably, and Retry continues it', async () => {
  await withPage(async (page, mock) => {
    for (let i = 0; i < 5; i += 1) mock.script.push('cut');
    const paused = await page.evaluate(async ({ provider }) => {
      window.agent = await tabloop.createAgent({ session: 'down-1', provider, tools: [] });
      window.statuses = [];
      window.agent.onStatus((s) => window.statuses.push(s));
      window.settled = false;
      window.pending = window.agent.run('answer');
      window.pending.then(() => (window.settled = true));
      const start = Date.now();
      while (!window.statuses.some((s) => s.type === 'provider_unreachable') && Date.now() - start < 30_000) {
        await new Promise((r) => setTimeout(r, 100));
      }
      return { statuses: window.statuses.map((s) => s.type), settled: window.settled, events: await window.agent.events() };
    }, { provider: provider(mock) });
    assert.ok(paused.statuses.includes('provider_unreachable'), JSON.stringify(paused.statuses));
    assert.equal(paused.settled, false, 'the run is paused, not ended');
    assert.ok(!paused.events.some((e) => e.type === 'run_finished'), 'no terminal outcome for a transient fault');
    assert.equal(mock.requests.length, 5, 'bounded retries');
    const last = paused.events.filter((e) => e.type === 'step_finished').at(-1);
    assert.equal(last, undefined, 'the step is still open');
    mock.script.push({ text: 'back again' });
    const after = await page.evaluate(async () => {
      window.agent.retryProvider();
      return window.pending;
    });
    assert.equal(after.stopReason, 'completed');
    assert.equal(after.finalText, 'back again');
    assert.equal(after.steps, 1);
  });
});

test('time while the tab is hidden is not charged to the run', async () => {
  await withPage(async (page, mock) => {
    mock.script.push('hold');
    await page.evaluate(async ({ provider }) => {
      window.agent = await tabloop.createAgent({ session: 'hidden-1', provider, tools: [] });
      window.pending = window.agent.run('answer');
    }, { provider: provider(mock) });
    await waitFor(() => mock.requests.length === 1, 10_000, 'the model call');
    const setHidden = (hidden) => page.evaluate((h) => {
      Object.defineProperty(document, 'visibilityState', { value: h ? 'hidden' : 'visible', configurable: true });
      Object.defineProperty(document, 'hidden', { value: h, configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    }, hidden);
    await setHidden(true);
    await new Promise((r) => setTimeout(r, 1500));
    await setHidden(false);
    await waitFor(async () => (await page.evaluate(async () => (await window.agent.events()).some((e) => e.type === 'resumed'))), 5_000, 'resumed');
    const events = await page.evaluate(async () => window.agent.events());
    const types = events.map((e) => e.type);
    assert.ok(types.indexOf('suspended') < types.indexOf('resumed'));
    const suspendedAt = events.find((e) => e.type === 'suspended').at;
    const resumedAt = events.find((e) => e.type === 'resumed').at;
    assert.ok(resumedAt - suspendedAt >= 1400, `hidden for ${resumedAt - suspendedAt} ms`);
  });
});

test('eval failures are error results that the consecutive-error breaker counts', async () => {
  await withPage(async (page, mock) => {
    const failing = (i) => ({ calls: [{ id: `e${i}`, name: 'eval', args: { code: `throw new Error("bad ${i}")` } }] });
    // Three failures in a row ask for a forced reflection first; the model goes on, fails again,
    // and the breaker stops the run.
    mock.script.push(failing(1), failing(2), failing(3));
    mock.script.push({ calls: [{ id: 'r1', name: 'reflect', args: { status: 'The code throws.', stuck_on: ['bad input'], give_up: false, next: 'try once more' } }] });
    mock.script.push(failing(4));
    const result = await page.evaluate(async ({ provider }) => {
      const agent = await tabloop.createAgent({ session: 'eval-err-1', provider, tools: ['eval'] });
      const outcome = await agent.run('run some code');
      return { outcome, events: await agent.events() };
    }, { provider: provider(mock) });
    const finished = result.events.filter((e) => e.type === 'tool_call_finished');
    assert.deepEqual(finished.map((e) => e.is_error), [true, true, true, true]);
    assert.match(finished[0].content, /^bad 1/);
    const reflections = result.events.filter((e) => e.type === 'step_started' && e.reason?.kind === 'reflection');
    // The same error three times (digits aside) is what asks for it.
    assert.deepEqual(reflections.map((e) => e.reason.trigger), ['repeated_error']);
    assert.equal(result.outcome.stopReason, 'consecutive_errors');
  });
});

test('a tool gets the idempotency key of its call, the same on a re-run after a reload', async () => {
  await withPage(async (page, mock) => {
    const register = () => tabloop.registerTool({
      name: 'remote_write',
      description: 'writes to a remote service that deduplicates by key',
      parameters: { type: 'object' },
      permission: 'allow',
      idempotent: true,
      execute: async (_args, ctx) => {
        const seen = JSON.parse(localStorage.getItem('keys') ?? '[]');
        seen.push(ctx.idempotencyKey);
        localStorage.setItem('keys', JSON.stringify(seen));
        if (seen.length === 1) await new Promise(() => {});
        return `stored with key ${ctx.idempotencyKey}`;
      },
    });
    mock.script.push({ calls: [{ id: 'k1', name: 'remote_write', args: {} }] });
    await page.evaluate(async ({ provider, register }) => {
      await eval(register)();
      const agent = await tabloop.createAgent({ session: 'idem-1', provider, tools: ['remote_write'] });
      agent.run('write it');
    }, { provider: provider(mock), register: `(${register})` });
    await waitFor(async () => (await page.evaluate(() => localStorage.getItem('keys'))) !== null, 10_000, 'the first attempt');
    mock.script.push({ text: 'written' });
    await page.reload();
    await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
    const result = await page.evaluate(async ({ register }) => {
      await eval(register)();
      const agent = await tabloop.createAgent({ session: 'idem-1' });
      const outcome = await new Promise((resolve) => agent.onStatus((s) => s.type === 'finished' && resolve(s.outcome)));
      return { outcome, keys: JSON.parse(localStorage.getItem('keys')), events: await agent.events() };
    }, { register: `(${register})` });
    assert.equal(result.outcome.stopReason, 'completed');
    assert.deepEqual(result.keys, ['idem-1:1:k1', 'idem-1:1:k1'], 'both attempts carried the same key');
    const finished = result.events.find((e) => e.type === 'tool_call_finished');
    assert.equal(finished.content, 'stored with key idem-1:1:k1');
  });
});

test('a follower tab refuses inputs instead of queueing them for a takeover', async () => {
  const mock = await scriptedOpenAi();
  const context = await browser.newContext();
  try {
    mock.script.push('hold');
    const writer = await open(context);
    await writer.evaluate(async ({ provider }) => {
      window.agent = await tabloop.createAgent({ session: 'follow-1', provider, tools: [] });
      window.agent.run('long task');
    }, { provider: provider(mock) });
    await waitFor(() => mock.requests.length === 1, 10_000, 'the writer model call');
    const follower = await open(context);
    const refused = await follower.evaluate(async () => {
      window.agent = await tabloop.createAgent({ session: 'follow-1' });
      window.done = new Promise((resolve) => window.agent.onStatus((s) => s.type === 'finished' && resolve(s.outcome)));
      await new Promise((r) => setTimeout(r, 300));
      const errors = {};
      for (const [name, act] of [['cancel', () => window.agent.cancel()], ['run', () => window.agent.run('other task')], ['extendBudget', () => window.agent.extendBudget({ maxSteps: 9 })]]) {
        try {
          await act();
          errors[name] = null;
        } catch (error) {
          errors[name] = String(error.message ?? error);
        }
      }
      return { isWriter: window.agent.isWriter, errors };
    });
    assert.equal(refused.isWriter, false);
    for (const [name, message] of Object.entries(refused.errors)) {
      assert.match(message ?? 'accepted', /another tab writes this session/, `${name} is refused`);
    }
    // The writer closes; the follower takes over, re-sends the model call, and the run is not
    // cancelled by the click made while it was a follower.
    mock.script.push({ text: 'finished by the new writer' });
    await writer.close();
    await follower.waitForFunction(() => window.agent.isWriter === true, null, { timeout: 10_000 });
    const outcome = await follower.evaluate(() => window.done);
    assert.equal(outcome.stopReason, 'completed');
    assert.equal(outcome.finalText, 'finished by the new writer');
  } finally {
    await context.close();
    await mock.close();
  }
});

test('a stop hook blocks with a reason, then allows; a hook that throws is reported, never passed', async () => {
  await withPage(async (page, mock) => {
    mock.script.push({ text: 'done?' }, { text: 'done now' });
    const result = await page.evaluate(async ({ provider }) => {
      const agent = await tabloop.createAgent({ session: 'hook-1', provider, tools: [] });
      const proposals = [];
      agent.onStop(async (proposal) => {
        proposals.push(proposal);
        return proposals.length === 1 ? { block: true, reason: 'also mention the date' } : { ok: true };
      });
      const outcome = await agent.run('answer');
      return { outcome, proposals, events: await agent.events() };
    }, { provider: provider(mock) });
    assert.equal(result.outcome.stopReason, 'completed');
    assert.equal(result.outcome.finalText, 'done now');
    assert.deepEqual(result.proposals.map((p) => [p.stopReason, p.finalText]), [['completed', 'done?'], ['completed', 'done now']]);
    const reasons = result.events.filter((e) => e.type === 'step_started').map((e) => e.reason);
    assert.deepEqual(reasons.at(-1), { kind: 'stop_hook_blocked', consecutive: 1 });
    assert.ok(JSON.stringify(mock.requests[1].body.messages).includes('also mention the date'), 'the model saw the reason');
  });
  await withPage(async (page, mock) => {
    mock.script.push({ text: 'done' }, { text: 'done' });
    const outcomes = await page.evaluate(async ({ provider }) => {
      const thrower = await tabloop.createAgent({ session: 'hook-2', provider, tools: [] });
      thrower.onStop(() => {
        throw new Error('hook bug');
      });
      const silent = await tabloop.createAgent({ session: 'hook-3', provider, tools: [] });
      silent.onStop(() => new Promise(() => {}), { timeoutMs: 300 });
      return [await thrower.run('answer'), await silent.run('answer')];
    }, { provider: provider(mock) });
    assert.deepEqual(outcomes.map((o) => o.stopReason), ['needs_human', 'needs_human']);
    assert.match(outcomes[0].explanation, /hook bug/);
    assert.match(outcomes[1].explanation, /did not answer within 300 ms/);
    assert.equal(outcomes[0].finalText, null);
  });
});

test('verifyReplay proves a session recorded in this browser and the shipped fixtures, and finds an edit', async () => {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/replay');
  const fixtures = Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
  assert.deepEqual(Object.keys(fixtures).sort(), ['approval.jsonl', 'compaction.jsonl', 'fork.jsonl', 'runaway.jsonl']);
  await withPage(async (page, mock) => {
    mock.script.push(
      { calls: [{ id: 'w1', name: 'vfs', args: { op: 'write', path: '/v.txt', content: 'v' } }] },
      { text: 'written' },
    );
    const result = await page.evaluate(async ({ provider, fixtures }) => {
      const agent = await tabloop.createAgent({ session: 'verify-1', provider, tools: ['vfs'] });
      await agent.run('write v.txt');
      const jsonl = await agent.exportJsonl();
      const edited = jsonl.replace('"explanation":"The model gave a final answer."', '"explanation":"The verifier passed."');
      const shipped = Object.fromEntries(Object.entries(fixtures).map(([name, text]) => [name, tabloop.verifyReplay(text)]));
      return { recorded: tabloop.verifyReplay(jsonl), edited: tabloop.verifyReplay(edited), shipped, lines: jsonl.trim().split('\n').length };
    }, { provider: provider(mock), fixtures });
    assert.equal(mock.requests.length, 2, 'verification sent nothing to the provider');
    assert.equal(result.recorded.ok, true, JSON.stringify(result.recorded.divergence));
    assert.equal(result.recorded.records, result.lines);
    assert.equal(result.edited.ok, false);
    assert.equal(result.edited.divergence.seq, result.lines - 1);
    assert.match(result.edited.divergence.got, /The model gave a final answer/);
    for (const [name, report] of Object.entries(result.shipped)) assert.equal(report.ok, true, `${name}: ${JSON.stringify(report.divergence)}`);
  });
});
