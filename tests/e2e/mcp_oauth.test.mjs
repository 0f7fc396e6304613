// End-to-end tests of the MCP client's OAuth 2.1 sign-in from a static site, in headless
// Chromium, against an MCP server whose authorization server is a real one (npm oidc-provider,
// tests/e2e/support/oauth_servers.mjs): the 401, discovery, dynamic registration, the popup
// with PKCE (a person signing in on the provider's pages), the issuer check and the code's
// redemption; a reload of the page while the person is still signing in; a token that expires
// and is refreshed; and the tokens never in a session's log or export, listed and revoked from
// the API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from './support/embed.mjs';
import { useScriptedEmbed } from './support/scripted_embed.mjs';
import { installScriptedModel } from './support/page_model.mjs';
import { startOAuthServers, signInOnPopup } from './support/oauth_servers.mjs';

const suite = useScriptedEmbed();
const open = (context) => suite.open(context);

/** Runs one agent run in the page whose scripted model calls `whoami`; its events and export. */
function runWhoami(page, session) {
  return page.evaluate(async ({ session }) => {
    const model = scriptedProvider([{ calls: [{ id: 'w1', name: 'mcp__prot__whoami', args: { note: 'from the run' } }] }, { text: 'done' }], { stream: true });
    const agent = await tabloop.createAgent({ session, provider: { kind: 'custom', model: 'm', complete: model.complete }, tools: ['mcp__prot__whoami'], permissions: { mcp__prot__whoami: 'allow' } });
    const outcome = await agent.run('who is signed in?');
    const events = await agent.events();
    return {
      stop: outcome.stopReason,
      finished: events.filter((e) => e.type === 'tool_call_finished').map((e) => e.content),
      log: JSON.stringify(events),
      exported: await agent.exportJsonl(),
    };
  }, { session });
}

function occurrences(text, needles) {
  return needles.reduce((n, needle) => n + (needle ? text.split(needle).length - 1 : 0), 0);
}

test('sign-in in a popup: discovery, registration, PKCE, a call through a run; no token in the log or the export', async () => {
  const servers = await startOAuthServers();
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    const connecting = page.evaluate(async ({ url }) => {
      window.signIns = [];
      window.conn = await tabloop.connectMcp({ name: 'prot', url, oauth: { onSignIn: (info) => window.signIns.push(info) } });
      return { tools: window.conn.tools().map((t) => t.mcpName), signIns: window.signIns, protocolVersion: window.conn.protocolVersion };
    }, { url: servers.url });
    const popup = await context.waitForEvent('page');
    await signInOnPopup(popup);
    const connected = await connecting;
    assert.deepEqual(connected.tools, ['whoami']);
    assert.equal(connected.signIns.length, 1);
    assert.equal(connected.signIns[0].issuer, servers.issuer);
    assert.match(connected.signIns[0].scope, /mcp:tools/);

    const run = await runWhoami(page, 'oauth-run');
    assert.equal(run.stop, 'completed');
    assert.deepEqual(run.finished, ['signed in: from the run']);
    const tokens = [...new Set([...servers.state.issued, ...servers.state.tokensSeen])];
    assert.equal(servers.state.issued.length, 2, 'an access token and a refresh token were issued');
    assert.ok(servers.state.tokensSeen.every((t) => servers.state.issued.includes(t)));
    assert.equal(occurrences(run.log, tokens), 0, 'no access token in the event log');
    assert.equal(occurrences(run.exported, tokens), 0, 'no access token in the export');
    const stored = await page.evaluate(() => tabloop.mcpSignIns());
    assert.equal(stored.length, 1);
    assert.equal(stored[0].issuer, servers.issuer);
    assert.equal(stored[0].refreshable, true);
    assert.equal(occurrences(JSON.stringify(stored), tokens), 0, 'the sign-in list shows no token');
    assert.ok(servers.state.asRequests.some((r) => r === 'POST /reg'), 'dynamic client registration');
    assert.deepEqual(servers.state.grants, ['authorization_code']);

    // A new page of the same browser reuses the kept sign-in: no popup.
    const second = await open(context);
    const again = await second.evaluate(async ({ url }) => (await tabloop.connectMcp({ name: 'prot', url })).tools().length, { url: servers.url });
    assert.equal(again, 1);

    // Revoked from the settings' API: the next connection must sign in again.
    const revoked = await second.evaluate(async ({ url }) => tabloop.revokeMcpSignIn(url), { url: servers.url });
    assert.deepEqual(revoked.map((r) => r.serverUrl), [servers.url]);
    assert.equal(revoked[0].revokedAtServer, true);
    assert.deepEqual(await second.evaluate(() => tabloop.mcpSignIns()), []);
  } finally {
    await context.close();
    await servers.close();
  }
});

test('a reload while the person is signing in loses nothing: the reloaded page finishes the same sign-in', async () => {
  const servers = await startOAuthServers();
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    // Its page is reloaded under it: this first connection never ends.
    page.evaluate(async ({ url }) => tabloop.connectMcp({ name: 'prot', url }), { url: servers.url }).catch(() => {});
    const popup = await context.waitForEvent('page');
    await popup.waitForSelector('input[name=login]', { timeout: 20_000 });
    const authorizations = servers.state.asRequests.filter((r) => r === 'GET /auth').length;
    await page.reload();
    await page.waitForFunction(() => window.tabloopReady === true);
    await installScriptedModel(page);
    // The reloaded page connects again while the person is still on the provider's page.
    const reconnecting = page.evaluate(async ({ url }) => {
      const signIns = [];
      const conn = await tabloop.connectMcp({ name: 'prot', url, oauth: { onSignIn: (info) => signIns.push(info) } });
      return { tools: conn.tools().map((t) => t.mcpName), signIns };
    }, { url: servers.url });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await signInOnPopup(popup);
    const result = await reconnecting;
    assert.deepEqual(result.tools, ['whoami']);
    assert.deepEqual(result.signIns.map((s) => s.resumed), [true], 'the flow from before the reload was finished, not a new one started');
    assert.equal(servers.state.asRequests.filter((r) => r === 'GET /auth').length, authorizations, 'no second authorization request');
    assert.equal(context.pages().filter((p) => p !== page && !p.isClosed() && p !== popup).length, 0, 'no second popup');
    const run = await runWhoami(page, 'oauth-reload');
    assert.deepEqual(run.finished, ['signed in: from the run']);
  } finally {
    await context.close();
    await servers.close();
  }
});

test('an access token that expires is refreshed with the refresh token, without the person', async () => {
  const servers = await startOAuthServers({ accessTokenTTL: 4 });
  const context = await suite.browser.newContext();
  try {
    const page = await open(context);
    const connecting = page.evaluate(async ({ url }) => {
      window.conn = await tabloop.connectMcp({ name: 'prot', url });
    }, { url: servers.url });
    await signInOnPopup(await context.waitForEvent('page'));
    await connecting;
    let popups = 0;
    context.on('page', () => {
      popups += 1;
    });
    const first = await page.evaluate(async () => JSON.stringify(await window.conn.callTool('whoami', { note: 'one' })));
    assert.match(first, /signed in: one/);
    const tokenBefore = servers.state.tokensSeen.at(-1);
    await new Promise((resolve) => setTimeout(resolve, 4500));
    const second = await page.evaluate(async () => JSON.stringify(await window.conn.callTool('whoami', { note: 'two' })));
    assert.match(second, /signed in: two/);
    assert.notEqual(servers.state.tokensSeen.at(-1), tokenBefore, 'a new access token');
    assert.ok(servers.state.grants.includes('refresh_token'), `grants: ${servers.state.grants}`);
    assert.equal(popups, 0, 'no second sign-in window');
  } finally {
    await context.close();
    await servers.close();
  }
});
