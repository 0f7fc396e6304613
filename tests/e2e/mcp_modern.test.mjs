// End-to-end tests of the MCP client in the stateless era (protocol 2026-07-28) against a
// modern-only server built with the official SDK v2 (tests/e2e/support/modern_mcp_server.mjs):
// `server/discover` instead of initialize, per-request `_meta` and headers, what the server asks
// of the client answered and the request sent again (an elicitation, the session's model,
// roots), list changes and resource updates on `subscriptions/listen`, progress and log
// messages per request; and an elicitation still pending when the page reloads, answered after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from './support/embed.mjs';
import { useScriptedEmbed } from './support/scripted_embed.mjs';
import { installScriptedModel } from './support/page_model.mjs';
import { startModernMcpServer } from './support/modern_mcp_server.mjs';

const suite = useScriptedEmbed();
const open = (context) => suite.open(context);

test('a modern server: discover, per-request metadata, input requests answered, listen, progress and logs', async () => {
  const server = await startModernMcpServer();
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    const result = await page.evaluate(async ({ url }) => {
      const conn = await tabloop.connectMcp({ name: 'mod', url, permission: 'allow', elicitation: 'ask', sampling: 'allow', roots: [{ uri: 'file:///srv/app', name: 'app' }] });
      window.conn = conn;
      conn.on('request', ({ request }) => {
        if (request.kind === 'form') conn.respond(request.id, { action: 'accept', content: { confirm: true } });
      });
      const progress = [];
      conn.on('progress', (p) => progress.push([p.progress, p.total]));
      await conn.setLogLevel('info');
      const counted = await conn.callTool('count', { to: 3 });
      const where = await conn.callTool('where', {});
      const model = scriptedProvider([
        { calls: [{ id: 'd1', name: 'mcp__mod__deploy', args: { env: 'prod' } }] },
        { calls: [{ id: 'c1', name: 'mcp__mod__colour', args: {} }] },
        { text: 'teal' },
        { text: 'done' },
      ], { stream: true });
      const agent = await tabloop.createAgent({ session: 'modern-run', provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: ['mcp__mod__deploy', 'mcp__mod__colour'] });
      await agent.run('deploy and pick a colour');
      const finished = (await agent.events()).filter((e) => e.type === 'tool_call_finished').map((e) => e.content);
      return { era: conn.era, protocolVersion: conn.protocolVersion, serverInfo: conn.serverInfo, tools: conn.tools().map((t) => t.mcpName).sort(), counted, progress, logs: conn.logs().map((l) => l.data), where, finished };
    }, { url: server.url });
    assert.equal(result.era, 'modern');
    assert.equal(result.protocolVersion, '2026-07-28');
    assert.equal(result.serverInfo.name, 'modern');
    assert.deepEqual(result.tools, ['colour', 'count', 'deploy', 'where']);
    assert.match(JSON.stringify(result.counted.content), /counted to 3/);
    assert.deepEqual(result.progress, [[1, 3], [2, 3], [3, 3]]);
    assert.deepEqual(result.logs, ['counted 1', 'counted 2', 'counted 3']);
    assert.match(JSON.stringify(result.where.content), /file:\/\/\/srv\/app/);
    assert.deepEqual(result.finished, ['deployed to prod (none)', 'the model picked teal'], 'the form default and the session model answered');
    assert.deepEqual(server.state.deployed, [{ env: 'prod', state: 'deploy:prod', note: 'none' }], 'the request state came back as it was');
    const methods = server.state.requests.map((r) => r.method);
    assert.ok(!methods.includes('initialize'), 'no initialize in the modern era');
    assert.equal(methods[0], 'server/discover');
    for (const request of server.state.requests.filter((r) => r.method && r.method !== 'notifications/cancelled')) {
      assert.equal(request.headers['mcp-protocol-version'], '2026-07-28');
      assert.equal(request.headers['mcp-method'], request.method);
      assert.equal(request.params._meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
      assert.equal(request.params._meta['io.modelcontextprotocol/clientInfo'].name, 'tabloop');
      assert.ok(request.headers['mcp-session-id'] === undefined);
    }
    const deployCalls = server.state.requests.filter((r) => r.method === 'tools/call' && r.params.name === 'deploy');
    assert.equal(deployCalls.length, 2, 'asked, then sent again with the answer');
    assert.equal(deployCalls[0].headers['mcp-name'], 'deploy');
    assert.deepEqual(deployCalls[1].params.inputResponses, { confirm: { action: 'accept', content: { confirm: true, note: 'none' } } });
    assert.equal(deployCalls[1].params.requestState, 'deploy:prod');

    // Changes arrive on the subscriptions/listen stream.
    await page.evaluate(async () => {
      window.updates = [];
      await window.conn.resources.subscribe('memo://note', (uri) => window.updates.push(uri));
    });
    await waitFor(() => server.state.requests.filter((r) => r.method === 'subscriptions/listen').some((r) => r.params.notifications.resourceSubscriptions?.includes('memo://note')), 10_000, 'a listen stream for the note');
    await new Promise((r) => setTimeout(r, 300));
    server.changeNote('second note');
    server.addTool();
    await waitFor(async () => page.evaluate(() => window.updates.length > 0 && window.conn.tools().some((t) => t.mcpName === 'extra')), 10_000, 'the update and the new tool');
    const read = await page.evaluate(async () => (await window.conn.resources.read('memo://note')).contents[0].text);
    assert.equal(read, 'second note');
  } finally {
    await context.close();
    await server.close();
  }
});

test('an elicitation pending when the page reloads is asked again after it, and the call completes', async () => {
  const server = await startModernMcpServer();
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    await page.evaluate(async ({ url }) => {
      window.conn = await tabloop.connectMcp({ name: 'mod', url, permission: 'allow', elicitation: 'ask' });
      window.asked = [];
      window.conn.on('request', ({ request }) => window.asked.push(request));
      const model = scriptedProvider([{ calls: [{ id: 'd1', name: 'mcp__mod__deploy', args: { env: 'staging' } }] }], { stream: true });
      const agent = await tabloop.createAgent({ session: 'pending-run', provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: ['mcp__mod__deploy'] });
      agent.run('deploy');
    }, { url: server.url });
    await waitFor(() => page.evaluate(() => window.asked.length === 1), 20_000, 'the form');
    const firstMessage = await page.evaluate(() => window.asked[0].message);
    assert.equal(firstMessage, 'Deploy to staging?');
    await page.reload();
    await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 30_000 });
    await installScriptedModel(page);
    const resumed = await page.evaluate(async ({ url }) => {
      const conn = await tabloop.connectMcp({ name: 'mod', url, permission: 'allow', elicitation: 'ask' });
      const asked = [];
      conn.on('request', ({ request }) => {
        asked.push({ kind: request.kind, message: request.message, tool: request.tool });
        conn.respond(request.id, { action: 'accept', content: { confirm: true, note: 'after reload' } });
      });
      const model = scriptedProvider([{ text: 'deployed' }], { stream: true });
      const agent = await tabloop.createAgent({ session: 'pending-run', provider: { kind: 'custom', model: 'm', complete: model.complete } });
      const approval = await new Promise((resolve) => agent.onStatus((s) => s.type === 'approval' && resolve(s)));
      const finished = new Promise((resolve) => agent.onStatus((s) => s.type === 'finished' && resolve(s.outcome)));
      agent.approve(approval.callId);
      const outcome = await finished;
      const done = (await agent.events()).filter((e) => e.type === 'tool_call_finished').map((e) => e.content);
      return { afterInterrupt: approval.afterInterrupt, asked, stop: outcome.stopReason, done };
    }, { url: server.url });
    assert.equal(resumed.afterInterrupt, true, 'the interrupted call is offered again');
    assert.deepEqual(resumed.asked, [{ kind: 'form', message: 'Deploy to staging?', tool: 'deploy' }], 'the same form, from the kept request');
    assert.deepEqual(resumed.done, ['deployed to staging (after reload)']);
    assert.equal(resumed.stop, 'completed');
    const deployCalls = server.state.requests.filter((r) => r.method === 'tools/call' && r.params.name === 'deploy');
    assert.equal(deployCalls.length, 2, 'no second first round: the retry carries the answer');
    assert.equal(deployCalls[1].params.requestState, 'deploy:staging');
  } finally {
    await context.close();
    await server.close();
  }
});
