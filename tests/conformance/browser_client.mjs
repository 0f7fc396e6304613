// The MCP client under the official conformance suite: `conformance client --command "node
// tests/conformance/browser_client.mjs"` appends the test server's URL and sets
// MCP_CONFORMANCE_SCENARIO (and, for some scenarios, MCP_CONFORMANCE_CONTEXT). This launcher
// opens the built site in headless Chromium, connects tabloop's own MCP client
// (`tabloop.connectMcp`) to that URL from the page, and calls the server's tools through a real
// agent run (a scripted model asks for each call; the runtime, tool registry and MCP client do
// the rest). It exits 0 when the connection and every call succeeded, 1 otherwise.
//
// The suite's test servers are written for native clients and send no CORS headers. A server
// deployed for browsers must send them, so the launcher adds them to the test servers' answers
// (Playwright routing, the page's URLs unchanged); nothing else about a request or its answer
// is touched, and the OAuth popup's navigations are not routed at all.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { launchBrowser } from '../e2e/support/browser.mjs';
import { serveSite } from '../e2e/support/site.mjs';
import { openEmbed } from '../e2e/support/embed.mjs';
import { installScriptedModel } from '../e2e/support/page_model.mjs';
import { scenarioPlan } from './plans.mjs';

const serverUrl = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
if (!serverUrl) {
  console.error(`usage: MCP_CONFORMANCE_SCENARIO=<name> node ${path.relative(process.cwd(), fileURLToPath(import.meta.url))} <server-url>`);
  process.exit(2);
}

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': '*',
  'access-control-expose-headers': '*',
};

/** Adds CORS headers to the answers of every server on `origin`'s host other than the site. */
async function allowCors(page, siteOrigin) {
  await page.route((url) => url.origin !== siteOrigin && (url.hostname === 'localhost' || url.hostname === '127.0.0.1'), async (route) => {
    const request = route.request();
    if (request.isNavigationRequest()) return route.continue();
    if (request.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: CORS_HEADERS });
    let response;
    try {
      response = await route.fetch({ maxRedirects: 0 });
    } catch (error) {
      console.error(`fetch of ${request.url()} failed: ${error.message}`);
      return route.abort('connectionfailed');
    }
    const headers = { ...response.headers(), ...CORS_HEADERS };
    return route.fulfill({ response, headers });
  });
}

const plan = scenarioPlan(scenario, context);
const site = await serveSite();
const browser = await launchBrowser();
let exitCode = 1;
try {
  const page = await openEmbed(await browser.newContext(), site);
  page.on('console', (message) => console.error(`page ${message.type()}: ${message.text()}`));
  await allowCors(page, new URL(site.url).origin);
  await installScriptedModel(page);
  const result = await page.evaluate(runInPage, { url: serverUrl, plan });
  console.log(JSON.stringify(result, null, 2));
  exitCode = result.ok ? 0 : 1;
} catch (error) {
  console.error(`the client failed: ${error?.stack ?? error}`);
} finally {
  await browser.close();
  await site.close();
}
process.exit(exitCode);

/**
 * Runs in the page: connects, then calls each planned tool through one agent run whose
 * scripted model asks for the calls in order.
 */
async function runInPage({ url, plan }) {
  const log = [];
  let connection;
  try {
    const options = { name: 'conf', url, permission: 'allow', ...plan.options };
    if (plan.elicitationAnswer) options.elicitation = async () => plan.elicitationAnswer;
    connection = await tabloop.connectMcp(options);
  } catch (error) {
    return { ok: false, stage: 'connect', error: String(error?.message ?? error) };
  }
  const listed = connection.tools().map((t) => t.mcpName);
  log.push({ listed });
  const calls = plan.calls === 'all' ? listed.map((name) => ({ name, args: plan.args?.[name] ?? {} })) : plan.calls;
  let finished = [];
  if (calls.length > 0) {
    const model = scriptedProvider([
      ...calls.map((call, i) => ({ calls: [{ id: `c${i}`, name: `mcp__conf__${call.name.replace(/[^A-Za-z0-9_-]/g, '_')}`, args: call.args }] })),
      { text: 'done' },
    ], { stream: true });
    const agent = await tabloop.createAgent({
      session: `conformance-${Date.now()}`,
      provider: { kind: 'custom', model: 'scripted', complete: model.complete },
      tools: calls.map((call) => `mcp__conf__${call.name.replace(/[^A-Za-z0-9_-]/g, '_')}`),
      permissions: {},
    });
    const outcome = await agent.run('conformance');
    finished = (await agent.events())
      .filter((e) => e.type === 'tool_call_finished')
      .map((e) => ({ content: e.content, is_error: e.is_error }));
    log.push({ outcome: outcome.stopReason, finished });
  }
  await connection.close();
  const ok = finished.length === calls.length && finished.every((f) => !f.is_error);
  return { ok, log };
}
