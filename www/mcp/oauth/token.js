// Owns the token endpoint: redeeming an authorization code (with the PKCE verifier and the
// resource indicator), refreshing, and the grants without a person (client credentials, and the
// JWT bearer grant of cross-app access). The client authenticates as it registered: with no
// secret (a public client, `client_id` in the body), HTTP Basic, the secret in the body, or a
// signed JWT assertion (private_key_jwt, signed here with WebCrypto).

import { OAuthError } from './discovery_error.js';
import { oauthFetch } from './fetch.js';
import { scopeList } from './challenge.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

function base64url(bytes) {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** A random URL-safe string of `bytes` random bytes. */
export function randomToken(bytes = 32) {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The PKCE S256 challenge of `verifier`. */
export async function pkceChallenge(verifier) {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/** How the client authenticates at the token endpoint, from its registration and the server. */
export function authMethod(client, server) {
  if (client.privateKeyPem) return 'private_key_jwt';
  if (!client.clientSecret) return 'none';
  if (client.tokenEndpointAuthMethod) return client.tokenEndpointAuthMethod;
  const supported = server.token_endpoint_auth_methods_supported;
  // RFC 8414: absent means client_secret_basic.
  if (!Array.isArray(supported) || supported.includes('client_secret_basic')) return 'client_secret_basic';
  if (supported.includes('client_secret_post')) return 'client_secret_post';
  return 'client_secret_basic';
}

/** An ES256 (or RS256) JWT signed with the PEM PKCS#8 private key. */
async function signedAssertion(client, audience) {
  const pem = client.privateKeyPem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const der = Uint8Array.from(atob(pem), (c) => c.charCodeAt(0));
  const alg = client.signingAlgorithm ?? 'ES256';
  const algorithm = alg === 'RS256' ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } : { name: 'ECDSA', namedCurve: 'P-256' };
  const key = await crypto.subtle.importKey('pkcs8', der, algorithm, false, ['sign']);
  const now = Math.floor(Date.now() / 1000);
  const encode = (value) => base64url(new TextEncoder().encode(JSON.stringify(value)));
  const input = `${encode({ alg, typ: 'JWT' })}.${encode({ iss: client.clientId, sub: client.clientId, aud: audience, iat: now, exp: now + 300, jti: randomToken(16) })}`;
  const signature = await crypto.subtle.sign(alg === 'RS256' ? algorithm : { name: 'ECDSA', hash: 'SHA-256' }, key, new TextEncoder().encode(input));
  return `${input}.${base64url(new Uint8Array(signature))}`;
}

/** POSTs a form to `endpoint` as `client`; resolves the JSON answer or throws an OAuthError. */
export async function tokenRequest(endpoint, form, client, server, signal) {
  const body = new URLSearchParams(form);
  const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  const method = authMethod(client, server);
  if (method === 'client_secret_basic') {
    headers.authorization = `Basic ${btoa(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`)}`;
  } else if (method === 'client_secret_post') {
    body.set('client_id', client.clientId);
    body.set('client_secret', client.clientSecret);
  } else if (method === 'private_key_jwt') {
    body.set('client_assertion_type', ASSERTION_TYPE);
    body.set('client_assertion', await signedAssertion(client, server.issuer ?? endpoint));
  } else {
    body.set('client_id', client.clientId);
  }
  const response = await oauthFetch(endpoint, { method: 'POST', headers, body }, 'the token endpoint', signal);
  let answer;
  try {
    answer = await response.json();
  } catch {
    answer = {};
  }
  if (!response.ok || typeof answer.access_token !== 'string') {
    const reason = answer.error ? `${answer.error}${answer.error_description ? `: ${answer.error_description}` : ''}` : `HTTP ${response.status}`;
    throw new OAuthError(`the token endpoint refused (${reason})`, { oauthError: answer.error, status: response.status });
  }
  return answer;
}

/** A stored token from a token answer. */
export function tokenRecord(answer, { issuer, resource, clientKey, requestedScope }) {
  const expiresIn = Number(answer.expires_in);
  return {
    accessToken: answer.access_token,
    tokenType: answer.token_type ?? 'Bearer',
    refreshToken: typeof answer.refresh_token === 'string' ? answer.refresh_token : undefined,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? Date.now() + expiresIn * 1000 : undefined,
    // A server that does not say which scopes it granted granted those asked for.
    scopes: answer.scope !== undefined ? scopeList(answer.scope) : scopeList(requestedScope),
    issuer,
    resource,
    clientKey,
    obtained: Date.now(),
  };
}

/** Redeems an authorization code. */
export function redeemCode({ server, client, code, verifier, redirectUri, resource, signal }) {
  return tokenRequest(server.token_endpoint, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    ...(resource ? { resource } : {}),
  }, client, server, signal);
}

/** Trades a refresh token for a new access token (scopes as before). */
export function refresh({ server, client, refreshToken, resource, signal }) {
  return tokenRequest(server.token_endpoint, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...(resource ? { resource } : {}),
  }, client, server, signal);
}

/** The client credentials grant (a page that holds its own credentials; no person). */
export function clientCredentials({ server, client, scope, resource, signal }) {
  return tokenRequest(server.token_endpoint, {
    grant_type: 'client_credentials',
    ...(scope ? { scope } : {}),
    ...(resource ? { resource } : {}),
  }, client, server, signal);
}

/**
 * Cross-app access (enterprise-managed authorization): the page's ID token from its identity
 * provider is exchanged there for an ID-JAG (RFC 8693), which the authorization server takes
 * as a JWT bearer grant (RFC 7523).
 */
export async function jwtBearer({ server, client, idToken, idpTokenEndpoint, idpClientId, resource, signal }) {
  const exchange = await tokenRequest(idpTokenEndpoint, {
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
    audience: server.issuer,
    resource,
    subject_token: idToken,
    subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
  }, { clientId: idpClientId }, { token_endpoint_auth_methods_supported: ['none'] }, signal);
  return tokenRequest(server.token_endpoint, {
    grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    assertion: exchange.access_token,
  }, client, server, signal);
}
