// Owns the MCP client's OAuth tokens at rest: one record per MCP server URL in the MCP store
// (IndexedDB "tabloop-mcp", apart from the sessions' logs, so no token is ever in a log or an
// export), listed for the settings without their secrets, and revoked from there: the record
// is deleted, and the authorization server is told (RFC 7009) where it has a revocation
// endpoint.

import { kvGet, kvPut, kvDelete, kvEntries } from '../kv.js';
import { authMethod } from './token.js';

/** The stored token record for `serverUrl`, or undefined. */
export function loadToken(serverUrl) {
  return kvGet('tokens', serverUrl);
}

export function saveToken(serverUrl, record) {
  return kvPut('tokens', serverUrl, record);
}

export function dropToken(serverUrl) {
  return kvDelete('tokens', serverUrl);
}

/** Every stored sign-in, as the settings show it: no token, no secret. */
export async function listTokens() {
  return (await kvEntries('tokens')).map(([serverUrl, t]) => ({
    serverUrl,
    issuer: t.issuer,
    scopes: [...(t.scopes ?? [])],
    expiresAt: t.expiresAt ?? null,
    obtained: t.obtained ?? null,
    refreshable: Boolean(t.refreshToken),
  }));
}

/** Tells the authorization server a token is no longer wanted (best effort). */
async function tellServer(record, token, hint) {
  if (!record.revocationEndpoint || !token) return false;
  const body = new URLSearchParams({ token, token_type_hint: hint });
  const headers = { 'content-type': 'application/x-www-form-urlencoded' };
  const client = record.client ?? {};
  const method = authMethod(client, {});
  if (method === 'client_secret_basic') headers.authorization = `Basic ${btoa(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`)}`;
  else {
    body.set('client_id', client.clientId ?? '');
    if (method === 'client_secret_post') body.set('client_secret', client.clientSecret);
  }
  try {
    const response = await fetch(record.revocationEndpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Revokes the sign-in to `serverUrl` (every sign-in when undefined). Resolves
 * `[{serverUrl, revokedAtServer}]`: the record is gone either way.
 */
export async function revokeTokens(serverUrl) {
  const done = [];
  for (const [url, record] of await kvEntries('tokens')) {
    if (serverUrl !== undefined && url !== serverUrl) continue;
    await kvDelete('tokens', url);
    const refreshed = await tellServer(record, record.refreshToken, 'refresh_token');
    const accessed = await tellServer(record, record.accessToken, 'access_token');
    done.push({ serverUrl: url, revokedAtServer: refreshed || accessed });
  }
  return done;
}
