// Owns the person's part of an OAuth sign-in from a static site: the authorization request
// (authorization code with PKCE S256, `state`, the resource indicator and the chosen scopes)
// opened in a popup, or in this tab (redirect mode), and the wait for the callback page
// (callback.html) to bring the answer back. The flow is stored (MCP store, "flows") before the
// person leaves, and the callback page writes the answer there too, so a reload of this page
// mid-flow loses nothing: the next sign-in to the same server picks the flow up.

import { OAuthError } from './discovery_error.js';
import { randomToken, pkceChallenge } from './token.js';
import { kvEntries, kvGet, kvPut, kvDelete } from '../kv.js';

/** The channel the callback page announces answers on. */
export const CALLBACK_CHANNEL = 'tabloop-mcp-oauth';
/** A flow not finished within this long is dropped. */
const FLOW_LIFETIME_MS = 10 * 60_000;
const POLL_MS = 400;

/** The callback page next to this module, unless the page gives its own redirect URI. */
export function defaultRedirectUri() {
  const base = globalThis.TABLOOP_BASE ?? globalThis.document?.baseURI ?? globalThis.location?.href;
  return new URL('www/mcp/oauth/callback.html', base).href;
}

/**
 * The newest unfinished flow for `serverUrl` (still in its lifetime), with or without an
 * answer; stale ones are deleted on the way.
 */
export async function pendingFlow(serverUrl) {
  let newest;
  for (const [state, flow] of await kvEntries('flows').catch(() => [])) {
    if (Date.now() - (flow?.created ?? 0) > FLOW_LIFETIME_MS) {
      kvDelete('flows', state).catch(() => {});
      continue;
    }
    if (flow.serverUrl === serverUrl && (!newest || flow.created > newest.created)) newest = flow;
  }
  return newest;
}

/**
 * Starts a sign-in: stores the flow, then sends the person to the authorization endpoint.
 * Resolves the stored flow (in redirect mode this page is leaving, so it never resolves).
 */
export async function startFlow({ serverUrl, found, client, scope, resource, redirectUri, mode }) {
  const verifier = randomToken(48);
  const state = randomToken(24);
  const url = new URL(found.server.authorization_endpoint);
  const query = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    state,
    code_challenge: await pkceChallenge(verifier),
    code_challenge_method: 'S256',
    ...(scope ? { scope } : {}),
    ...(resource ? { resource } : {}),
  };
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const flow = {
    state,
    serverUrl,
    issuer: found.issuer,
    resource,
    scope,
    verifier,
    redirectUri,
    clientId: client.clientId,
    mode,
    returnTo: globalThis.location?.href,
    created: Date.now(),
  };
  await kvPut('flows', state, flow);
  if (mode === 'redirect') {
    globalThis.location.assign(url.href);
    return new Promise(() => {});
  }
  const popup = globalThis.open?.(url.href, `tabloop-oauth-${state}`, 'popup,width=520,height=700');
  if (!popup) {
    await kvDelete('flows', state).catch(() => {});
    throw new OAuthError('the browser blocked the sign-in window: connect from a click (a person\'s gesture), or use oauth: { mode: "redirect" }', { popupBlocked: true });
  }
  return flow;
}

/**
 * Waits for the callback page's answer to `flow` (announced on a BroadcastChannel, and polled
 * from the store in case the announcement came while this page was away). Resolves
 * `{code, iss}`; rejects on an error answer, the flow's end of life, or `signal`.
 */
export function awaitAnswer(flow, signal) {
  return new Promise((resolve, reject) => {
    let done = false;
    const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CALLBACK_CHANNEL) : undefined;
    const finish = (fn, value) => {
      if (done) return;
      done = true;
      clearInterval(poll);
      clearTimeout(expiry);
      channel?.close();
      signal?.removeEventListener('abort', onAbort);
      fn(value);
    };
    const check = async () => {
      const stored = await kvGet('flows', flow.state).catch(() => undefined);
      if (!stored) return finish(reject, new OAuthError('the sign-in was abandoned (its record is gone)'));
      const result = stored.result;
      if (!result) return undefined;
      if (result.error) return finish(reject, new OAuthError(`the authorization server refused the sign-in (${result.error}${result.errorDescription ? `: ${result.errorDescription}` : ''})`, { oauthError: result.error }));
      return finish(resolve, { code: result.code, iss: result.iss });
    };
    const onAbort = () => finish(reject, signal.reason ?? new DOMException('the sign-in was cancelled', 'AbortError'));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (channel) {
      channel.onmessage = (event) => {
        if (event.data?.state === flow.state) check();
      };
    }
    const poll = setInterval(check, POLL_MS);
    const expiry = setTimeout(() => finish(reject, new OAuthError('the sign-in was not finished in time')), Math.max(0, flow.created + FLOW_LIFETIME_MS - Date.now()));
    check();
  });
}

/** Forgets a finished (or failed) flow. */
export function endFlow(flow) {
  return kvDelete('flows', flow.state).catch(() => {});
}
