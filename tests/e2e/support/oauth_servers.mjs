// An OAuth-protected MCP server on loopback for the end-to-end tests, with a real authorization
// server: npm oidc-provider (pinned in package.json) with its development login and consent
// pages, dynamic client registration, PKCE, resource indicators (JWT access tokens for the MCP
// server's URL), refresh tokens and revocation. The MCP server (the official SDK, stateful
// sessions) publishes its protected-resource metadata, answers 401 with a Bearer challenge
// naming it, checks each token's signature, issuer, audience and expiry against the
// authorization server's keys, and records the tokens it was shown. Both send CORS headers a
// browser needs (the MCP server exposes WWW-Authenticate and Mcp-Session-Id).
import http from 'node:http';
import { freePort } from './free_port.mjs';
import { randomUUID } from 'node:crypto';
import Provider, { errors } from 'oidc-provider';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

const SCOPE = 'mcp:tools';

/**
 * Starts both servers. `accessTokenTTL` (seconds) is short in the refresh test.
 * @returns {Promise<{issuer: string, url: string, state: object, close: () => Promise<void>}>}
 */
export async function startOAuthServers({ accessTokenTTL = 600 } = {}) {
  const [asPort, rsPort] = [await freePort(), await freePort()];
  const issuer = `http://127.0.0.1:${asPort}`;
  const resource = `http://127.0.0.1:${rsPort}/mcp`;
  const state = { asRequests: [], grants: [], issued: [], tokensSeen: [], calls: [], unauthorized: 0 };

  const provider = new Provider(issuer, {
    clients: [],
    cookies: { keys: ['tabloop-e2e-cookie-key'] },
    scopes: ['openid', 'offline_access', SCOPE],
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget();
          return { scope: SCOPE, audience: resource, accessTokenTTL, accessTokenFormat: 'jwt' };
        },
      },
    },
    issueRefreshToken: async (ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: accessTokenTTL, RefreshToken: 3600, Grant: 3600, Session: 3600, Interaction: 600, AuthorizationCode: 60 },
    clientBasedCORS: () => true,
  });
  // oidc-provider sends CORS headers on discovery, its keys and the token endpoint, not on
  // registration: a deployment that takes browser clients adds them there.
  provider.use(async (ctx, next) => {
    if (ctx.path === '/reg') {
      ctx.set('access-control-allow-origin', ctx.get('origin') || '*');
      if (ctx.method === 'OPTIONS') {
        ctx.set('access-control-allow-methods', 'POST');
        ctx.set('access-control-allow-headers', ctx.get('access-control-request-headers') || 'content-type');
        ctx.status = 204;
        return;
      }
    }
    await next();
  });
  provider.use(async (ctx, next) => {
    state.asRequests.push(`${ctx.method} ${ctx.path}`);
    await next();
    if (ctx.path === '/token' && ctx.method === 'POST') {
      state.grants.push(ctx.oidc?.params?.grant_type);
      // Every token handed out, to look for it where it must not be.
      for (const key of ['access_token', 'refresh_token']) if (typeof ctx.body?.[key] === 'string') state.issued.push(ctx.body[key]);
    }
  });
  const asServer = http.createServer(provider.callback());
  await new Promise((resolve) => asServer.listen(asPort, '127.0.0.1', resolve));

  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-headers': '*',
    'access-control-expose-headers': 'mcp-session-id, www-authenticate',
  };
  const sessions = new Map();
  const challenge = `Bearer resource_metadata="http://127.0.0.1:${rsPort}/.well-known/oauth-protected-resource/mcp", scope="${SCOPE}"`;
  const rsServer = http.createServer(async (req, res) => {
    for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
    if (req.method === 'OPTIONS') return res.writeHead(204).end();
    const url = new URL(req.url, `http://${req.headers.host}`);
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource, authorization_servers: [issuer], scopes_supported: [SCOPE], bearer_methods_supported: ['header'] }));
    }
    if (url.pathname !== '/mcp') return res.writeHead(404).end();
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer, audience: resource });
      if (!String(payload.scope ?? '').split(' ').includes(SCOPE)) throw new Error('scope');
      state.tokensSeen.push(token);
    } catch {
      state.unauthorized += 1;
      return res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': token ? `${challenge}, error="invalid_token"` : challenge }).end('{"error":"unauthorized"}');
    }
    let body;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }
    const id = req.headers['mcp-session-id'];
    let session = id ? sessions.get(id) : undefined;
    if (!session && req.method === 'POST' && body?.method === 'initialize') {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => sessions.set(sid, session) });
      const server = new McpServer({ name: 'protected', version: '1.0.0' });
      server.registerTool('whoami', { description: 'Says who is signed in.', inputSchema: { note: z.string().optional() } }, async ({ note }) => {
        state.calls.push({ tool: 'whoami', note });
        return { content: [{ type: 'text', text: `signed in${note ? `: ${note}` : ''}` }] };
      });
      session = { transport, server };
      await server.connect(transport);
    }
    if (!session) {
      return res.writeHead(id ? 404 : 400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no session' }, id: null }));
    }
    return session.transport.handleRequest(req, res, body);
  });
  await new Promise((resolve) => rsServer.listen(rsPort, '127.0.0.1', resolve));

  return {
    issuer,
    url: resource,
    state,
    async close() {
      for (const session of sessions.values()) await session.transport.close().catch(() => {});
      for (const server of [asServer, rsServer]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}

/** Signs in on oidc-provider's development pages shown in `popup`: login, then consent. */
export async function signInOnPopup(popup, login = 'ada') {
  await popup.waitForLoadState('domcontentloaded');
  await popup.waitForSelector('input[name=login]', { timeout: 20_000 });
  await popup.fill('input[name=login]', login);
  await popup.fill('input[name=password]', 'any');
  await Promise.all([popup.waitForNavigation(), popup.click('button[type=submit]')]);
  await popup.waitForSelector('button[type=submit]', { timeout: 20_000 });
  await popup.click('button[type=submit]');
}
