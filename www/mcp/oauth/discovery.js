// Owns finding how to sign in to an MCP server: its protected-resource metadata (RFC 9728: the
// `resource_metadata` URL of the 401's challenge, else the path-based then the root well-known
// URL), whose `resource` must be the server (same origin, and the server's path within it);
// then its authorization server's metadata (RFC 8414 / OpenID Connect Discovery, path-aware
// well-known URLs in the spec's order), whose `issuer` must be the one the resource named. A
// server with no protected-resource metadata is a 2025-03-26 server: its own origin is the
// authorization server, and without metadata there its default endpoints are used.

import { exposeHint } from '../cors.js';
import { OAuthError } from './discovery_error.js';
import { oauthFetch } from './fetch.js';

export { OAuthError };

/**
 * GETs JSON (a simple request: no preflight). Resolves the document, undefined when there is
 * none (a 4xx, or no JSON), and puts a fetch that got no answer in `failures`: a server that
 * sends CORS headers only on what it has may refuse a probe of a well-known URL it lacks.
 */
async function getJson(url, signal, failures) {
  let response;
  try {
    response = await oauthFetch(url, { headers: { accept: 'application/json' } }, `the sign-in metadata at ${url}`, signal);
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    failures.push(error);
    return undefined;
  }
  if (!response.ok) {
    response.body?.cancel().catch(() => {});
    return undefined;
  }
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/** The server URL as a resource indicator (RFC 8707): no fragment, lower-case scheme and host. */
export function canonicalResource(url) {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.pathname === '/' && !parsed.search ? parsed.origin : parsed.href;
}

/** Whether protected-resource metadata naming `resource` may speak for `serverUrl`. */
export function resourceCovers(resource, serverUrl) {
  let claimed;
  let server;
  try {
    claimed = new URL(resource);
    server = new URL(serverUrl);
  } catch {
    return false;
  }
  if (claimed.origin !== server.origin) return false;
  const base = claimed.pathname.replace(/\/+$/, '');
  const path = server.pathname.replace(/\/+$/, '');
  return path === base || path.startsWith(`${base}/`);
}

/** Protected-resource metadata URLs to try for `serverUrl`, most specific first. */
function resourceMetadataUrls(serverUrl) {
  const url = new URL(serverUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const urls = [];
  if (path) urls.push(`${url.origin}/.well-known/oauth-protected-resource${path}`);
  urls.push(`${url.origin}/.well-known/oauth-protected-resource`);
  return urls;
}

/** Authorization-server metadata URLs for `issuer`, in the MCP specification's order. */
function serverMetadataUrls(issuer) {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  if (!path) return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`];
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * The server's protected-resource metadata, or undefined when it publishes none.
 * @param {string} serverUrl
 * @param {string} [fromChallenge] the 401's `resource_metadata`
 */
export async function protectedResource(serverUrl, fromChallenge, signal) {
  const urls = fromChallenge ? [fromChallenge] : resourceMetadataUrls(serverUrl);
  const failures = [];
  for (const url of urls) {
    const metadata = await getJson(url, signal, failures);
    if (!metadata) continue;
    if (typeof metadata.resource !== 'string' || !resourceCovers(metadata.resource, serverUrl)) {
      throw new OAuthError(`the protected-resource metadata at ${url} is for ${JSON.stringify(metadata.resource)}, not for ${serverUrl}: not signing in`);
    }
    if (!Array.isArray(metadata.authorization_servers) || metadata.authorization_servers.length === 0) {
      throw new OAuthError(`the protected-resource metadata at ${url} names no authorization server`);
    }
    return { ...metadata, url };
  }
  // The challenge named it: that it could not be read is the answer.
  if (fromChallenge && failures.length > 0) throw failures[0];
  return undefined;
}

/**
 * The authorization server's metadata. With `strict`, its `issuer` must be `issuer` (the value
 * the resource named); a 2025-03-26 server's origin stands in for an issuer and is not checked.
 */
export async function authorizationServer(issuer, { strict, signal } = {}) {
  const failures = [];
  for (const url of serverMetadataUrls(issuer)) {
    const metadata = await getJson(url, signal, failures);
    if (!metadata) continue;
    if (strict && metadata.issuer !== issuer && metadata.issuer !== issuer.replace(/\/$/, '')) {
      throw new OAuthError(`the authorization server metadata at ${url} says its issuer is ${JSON.stringify(metadata.issuer)}, not ${issuer}: not signing in`);
    }
    if (typeof metadata.authorization_endpoint !== 'string' || typeof metadata.token_endpoint !== 'string') {
      throw new OAuthError(`the authorization server metadata at ${url} lacks its authorization or token endpoint`);
    }
    return { ...metadata, url };
  }
  if (strict && failures.length > 0) throw failures[0];
  return undefined;
}

/**
 * Everything a sign-in to `serverUrl` needs: `{resource, issuer, server, scopesSupported,
 * legacy}`. `challenge` is the 401's Bearer challenge.
 */
export async function discover(serverUrl, challenge, { signal, headerHidden } = {}) {
  const prm = await protectedResource(serverUrl, challenge.resource_metadata, signal);
  if (prm) {
    const issuer = prm.authorization_servers[0];
    const server = await authorizationServer(issuer, { strict: true, signal });
    if (!server) throw new OAuthError(`the authorization server ${issuer} publishes no metadata (RFC 8414 or OpenID Connect discovery)`);
    return { resource: prm.resource, issuer: server.issuer ?? issuer, server, scopesSupported: prm.scopes_supported, legacy: false };
  }
  // No protected-resource metadata: a 2025-03-26 server, signing in at its own origin.
  const origin = new URL(serverUrl).origin;
  const server = (await authorizationServer(origin, { strict: false, signal })) ?? {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    fallback: true,
  };
  if (headerHidden && !challenge.resource_metadata && server.fallback) {
    throw new OAuthError(`the MCP server asks to sign in, but publishes no sign-in metadata this page can read; ${exposeHint(serverUrl, 'WWW-Authenticate')}`);
  }
  return { resource: canonicalResource(serverUrl), issuer: server.issuer ?? origin, server, scopesSupported: undefined, legacy: true };
}
