// End-to-end tests of the MCP client through the public API (`tabloop.connectMcp`) on the
// embedding page, against a real server built with the official TypeScript SDK that this test
// starts on loopback: tools registered with their schemas, calls through a run (approval, error
// results, untrusted output), the session id and protocol headers, list_changed and definition
// drift, cancellation, timeouts, a vanished server, and cursor pagination.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useScriptedEmbed } from './support/scripted_embed.mjs';
import { startMcpServer } from './support/mcp_server.mjs';
import { waitFor } from './support/embed.mjs';

const suite = useScriptedEmbed();
const open = (context) => suite.open(context);

test('connectMcp registers the server tools; a run calls them with approval, errors and untrusted text', async () => {
  const mcp = await startMcpServer({ token: 'e2e-token' });
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async ({ url }) => {
      const connection = await tabloop.connectMcp({ name: 'srv', url, headers: { authorization: 'Bearer e2e-token' } });
      const model = scriptedProvider([
        { calls: [{ id: 'e1', name: 'mcp__srv__echo', args: { text: 'hi there' } }] },
        { calls: [{ id: 'f1', name: 'mcp__srv__fail', args: {} }, { id: 'h1', name: 'mcp__srv__html', args: {} }] },
        { text: 'done' },
      ], { stream: true });
      const agent = await tabloop.createAgent({
        session: 'mcp-run',
        provider: { kind: 'custom', model: 'm', complete: model.complete },
        tools: ['mcp__srv__echo', 'mcp__srv__fail', 'mcp__srv__html'],
      });
      const approvals = [];
      agent.onStatus((s) => {
        if (s.type === 'approval') {
          approvals.push(s.tool);
          agent.approve(s.callId);
        }
      });
      const outcome = await agent.run('use the server');
      const events = await agent.events();
      return {
        outcome,
        approvals,
        tools: connection.tools(),
        protocolVersion: connection.protocolVersion,
        serverInfo: connection.serverInfo,
        offered: model.requests[0].request.tools.map((t) => t.function),
        finished: events.filter((e) => e.type === 'tool_call_finished').map((e) => ({ content: e.content, is_error: e.is_error })),
        pwned: window.pwned ?? null,
      };
    }, { url: mcp.url });
    assert.equal(result.outcome.stopReason, 'completed');
    assert.deepEqual(result.tools.map((t) => t.name).sort(), ['mcp__srv__echo', 'mcp__srv__fail', 'mcp__srv__html', 'mcp__srv__slow']);
    assert.equal(result.protocolVersion, '2025-11-25');
    assert.equal(result.serverInfo.name, 'test-server');
    const echo = result.offered.find((t) => t.name === 'mcp__srv__echo');
    assert.deepEqual(echo.parameters.properties, { text: { type: 'string', description: 'what to echo' } });
    assert.deepEqual(echo.parameters.required, ['text']);
    assert.match(echo.description, /Echoes the text back/);
    assert.deepEqual(result.approvals.sort(), ['mcp__srv__echo', 'mcp__srv__fail', 'mcp__srv__html'], 'MCP tools ask by default');
    assert.deepEqual(result.finished[0], { content: 'echo: hi there', is_error: false });
    assert.equal(result.finished[1].is_error, true);
    assert.match(result.finished[1].content, /the thing broke/);
    assert.equal(result.finished[2].is_error, false);
    assert.match(result.finished[2].content, /^<img src=x onerror="window.pwned=1">\n\[image image\/png, 3 bytes, not shown\]$/);
    assert.equal(result.pwned, null, 'server output is stored as text, never run');
    assert.deepEqual(mcp.state.calls.map((c) => c.tool), ['echo', 'fail']);
    // After initialize every request carried the session id and the protocol version.
    const afterInit = mcp.state.requests.slice(1);
    assert.ok(afterInit.length >= 3);
    const sessionIds = new Set(afterInit.map((r) => r.headers['mcp-session-id']));
    assert.equal(sessionIds.size, 1);
    assert.ok([...sessionIds][0]?.length > 10);
    assert.ok(afterInit.every((r) => r.headers['mcp-protocol-version'] === '2025-11-25'));
    assert.ok(mcp.state.requests.every((r) => r.headers.authorization === 'Bearer e2e-token'));
  } finally {
    await context.close();
    await mcp.close();
  }
});

test('a changed tool definition (list_changed) needs approval again; accept() or an approved call pins it', async () => {
  const mcp = await startMcpServer();
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    await page.evaluate(async ({ url }) => {
      window.conn = await tabloop.connectMcp({ name: 'drift', url, permission: 'allow' });
      window.changes = [];
      window.conn.onToolsChanged((c) => window.changes.push(c));
    }, { url: mcp.url });
    mcp.changeEchoDescription('Echoes the text back, and also sends it elsewhere.');
    mcp.addTool('extra');
    // Two notifications; one re-list may already see both changes.
    await page.waitForFunction(() => {
      const all = window.changes.flatMap((c) => [...c.changed, ...c.added]);
      return all.includes('mcp__drift__echo') && all.includes('mcp__drift__extra');
    }, null, { timeout: 10_000 });
    const result = await page.evaluate(async () => {
      const run = async (session, calls) => {
        const model = scriptedProvider([{ calls }, { text: 'ok' }], { stream: false });
        const agent = await tabloop.createAgent({ session, provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: ['mcp__drift__echo', 'mcp__drift__extra'], permissions: {} });
        await agent.run('go');
        return (await agent.events()).filter((e) => e.type === 'tool_call_finished').map((e) => ({ content: e.content, is_error: e.is_error }));
      };
      const before = window.conn.tools().find((t) => t.name === 'mcp__drift__echo');
      const refused = await run('drift-1', [{ id: 'a', name: 'mcp__drift__echo', args: { text: 'one' } }, { id: 'b', name: 'mcp__drift__extra', args: {} }]);
      window.conn.accept('echo');
      const accepted = await run('drift-2', [{ id: 'c', name: 'mcp__drift__echo', args: { text: 'two' } }]);
      return { before, refused, accepted, changes: window.changes, after: window.conn.tools().find((t) => t.name === 'mcp__drift__echo') };
    });
    const union = (key) => result.changes.flatMap((c) => c[key]).sort();
    assert.deepEqual(union('changed'), ['mcp__drift__echo']);
    assert.deepEqual(union('added'), ['mcp__drift__extra']);
    assert.deepEqual(union('removed'), []);
    assert.equal(result.before.changedSinceAccepted, true);
    assert.equal(result.refused[0].is_error, true);
    assert.match(result.refused[0].content, /definition of MCP tool "echo" changed.*approved again/);
    assert.deepEqual(result.refused[1], { content: 'extra', is_error: false }, 'a new tool runs under the connection permission');
    assert.deepEqual(result.accepted[0], { content: 'echo: two', is_error: false });
    assert.equal(result.after.changedSinceAccepted, false);
    assert.deepEqual(mcp.state.calls.map((c) => c.text), ['two'], 'the refused call never reached the server');
  } finally {
    await context.close();
    await mcp.close();
  }
});

test('cancel reaches the server, a silent server times out, and a vanished server is an error result', async () => {
  const mcp = await startMcpServer();
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    const cancelled = await page.evaluate(async ({ url }) => {
      await tabloop.connectMcp({ name: 'c', url, permission: 'allow' });
      const model = scriptedProvider([{ calls: [{ id: 's', name: 'mcp__c__slow', args: { ms: 60000 } }] }], { stream: true });
      const agent = await tabloop.createAgent({ session: 'mcp-cancel', provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: ['mcp__c__slow'] });
      agent.onStatus((s) => s.type === 'tool_call' && setTimeout(() => agent.cancel(), 500));
      const started = Date.now();
      const outcome = await agent.run('wait');
      return { stop: outcome.stopReason, ms: Date.now() - started };
    }, { url: mcp.url });
    assert.equal(cancelled.stop, 'cancelled');
    const waitUntil = Date.now() + 5000;
    while (!mcp.state.cancelled.includes('slow') && Date.now() < waitUntil) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(mcp.state.cancelled, ['slow'], 'the server saw notifications/cancelled');

    const timedOut = await page.evaluate(async ({ url }) => {
      await tabloop.connectMcp({ name: 't', url, permission: 'allow', timeoutMs: 1000 });
      const model = scriptedProvider([{ calls: [{ id: 's2', name: 'mcp__t__slow', args: { ms: 20000 } }] }, { text: 'gave up' }], { stream: true });
      const agent = await tabloop.createAgent({ session: 'mcp-timeout', provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: ['mcp__t__slow'] });
      const outcome = await agent.run('wait');
      const finished = (await agent.events()).filter((e) => e.type === 'tool_call_finished');
      return { stop: outcome.stopReason, finished: finished.map((e) => ({ content: e.content, is_error: e.is_error })) };
    }, { url: mcp.url });
    assert.equal(timedOut.stop, 'completed');
    assert.equal(timedOut.finished[0].is_error, true);
    assert.match(timedOut.finished[0].content, /timed out|did not answer in time/);

    await mcp.close();
    const down = await page.evaluate(async () => {
      const model = scriptedProvider([{ calls: [{ id: 'e', name: 'mcp__c__echo', args: { text: 'anyone?' } }] }, { text: 'server is gone' }], { stream: true });
      const agent = await tabloop.createAgent({ session: 'mcp-down', provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: ['mcp__c__echo'] });
      const outcome = await agent.run('echo');
      const finished = (await agent.events()).filter((e) => e.type === 'tool_call_finished');
      return { stop: outcome.stopReason, finished: finished.map((e) => ({ content: e.content, is_error: e.is_error })) };
    });
    assert.equal(down.stop, 'completed');
    assert.equal(down.finished[0].is_error, true);
    assert.match(down.finished[0].content, /unreachable/);
  } finally {
    await context.close();
    await mcp.close().catch(() => {});
  }
});

test('tools/list is followed across cursor pages; bad options are refused clearly', async () => {
  const mcp = await startMcpServer({ paged: true });
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async ({ url }) => {
      const connection = await tabloop.connectMcp({ name: 'pages', url });
      const errors = [];
      for (const options of [{ name: 'bad name!', url }, { name: 'x', url: 'not a url' }, { name: 'y', url: 'http://127.0.0.1:9/mcp' }]) {
        try {
          await tabloop.connectMcp(options);
          errors.push(null);
        } catch (error) {
          errors.push(String(error?.message ?? error));
        }
      }
      return { tools: connection.tools().map((t) => t.name), errors };
    }, { url: mcp.url });
    assert.deepEqual(result.tools, ['mcp__pages__one', 'mcp__pages__two', 'mcp__pages__three']);
    assert.match(result.errors[0], /name must match/);
    assert.match(result.errors[1], /not an absolute URL/);
    assert.match(result.errors[2], /unreachable/);
  } finally {
    await context.close();
    await mcp.close();
  }
});

test('a server that forgot the session (404) gets a new one; the call is sent once more and succeeds', async () => {
  const mcp = await startMcpServer();
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    await page.evaluate(async ({ url }) => {
      window.conn = await tabloop.connectMcp({ name: 're', url, permission: 'allow' });
    }, { url: mcp.url });
    const firstSession = mcp.state.requests.at(-1).headers['mcp-session-id'];
    mcp.forgetSessions();
    const finished = await page.evaluate(async () => {
      const model = scriptedProvider([{ calls: [{ id: 'e', name: 'mcp__re__echo', args: { text: 'again' } }] }, { text: 'ok' }], { stream: true });
      const agent = await tabloop.createAgent({ session: 'mcp-reinit', provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: ['mcp__re__echo'] });
      await agent.run('echo');
      return (await agent.events()).filter((e) => e.type === 'tool_call_finished').map((e) => ({ content: e.content, is_error: e.is_error }));
    });
    assert.deepEqual(finished, [{ content: 'echo: again', is_error: false }]);
    const lastSession = mcp.state.requests.at(-1).headers['mcp-session-id'];
    assert.ok(lastSession && lastSession !== firstSession, 'a new session id is used');
  } finally {
    await context.close();
    await mcp.close();
  }
});

test('an MCP call made offline pauses the run instead of failing; the network\'s return sends it again and the run finishes', async () => {
  const mcp = await startMcpServer();
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    await page.evaluate(async ({ url }) => {
      await tabloop.connectMcp({ name: 'o', url, permission: 'allow' });
      const model = scriptedProvider([{ calls: [{ id: 'e', name: 'mcp__o__echo', args: { text: 'after the tunnel' } }] }, { text: 'echoed' }], { stream: true });
      window.statuses = [];
      window.agent = await tabloop.createAgent({ session: 'mcp-offline', provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: ['mcp__o__echo'] });
      window.agent.onStatus((s) => window.statuses.push(s));
    }, { url: mcp.url });
    await context.setOffline(true);
    const paused = await page.evaluate(() => window.agent.run('echo it', { pauseTimeoutMs: 0 }));
    assert.equal(paused.stopReason, 'paused');
    assert.deepEqual(paused.detail, { reason: 'tool_unreachable' });
    assert.match(paused.explanation, /mcp__o__echo cannot reach its server \(.*offline.*\)\. The run is paused/);
    assert.deepEqual(mcp.state.calls, [], 'nothing reached the server');

    await context.setOffline(false);
    await waitFor(() => page.evaluate(() => window.statuses.some((s) => s.type === 'finished')), 30_000, 'the run to finish');
    const { outcome, events, kinds } = await page.evaluate(async () => ({
      outcome: window.statuses.find((s) => s.type === 'finished').outcome,
      events: await window.agent.events(),
      kinds: window.statuses.map((s) => s.type).filter((t) => /unreachable|recovered/.test(t)),
    }));
    assert.equal(outcome.stopReason, 'completed');
    assert.equal(outcome.finalText, 'echoed');
    assert.deepEqual(mcp.state.calls, [{ tool: 'echo', text: 'after the tunnel' }], 'sent once, after the network returned');
    assert.deepEqual(kinds, ['tool_unreachable', 'tool_recovered']);
    const trail = events.filter((e) => e.call === 'e' || /run_(un)?paused/.test(e.type)).map((e) => e.type + (e.cause ? `:${e.cause}` : '') + (e.attempt ? `:${e.attempt}` : ''));
    assert.deepEqual(trail, ['tool_call_started:1', 'tool_call_interrupted:offline', 'run_paused', 'run_unpaused', 'tool_call_started:2', 'tool_call_finished']);
    const finished = events.find((e) => e.type === 'tool_call_finished');
    assert.deepEqual([finished.is_error, finished.content], [false, 'echo: after the tunnel'], 'the model only ever saw the real result');
  } finally {
    await context.close();
    await mcp.close();
  }
});
