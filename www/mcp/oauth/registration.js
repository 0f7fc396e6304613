// Owns who the client is to an authorization server, in the MCP specification's order:
// credentials the page was given (pre-registration); a Client ID Metadata Document when the
// server supports them (the client_id is the document's HTTPS URL, which the static site
// serves); else Dynamic Client Registration (RFC 7591, deprecated in 2026-07-28 but what most
// servers offer), as a public web client. Registrations are kept per issuer (SEP-2352) and never
// used with another authorization server.

import { OAuthError } from './discovery_error.js';
import { oauthFetch } from './fetch.js';
import { kvGet, kvPut } from '../kv.js';

const TIMEOUT_MS = 30_000;

/** The registration key of a client at `issuer` for `redirectUri`. */
function registrationKey(issuer, redirectUri) {
  return `${issuer}\u0000${redirectUri}`;
}

/**
 * The site's own Client ID Metadata Document, when it serves one whose `client_id` is its URL
 * and lists `redirectUri` (only an HTTPS document can be one).
 */
async function siteDocument(url, redirectUri) {
  if (!url || new URL(url).protocol !== 'https:') return undefined;
  try {
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok) return undefined;
    const document = await response.json();
    if (document.client_id !== url || !Array.isArray(document.redirect_uris) || !document.redirect_uris.includes(redirectUri)) return undefined;
    return document;
  } catch {
    return undefined;
  }
}

/**
 * The client to sign in as: `{clientId, clientSecret?, tokenEndpointAuthMethod?, how}`.
 * @param {{issuer: string, server: object}} found what discovery found
 * @param {{clientId?: string, clientSecret?: string, privateKeyPem?: string,
 *   signingAlgorithm?: string, clientMetadataUrl?: string, checkDocument?: boolean,
 *   clientName?: string, redirectUri: string, scope?: string}} options `checkDocument`: the
 *   metadata URL is the site's default, used only when it serves a document that fits
 */
export async function clientFor(found, options) {
  const { issuer, server } = found;
  if (options.clientId) {
    return {
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      privateKeyPem: options.privateKeyPem,
      signingAlgorithm: options.signingAlgorithm,
      how: 'pre-registered',
    };
  }
  const key = registrationKey(issuer, options.redirectUri);
  const stored = await kvGet('clients', key).catch(() => undefined);
  if (stored?.clientId && (!stored.expiresAt || stored.expiresAt > Date.now())) return stored;
  if (server.client_id_metadata_document_supported === true && options.clientMetadataUrl) {
    // A URL the page names is its own say-so; the site's default document is checked first,
    // since the server will fetch it and refuse a wrong one.
    const url = options.clientMetadataUrl;
    if (!options.checkDocument || (await siteDocument(url, options.redirectUri))) return { clientId: url, how: 'client-id-metadata-document' };
  }
  if (typeof server.registration_endpoint !== 'string') {
    throw new OAuthError(`the authorization server ${issuer} takes neither this site's Client ID Metadata Document nor dynamic registration: give connectMcp oauth: { clientId } registered there`);
  }
  const request = {
    client_name: options.clientName ?? 'tabloop',
    redirect_uris: [options.redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'web',
    ...(options.scope ? { scope: options.scope } : {}),
  };
  const response = await oauthFetch(server.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(request),
  }, 'dynamic client registration');
  let answer = {};
  try {
    answer = await response.json();
  } catch {
    // Reported below.
  }
  if (!response.ok || typeof answer.client_id !== 'string') {
    throw new OAuthError(`dynamic client registration at ${server.registration_endpoint} failed (${answer.error ?? `HTTP ${response.status}`}${answer.error_description ? `: ${answer.error_description}` : ''})`);
  }
  const expires = Number(answer.client_secret_expires_at);
  const client = {
    clientId: answer.client_id,
    clientSecret: typeof answer.client_secret === 'string' ? answer.client_secret : undefined,
    tokenEndpointAuthMethod: answer.token_endpoint_auth_method,
    expiresAt: Number.isFinite(expires) && expires > 0 ? expires * 1000 : undefined,
    issuer,
    how: 'dynamic-registration',
  };
  await kvPut('clients', key, client).catch(() => {});
  return client;
}

/** The document a static site serves at `url` to be a client (CIMD). */
export function clientMetadataDocument(url, redirectUri, clientName = 'tabloop') {
  return {
    client_id: url,
    client_name: clientName,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'web',
  };
}
