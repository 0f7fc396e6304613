// Owns one MCP server's authorisation, as the transport sees it: the `Authorization` header for
// each request (refreshing a token about to expire), and what to do with a 401 or 403. A 401
// refreshes a refused token once, else signs in: discovery (discovery.js), the client's
// identity (registration.js), scopes (the challenge's, else the resource's `scopes_supported`,
// else none; `offline_access` only where the authorization server lists it), the person's
// sign-in (flow.js, resumed when a reload interrupted it), the issuer check of the answer
// (RFC 9207), and the code's redemption. A 403 `insufficient_scope` steps up to the scopes the
// challenge names on top of those held, at most twice in a row. Tokens are kept in the MCP
// store by server URL (tokens.js): never in a session's log or export.

import { bearerChallenge, scopeList } from './challenge.js';
import { discover, OAuthError, canonicalResource } from './discovery.js';
import { clientFor } from './registration.js';
import { defaultRedirectUri, pendingFlow, startFlow, awaitAnswer, endFlow } from './flow.js';
import { redeemCode, refresh, clientCredentials, jwtBearer, tokenRecord } from './token.js';
import { loadToken, saveToken, dropToken } from './tokens.js';

/** A token this close to its expiry (or in its last quarter) is refreshed before use. */
const REFRESH_MARGIN_MS = 30_000;
const MAX_STEP_UPS = 2;

function union(a, b) {
  return [...new Set([...a, ...b])];
}

/** The page's own Client ID Metadata Document, where a static site serves one. */
function defaultClientMetadataUrl() {
  const base = globalThis.TABLOOP_BASE ?? globalThis.document?.baseURI;
  return base ? new URL('oauth-client.json', base).href : undefined;
}

/**
 * @param {{serverUrl: string, mode?: 'popup'|'redirect', redirectUri?: string, clientId?: string,
 *   clientSecret?: string, privateKeyPem?: string, signingAlgorithm?: string,
 *   clientMetadataUrl?: string, clientName?: string, scope?: string,
 *   grant?: 'authorization_code'|'client_credentials'|'jwt_bearer', idToken?: string,
 *   idpTokenEndpoint?: string, idpClientId?: string, onSignIn?: Function}} options
 */
export function createOAuthHandler(options) {
  const serverUrl = canonicalResource(options.serverUrl);
  const redirectUri = options.redirectUri ?? defaultRedirectUri();
  const grant = options.grant ?? 'authorization_code';
  let token;
  let loaded = false;
  let refreshing;
  let stepUps = 0;
  /** Where the last sign-in went: the authorization server and client, for refreshes. */
  let context;

  async function current() {
    if (!loaded) {
      token = await loadToken(serverUrl).catch(() => undefined);
      loaded = true;
    }
    return token;
  }

  async function keep(answer, found, client, requestedScope) {
    token = tokenRecord(answer, { issuer: found.issuer, resource: found.resource, clientKey: client.clientId, requestedScope });
    token.serverUrl = serverUrl;
    token.tokenEndpoint = found.server.token_endpoint;
    token.revocationEndpoint = found.server.revocation_endpoint;
    token.client = { clientId: client.clientId, clientSecret: client.clientSecret, tokenEndpointAuthMethod: client.tokenEndpointAuthMethod };
    context = { found, client };
    await saveToken(serverUrl, token).catch(() => {});
  }

  /** Uses the refresh token; false when there is none or the server refused it. */
  function refreshToken(signal) {
    refreshing ??= (async () => {
      const held = await current();
      if (!held?.refreshToken || !held.tokenEndpoint) return false;
      const server = context?.found.server ?? { token_endpoint: held.tokenEndpoint, issuer: held.issuer };
      const client = context?.client ?? held.client;
      try {
        const answer = await refresh({ server, client, refreshToken: held.refreshToken, resource: held.resource, signal });
        const next = tokenRecord(answer, { issuer: held.issuer, resource: held.resource, clientKey: held.clientKey, requestedScope: held.scopes.join(' ') });
        // A server may keep the refresh token and not send it again.
        token = { ...held, ...next, refreshToken: next.refreshToken ?? held.refreshToken };
        await saveToken(serverUrl, token).catch(() => {});
        return true;
      } catch {
        return false;
      }
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  function chooseScope(challenge, found, override) {
    if (override !== undefined) return override;
    if (options.scope) return options.scope;
    const scopes = challenge.scope ? scopeList(challenge.scope) : Array.isArray(found.scopesSupported) ? found.scopesSupported.map(String) : [];
    const asScopes = found.server.scopes_supported;
    if (grant === 'authorization_code' && scopes.length > 0 && Array.isArray(asScopes) && asScopes.includes('offline_access') && !scopes.includes('offline_access')) {
      scopes.push('offline_access');
    }
    return scopes.length ? scopes.join(' ') : undefined;
  }

  async function signIn(challenge, scopeOverride, signal, headerHidden) {
    const found = await discover(serverUrl, challenge, { signal, headerHidden });
    const scope = chooseScope(challenge, found, scopeOverride);
    if (grant === 'client_credentials' || grant === 'jwt_bearer') {
      const client = { clientId: options.clientId, clientSecret: options.clientSecret, privateKeyPem: options.privateKeyPem, signingAlgorithm: options.signingAlgorithm };
      if (!client.clientId) throw new OAuthError(`the ${grant} grant needs oauth: { clientId }`);
      const answer = grant === 'client_credentials'
        ? await clientCredentials({ server: found.server, client, scope, resource: found.resource, signal })
        : await jwtBearer({ server: found.server, client, idToken: options.idToken, idpTokenEndpoint: options.idpTokenEndpoint, idpClientId: options.idpClientId, resource: found.resource, signal });
      await keep(answer, found, client, scope);
      return;
    }
    const methods = found.server.code_challenge_methods_supported;
    if (!found.server.fallback && !(Array.isArray(methods) && methods.includes('S256'))) {
      throw new OAuthError(`the authorization server ${found.issuer} does not say it supports PKCE with S256 (code_challenge_methods_supported): not signing in`);
    }
    const client = await clientFor(found, {
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      clientMetadataUrl: options.clientMetadataUrl ?? defaultClientMetadataUrl(),
      checkDocument: options.clientMetadataUrl === undefined,
      clientName: options.clientName,
      redirectUri,
      scope,
    });
    // A sign-in this page started before a reload is finished instead of starting another.
    let flow = options.fresh ? undefined : await pendingFlow(serverUrl);
    if (flow && (flow.issuer !== found.issuer || flow.clientId !== client.clientId || (scope && flow.scope !== scope))) flow = undefined;
    options.onSignIn?.({ server: serverUrl, issuer: found.issuer, scope, resumed: Boolean(flow) });
    flow ??= await startFlow({ serverUrl, found, client, scope, resource: found.resource, redirectUri, mode: options.mode ?? 'popup' });
    let answer;
    try {
      answer = await awaitAnswer(flow, signal);
      // RFC 9207: an answer naming another issuer is a mix-up; one that must name it, does.
      if (answer.iss !== undefined && answer.iss !== found.issuer) {
        throw new OAuthError(`the sign-in answer came from issuer ${JSON.stringify(answer.iss)}, not ${found.issuer}: refused`);
      }
      if (answer.iss === undefined && found.server.authorization_response_iss_parameter_supported === true) {
        throw new OAuthError(`the sign-in answer does not name its issuer, which ${found.issuer} says it always does: refused`);
      }
      const tokens = await redeemCode({ server: found.server, client, code: answer.code, verifier: flow.verifier, redirectUri, resource: found.resource, signal });
      await keep(tokens, found, client, scope);
    } finally {
      await endFlow(flow);
    }
  }

  return {
    /** The Authorization header value for the next request, or undefined. */
    async header() {
      const held = await current();
      if (!held) return undefined;
      if (held.expiresAt && held.refreshToken) {
        // A short-lived token is refreshed in its last quarter, a long one in its last 30 s.
        const margin = Math.min(REFRESH_MARGIN_MS, (held.expiresAt - (held.obtained ?? held.expiresAt)) / 4);
        if (held.expiresAt - margin < Date.now()) await refreshToken();
      }
      return token ? `Bearer ${token.accessToken}` : undefined;
    },

    /** Handles a 401/403; resolves true when the request should be sent again. */
    async challenge(response, { signal } = {}) {
      const header = response.headers.get('www-authenticate');
      const challenge = bearerChallenge(header);
      if (response.status === 401) {
        const held = await current();
        if (held && (await refreshToken(signal))) return true;
        if (held) {
          token = undefined;
          await dropToken(serverUrl).catch(() => {});
        }
        await signIn(challenge, undefined, signal, header === null);
        stepUps = 0;
        return true;
      }
      if (response.status === 403 && challenge.error === 'insufficient_scope') {
        if (stepUps >= MAX_STEP_UPS) {
          stepUps = 0;
          return false;
        }
        stepUps += 1;
        const wanted = union(token?.scopes ?? [], scopeList(challenge.scope));
        await signIn(challenge, wanted.length ? wanted.join(' ') : undefined, signal, header === null);
        return true;
      }
      return false;
    },

    /** The request went through: the next 403 starts a fresh count of step-ups. */
    succeeded() {
      stepUps = 0;
    },
  };
}
