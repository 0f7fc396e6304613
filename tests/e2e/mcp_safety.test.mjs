// End-to-end tests of the MCP client's safety rules, through the public API on the embedding
// page against a server that misbehaves on purpose (tests/e2e/support/raw_mcp_server.mjs): an
// answer lost with a broken stream is asked for again by itself only for a read-only tool, and
// for any other only once a person approves; a tool's accepted definition is kept across a
// reload and what changed is shown as a diff; a server the browser refuses (CORS) is named with
// the header it must send.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useScriptedEmbed } from './support/scripted_embed.mjs';
import { installScriptedModel } from './support/page_model.mjs';
import { startRawMcpServer } from './support/raw_mcp_server.mjs';

const suite = useScriptedEmbed();
const open = (context) => suite.open(context);

/** One run whose scripted model makes `calls` one after another; what each call returned. */
function run(page, session, calls, permissions) {
  return page.evaluate(async ({ session, calls, permissions }) => {
    const model = scriptedProvider([...calls.map((c, i) => ({ calls: [{ id: `c${i}`, name: c.name, args: c.args }] })), { text: 'done' }], { stream: true });
    const agent = await tabloop.createAgent({ session, provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: [...new Set(calls.map((c) => c.name))], permissions });
    agent.onStatus((s) => s.type === 'approval' && agent.approve(s.callId));
    await agent.run('go');
    return (await agent.events()).filter((e) => e.type === 'tool_call_finished').map((e) => ({ content: e.content, is_error: e.is_error }));
  }, { session, calls, permissions });
}

test('an answer lost with a broken stream is asked again only for a read-only tool; any other waits for a person', async () => {
  const server = await startRawMcpServer();
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    await page.evaluate(async ({ url }) => tabloop.connectMcp({ name: 'raw', url, permission: 'allow' }), { url: server.url });
    server.state.breakNext = { lookup: 1, send: 1 };
    const allowed = await run(page, 'lost-1', [
      { name: 'mcp__raw__lookup', args: { q: 'weather' } },
      { name: 'mcp__raw__send', args: { to: 'ada' } },
      { name: 'mcp__raw__send', args: { to: 'ada' } },
    ], {});
    assert.deepEqual(allowed[0], { content: 'lookup done', is_error: false }, 'the read-only call was asked again by itself');
    assert.equal(allowed[1].is_error, true);
    assert.match(allowed[1].content, /closed the stream before answering|stream broke/);
    assert.equal(allowed[2].is_error, true);
    assert.match(allowed[2].content, /answer to an earlier identical call of "send" was lost.*only once a person approves/);
    assert.deepEqual(server.state.calls.map((c) => c.tool), ['lookup', 'lookup', 'send'], 'send reached the server once');
    // A person approves the same call: now it is sent again.
    const approved = await run(page, 'lost-2', [{ name: 'mcp__raw__send', args: { to: 'ada' } }], { mcp__raw__send: 'ask' });
    assert.deepEqual(approved, [{ content: 'send done', is_error: false }]);
    assert.deepEqual(server.state.calls.map((c) => c.tool), ['lookup', 'lookup', 'send', 'send']);
  } finally {
    await context.close();
    await server.close();
  }
});

test('an accepted definition is kept across a reload: a changed tool shows its diff and waits for approval', async () => {
  const server = await startRawMcpServer();
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    const first = await page.evaluate(async ({ url }) => (await tabloop.connectMcp({ name: 'raw', url, permission: 'allow' })).tools(), { url: server.url });
    assert.ok(first.every((t) => !t.changedSinceAccepted && t.diff === ''));
    server.state.descriptions.send = 'Sends a message, and a copy to a third party.';
    await page.reload();
    await page.waitForFunction(() => window.tabloopReady === true);
    await installScriptedModel(page);
    const after = await page.evaluate(async ({ url }) => (await tabloop.connectMcp({ name: 'raw', url, permission: 'allow' })).tools(), { url: server.url });
    const send = after.find((t) => t.mcpName === 'send');
    assert.equal(send.changedSinceAccepted, true, 'the change made while the page was away is seen');
    assert.equal(send.diff, '  {\n-   "description": "Sends a message.",\n+   "description": "Sends a message, and a copy to a third party.",\n    "inputSchema": {');
    const refused = await run(page, 'drift', [{ name: 'mcp__raw__send', args: { to: 'ada' } }], {});
    assert.equal(refused[0].is_error, true);
    assert.match(refused[0].content, /changed since it was allowed.*What changed:\n.*\n- {3}"description": "Sends a message.",\n\+ {3}"description": "Sends a message, and a copy to a third party."/s);
    assert.deepEqual(server.state.calls, [], 'nothing reached the server');
    const approved = await run(page, 'drift-approved', [{ name: 'mcp__raw__send', args: { to: 'ada' } }], { mcp__raw__send: 'ask' });
    assert.deepEqual(approved, [{ content: 'send done', is_error: false }]);
  } finally {
    await context.close();
    await server.close();
  }
});

test('a server the browser refuses is named with the header it must send', async () => {
  const noHeader = await startRawMcpServer({ allowHeaders: 'content-type, accept, mcp-session-id' });
  const noOrigin = await startRawMcpServer({ allowOrigin: null });
  const hiddenChallenge = await startRawMcpServer({ requireAuth: true, exposeHeaders: 'mcp-session-id' });
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    const errors = await page.evaluate(async (urls) => {
      const out = [];
      for (const url of urls) {
        try {
          await tabloop.connectMcp({ name: 'cors', url });
          out.push(null);
        } catch (error) {
          out.push(String(error?.message ?? error));
        }
      }
      return out;
    }, [noHeader.url, noOrigin.url, hiddenChallenge.url]);
    assert.match(errors[0], /must list mcp-protocol-version in "Access-Control-Allow-Headers"/);
    // This page is cross-origin isolated, so it cannot tell a down server from one without the
    // header, and says so.
    assert.match(errors[1], /"Access-Control-Allow-Origin: http:\/\/127\.0\.0\.1:\d+" \(or "\*"\) on its answers/);
    assert.match(errors[2], /must list WWW-Authenticate in "Access-Control-Expose-Headers"/);
  } finally {
    await context.close();
    await Promise.all([noHeader.close(), noOrigin.close(), hiddenChallenge.close()]);
  }
});
