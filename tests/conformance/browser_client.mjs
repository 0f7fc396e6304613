// The MCP client under the official conformance suite: `conformance client --command "node
// tests/conformance/browser_client.mjs"` appends the test server's URL and sets
// MCP_CONFORMANCE_SCENARIO (and, for some scenarios, MCP_CONFORMANCE_CONTEXT). This launcher
// opens the built site in headless Chromium, connects tabloop's own MCP client
// (`tabloop.connectMcp`) to that URL from the page, and calls the server's tools through a real
// agent run (a scripted model asks for each call; the runtime, tool registry and MCP client do
// the rest). It exits 0 when the connection and every call succeeded, 1 otherwise.
//
// The suite's test servers are written for native clients and send no CORS headers. A server
// deployed for browsers must send them, so Chromium reaches them through a forward proxy here
// that adds the headers (and answers preflights), streaming answers through unchanged; the
// page's URLs stay the servers' own, and nothing else about a request or an answer changes.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { launchBrowser } from '../e2e/support/browser.mjs';
import { startCorsProxy } from './cors_proxy.mjs';
import fs from 'node:fs';
import { serveSite } from '../e2e/support/site.mjs';
import { installScriptedModel } from '../e2e/support/page_model.mjs';
import { scenarioPlan } from './plans.mjs';

const serverUrl = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
if (!serverUrl) {
  console.error(`usage: MCP_CONFORMANCE_SCENARIO=<name> node ${path.relative(process.cwd(), fileURLToPath(import.meta.url))} <server-url>`);
  process.exit(2);
}

const plan = scenarioPlan(scenario, context);
// A browser host started by scripts/mcp-conformance.sh (browser_host.mjs) is shared by every
// scenario; without one this process starts its own site, proxy and Chromium.
const host = process.env.TABLOOP_CONFORMANCE_HOST ? JSON.parse(fs.readFileSync(process.env.TABLOOP_CONFORMANCE_HOST, 'utf8')) : undefined;
let site;
let proxy;
let browser;
if (host) {
  site = { url: host.siteUrl };
  browser = await chromium.connect(host.wsEndpoint);
} else {
  site = await serveSite();
  proxy = await startCorsProxy(new URL(site.url).origin);
  // Playwright routes loopback through the proxy too (its `<-loopback>` bypass rule).
  browser = await launchBrowser({ proxy: { server: proxy.url } });
}
let exitCode = 1;
try {
  // Generous: on a loaded machine a dozen pages compile the wasm at once.
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${site.url}/embed.html`);
  await page.waitForFunction(() => window.tabloopReady === true, null, { timeout: 100_000 });
  page.on('console', (message) => console.error(`page ${message.type()}: ${message.text()}`));
  await installScriptedModel(page);
  const result = await page.evaluate(runInPage, { url: serverUrl, plan });
  console.log(JSON.stringify(result, null, 2));
  exitCode = result.ok ? 0 : 1;
} catch (error) {
  console.error(`the client failed: ${error?.stack ?? error}`);
} finally {
  await browser.close();
  await site.close?.();
  await proxy?.close();
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
  const tools = connection.tools();
  const listed = tools.map((t) => t.mcpName);
  log.push({ listed });
  // Arguments that fit a schema: each required property given a value of its type.
  const fitting = (schema) => Object.fromEntries((schema?.required ?? []).map((key) => {
    const property = schema.properties?.[key] ?? {};
    const value = property.enum?.[0] ?? { string: 'example', integer: 1, number: 1, boolean: true, object: {}, array: [] }[property.type] ?? 'example';
    return [key, value];
  }));
  let calls = plan.calls === 'all' ? tools.map((t) => ({ name: t.mcpName, args: plan.args?.[t.mcpName] ?? fitting(t.inputSchema) })) : plan.calls;
  if (plan.echoSchema) {
    const from = tools.find((t) => t.mcpName === plan.echoSchema.from);
    if (!from) return { ok: false, stage: 'list', error: `no tool ${plan.echoSchema.from}` };
    calls = [{ name: plan.echoSchema.into, args: { schema: from.inputSchema } }];
  }
  let finished = [];
  if (plan.direct) {
    for (const call of calls) {
      try {
        const result = await connection.callTool(call.name, call.args);
        finished.push({ content: JSON.stringify(result.content), is_error: result.isError === true });
      } catch (error) {
        finished.push({ content: String(error?.message ?? error), is_error: true });
      }
    }
    log.push({ direct: finished });
  } else if (calls.length > 0) {
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
