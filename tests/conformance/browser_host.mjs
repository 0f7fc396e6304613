// One browser for a whole conformance run: scripts/mcp-conformance.sh starts this before the
// scenarios and stops it after. It serves the built site, starts the CORS proxy (cors_proxy.mjs)
// and a headless Chromium that reaches loopback through it, and writes `{wsEndpoint, siteUrl}`
// to the file named by its argument; each scenario's launcher (browser_client.mjs) connects to
// that Chromium and opens its page in a context of its own. A dozen scenarios in parallel then
// cost a dozen pages, not a dozen browsers.
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/support/browser.mjs';
import { serveSite } from '../e2e/support/site.mjs';
import { startCorsProxy } from './cors_proxy.mjs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node tests/conformance/browser_host.mjs <endpoint file>');
  process.exit(2);
}
const site = await serveSite();
const proxy = await startCorsProxy(new URL(site.url).origin);
const server = await chromium.launchServer({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: CHROMIUM_ARGS,
  headless: true,
  proxy: { server: proxy.url },
});
fs.writeFileSync(file, JSON.stringify({ wsEndpoint: server.wsEndpoint(), siteUrl: site.url }));

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await server.close().catch(() => {});
  await proxy.close().catch(() => {});
  await site.close().catch(() => {});
  fs.rmSync(file, { force: true });
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
