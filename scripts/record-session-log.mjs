// Records a session log with a built tabloop package, through its public API in headless
// Chromium, against a scripted OpenAI-compatible server on loopback, and writes the log as
// exported (JSON lines). The session goes through what a person's session goes through: tool
// calls, a rate limit and its retry, an approval granted and one denied, calls refused (an
// unknown tool, arguments that are not JSON), a failing tool, a stop hook that blocks once, a
// budget run out and extended, a loop the guard diagnoses, a stream cancelled midway, a
// provider that stays down (the run pauses) and comes back, a compaction, and a reopen.
//   node scripts/record-session-log.mjs PKG OUT.jsonl
// PKG is a directory as scripts/build-package.sh writes it. The log of
// tests/fixtures/log_format/migration.jsonl was recorded this way with an older build, so that
// tests/e2e/log_migration.test.mjs can check a newer one still opens, resumes and verifies it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serveStatic } from '../tests/e2e/support/server.mjs';
import { launchBrowser } from '../tests/e2e/support/browser.mjs';
import { scriptedOpenAi } from '../tests/e2e/support/scripted_openai.mjs';

const [pkg, out] = process.argv.slice(2);
if (!pkg || !out) {
  console.error('usage: node scripts/record-session-log.mjs PKG OUT.jsonl');
  process.exit(2);
}

const PAGE = `<!doctype html>
<meta charset="utf-8" />
<script type="module">
  window.TABLOOP_BASE = new URL('/tabloop/', location.href).href;
  const tabloop = await import('/tabloop/index.js');
  await tabloop.default();
  window.tabloop = tabloop;
  window.ready = true;
</script>
`;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tabloop-record-'));
fs.symlinkSync(path.resolve(pkg), path.join(root, 'tabloop'));
fs.writeFileSync(path.join(root, 'index.html'), PAGE);
const site = await serveStatic(root);
// Compaction calls get a summary whenever the runtime makes them; every other call takes the
// next scripted reply.
const compacting = (body) => String(body.messages?.[0]?.content ?? '').startsWith('You compress');
const mock = await scriptedOpenAi({
  respond: (body) => (compacting(body) ? { text: `Summary ${mock.requests.length}: notes were written.` } : mock.script.shift()),
});
const browser = await launchBrowser();
const BIG = 'line of a long file\n'.repeat(600);
try {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('pageerror:', e.message));
  await page.goto(`${site.url}/index.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 60_000 });
  const provider = { kind: 'openai', baseUrl: mock.url, apiKey: 'sk-recording', model: 'gpt-4o-mini' };
  await page.evaluate(async ({ provider, big }) => {
    const { tabloop } = window;
    const tool = (name, execute, extra = {}) =>
      tabloop.registerTool({
        name,
        description: `${name} tool`,
        parameters: { type: 'object', properties: { text: { type: 'string' }, what: { type: 'string' } } },
        permission: 'allow',
        execute,
        ...extra,
      });
    await tool('note', ({ text }) => `noted: ${text}`, { idempotent: true });
    await tool('risky', ({ what }) => `did ${what}`, { permission: 'ask' });
    await tool('fail', () => { throw new Error('the disk is full'); });
    await tool('same', () => 'nothing changed');
    await tool('big', () => big);
    await tool('slow', ({ signal } = {}) => new Promise((ok) => setTimeout(() => ok('slow and steady'), 60_000)));
    const agent = await tabloop.createAgent({
      session: 'recorded-session',
      provider,
      tools: ['note', 'risky', 'fail', 'same', 'big', 'slow', 'todo', 'finish'],
      system: 'You are a careful assistant.',
      budget: { maxSteps: 12, maxCostUsd: 5 },
      price: { input_per_mtok: 0.15, output_per_mtok: 0.6, cached_input_per_mtok: 0.075 },
      contextWindow: 6000,
      guard: { repeatDiagnose: 3, repeatStop: 6 },
    });
    window.statuses = [];
    agent.onStatus((s) => {
      window.statuses.push(s);
      if (s.type === 'approval') {
        if (s.callId === 'r1') agent.approve(s.callId);
        else agent.deny(s.callId, 'not that one');
      }
    });
    window.agent = agent;
  }, { provider, big: BIG });
  const waitStatus = (type, after) =>
    page.waitForFunction(([type, after]) => window.statuses.slice(after).some((s) => s.type === type), [type, after], { timeout: 60_000 });
  const statusCount = () => page.evaluate(() => window.statuses.length);
  const outcomes = [];
const progress = (what) => console.error(`[record] ${what}; ${mock.requests.length} model requests`);

  // Run 1: a note, a rate limit, two notes at once, an ask tool approved, then denied, a call of
  // no tool, a note, arguments that are not JSON, a failing tool, an answer the stop hook
  // blocks, and the answer again.
  mock.script.push(
    { calls: [{ id: 'n1', name: 'note', args: { text: 'first, "quoted" – ünïcode 😀' } }] },
    { status: 429, headers: { 'retry-after-ms': '50' } },
    { calls: [{ id: 'n2', name: 'note', args: { text: 'second' } }, { id: 'n3', name: 'note', args: { text: 'third' } }] },
    { calls: [{ id: 'r1', name: 'risky', args: { what: 'a' } }] },
    { calls: [{ id: 'r2', name: 'risky', args: { what: 'b' } }] },
    { calls: [{ id: 'u1', name: 'no_such_tool', args: {} }] },
    { calls: [{ id: 'n4', name: 'note', args: { text: 'fourth' } }] },
    { calls: [{ id: 'j1', name: 'note', rawArgs: '{"text": "unclosed' }] },
    { calls: [{ id: 'f1', name: 'fail', args: {} }] },
    { text: 'All notes are written.' },
    { text: 'All notes are written, and checked.' },
  );
  outcomes.push(await page.evaluate(async () => {
    let blocks = 0;
    window.agent.onStop(() => (blocks++ === 0 ? { block: true, reason: 'check the notes first' } : { ok: true }));
    const outcome = await window.agent.run('Write three notes.');
    window.agent.onStop(null);
    return outcome;
  }));

  progress(`run 1: ${outcomes[0].stopReason}`);
  // Run 2: the same call again and again (the guard diagnoses), a stream cut midway (resent),
  // notes until the step budget runs out; the budget is extended and the run ends.
  mock.script.push(
    ...['g1', 'g2', 'g3', 'g4'].map((id) => ({ calls: [{ id, name: 'same', args: {} }] })),
    { cut: 'I will now' },
    ...[1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ calls: [{ id: `b${i}`, name: 'note', args: { text: `b${i}` } }] })),
    { text: 'Done after more steps.' },
  );
  outcomes.push(await page.evaluate(() => window.agent.run('Keep going.')));
  if (outcomes[1].stopReason === 'budget_exhausted') {
    const at = await statusCount();
    await page.evaluate(() => window.agent.extendBudget({ maxSteps: 40 }));
    await waitStatus('finished', at);
    outcomes.push(await page.evaluate(() => window.statuses.findLast((s) => s.type === 'finished').outcome));
  }

  progress(`run 2: ${outcomes.slice(1).map((o) => o.stopReason)}`);
  // Run 3: a stream cancelled midway.
  mock.script.push({ text: 'Half of an answer that', stall: true });
  const streaming = new Promise((ok) => mock.emitter.once('chunk', ok));
  await page.evaluate(() => { window.third = window.agent.run('Tell me a long story.'); });
  await streaming;
  await new Promise((ok) => setTimeout(ok, 300));
  outcomes.push(await page.evaluate(async () => { window.agent.cancel(); return window.third; }));

  progress(`run 3: ${outcomes.at(-1).stopReason}`);
  // Run 4: a big result, so the context is compacted; the provider then stays down (the run
  // pauses), comes back, and the run ends.
  mock.script.push(
    { calls: [{ id: 'c1', name: 'big', args: {} }] },
    { status: 500 }, { status: 500 }, { status: 500 },
    { status: 500 }, { status: 500 }, { status: 500 },
  );
  let at = await statusCount();
  await page.evaluate(() => { window.fourth = window.agent.run('Read the big file.'); });
  await waitStatus('provider_unreachable', at).catch(async (error) => {
    console.error(await page.evaluate((at) => JSON.stringify(window.statuses.slice(at).map((s) => s.type)), at));
    console.error(mock.requests.slice(26).map((r) => r.body.messages.map((m) => `${m.role}:${String(m.content).slice(0, 30)}`).join(' | ')).join('\n'));
    throw error;
  });
  mock.script.length = 0;
  mock.script.push({ text: 'The big file is long.' });
  outcomes.push(await page.evaluate(async () => { window.agent.retryProvider(); return window.fourth; }));

  progress(`run 4: ${outcomes.at(-1).stopReason}`);
  // Run 5: a task list with an open item blocks an answer; once done, a finish nobody verifies.
  mock.script.push(
    { calls: [{ id: 't1', name: 'todo', args: { items: [{ id: '1', text: 'count to three', status: 'open' }] } }] },
    { text: 'One, two, three.' },
    { calls: [{ id: 't2', name: 'todo', args: { items: [{ id: '1', text: 'count to three', status: 'done' }] } }] },
    { calls: [{ id: 'd1', name: 'finish', args: { summary: 'Counted to three.' } }] },
  );
  outcomes.push(await page.evaluate(() => window.agent.run('Count to three.')));
  progress(`run 5: ${outcomes.at(-1).stopReason}`);

  // Run 6: a slow tool; the tab is frozen and comes back while it runs; the run is cancelled.
  mock.script.push({ calls: [{ id: 's1', name: 'slow', args: {} }] });
  at = await statusCount();
  await page.evaluate(() => { window.sixth = window.agent.run('Do the slow thing.'); });
  await waitStatus('tool_call', at);
  await new Promise((ok) => setTimeout(ok, 300));
  await page.evaluate(() => document.dispatchEvent(new Event('freeze')));
  await new Promise((ok) => setTimeout(ok, 300));
  await page.evaluate(() => document.dispatchEvent(new Event('resume')));
  await new Promise((ok) => setTimeout(ok, 300));
  outcomes.push(await page.evaluate(async () => { window.agent.cancel(); return window.sixth; }));
  progress(`run 6: ${outcomes.at(-1).stopReason}`);

  // Reopened: the log records the session resumed.
  await page.evaluate(async (provider) => {
    window.agent.close();
    window.agent = await window.tabloop.createAgent({ session: 'recorded-session', provider });
  }, provider);
  const jsonl = await page.evaluate(async () => {
    const text = await window.agent.exportJsonl();
    window.agent.close();
    return text;
  });
  fs.writeFileSync(out, jsonl);
  const types = new Set(jsonl.trim().split('\n').map((line) => JSON.parse(line).event.type));
  console.log(`${out}: ${jsonl.trim().split('\n').length} records; outcomes ${outcomes.map((o) => o.stopReason).join(', ')}`);
  console.log(`event types: ${[...types].sort().join(' ')}`);
} finally {
  await browser.close();
  await mock.close();
  await site.close();
}
