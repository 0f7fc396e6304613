// The OAuth callback page's script: reads the authorization server's answer from the URL
// (`code`, `state`, `iss`, or `error`), writes it into the stored flow it belongs to (the MCP
// store, "flows"), announces it to the tab that started the sign-in, and then closes this
// popup, or, in redirect mode, goes back to the page the person left. The code never reaches
// the page's URL history beyond this page, and the tokens are redeemed by the tab, not here.

import { kvGet, kvPut } from '../kv.js';
import { CALLBACK_CHANNEL } from './flow.js';

const status = document.getElementById('status');
const say = (text) => {
  status.textContent = text;
};

async function main() {
  const query = new URLSearchParams(location.search);
  const state = query.get('state');
  // The answer must not stay in this page's address or history.
  history.replaceState(null, '', location.pathname);
  if (!state) return say('This page finishes a sign-in, but the answer has no state: nothing to do.');
  const flow = await kvGet('flows', state);
  if (!flow) return say('This sign-in is unknown here (it expired, or was started in another browser). Start it again.');
  if (flow.result) return say('This sign-in was already finished.');
  flow.result = query.get('error')
    ? { error: query.get('error'), errorDescription: query.get('error_description') ?? undefined }
    : { code: query.get('code'), iss: query.get('iss') ?? undefined };
  flow.result.at = Date.now();
  await kvPut('flows', state, flow);
  const channel = new BroadcastChannel(CALLBACK_CHANNEL);
  channel.postMessage({ state });
  channel.close();
  if (flow.mode === 'redirect' && flow.returnTo) {
    location.replace(flow.returnTo);
    return undefined;
  }
  say(flow.result.error ? 'The sign-in was refused. You can close this window.' : 'Signed in. You can close this window.');
  setTimeout(() => window.close(), 50);
  return undefined;
}

main().catch((error) => say(`The sign-in could not be finished here: ${error?.message ?? error}`));
