// A real MCP server for the end-to-end tests, built with the official TypeScript SDK
// (`McpServer` + `StreamableHTTPServerTransport`, stateful sessions) on loopback, with CORS for
// the test page's origin. It records the headers it saw and the calls it served, and lets a
// test change a tool's definition (which notifies connected clients) or stop the server.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema, CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id',
  'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version',
  'access-control-max-age': '600',
};

/** The tools of the main test server, registered on each session's `McpServer`. */
function registerTools(server, state) {
  const tools = {};
  tools.echo = server.registerTool('echo', {
    description: state.echoDescription,
    inputSchema: { text: z.string().describe('what to echo') },
  }, async ({ text }) => {
    state.calls.push({ tool: 'echo', text });
    return { content: [{ type: 'text', text: `echo: ${text}` }] };
  });
  tools.fail = server.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => {
    state.calls.push({ tool: 'fail' });
    return { isError: true, content: [{ type: 'text', text: 'the thing broke' }] };
  });
  tools.html = server.registerTool('html', { description: 'Returns markup.', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: '<img src=x onerror="window.pwned=1">' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }],
  }));
  tools.slow = server.registerTool('slow', { description: 'Waits.', inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
    state.calls.push({ tool: 'slow', ms });
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener('abort', () => {
        state.cancelled.push('slow');
        clearTimeout(timer);
        resolve();
      });
    });
    return { content: [{ type: 'text', text: 'waited' }] };
  });
  return tools;
}

/** A low-level SDK server whose tool list comes in pages of two (cursor pagination). */
function pagedServer() {
  const server = new Server({ name: 'paged', version: '1.0.0' }, { capabilities: { tools: {} } });
  const all = ['one', 'two', 'three'].map((name) => ({ name, description: `Tool ${name}.`, inputSchema: { type: 'object', properties: {} } }));
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const next = start + 2 < all.length ? String(start + 2) : undefined;
    return { tools: all.slice(start, start + 2), ...(next ? { nextCursor: next } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: `ran ${request.params.name}` }] }));
  return server;
}

/**
 * Starts the server on 127.0.0.1.
 * @param {{token?: string, paged?: boolean}} [options] `token`: require `Authorization: Bearer <token>`
 */
export async function startMcpServer(options = {}) {
  const state = { echoDescription: 'Echoes the text back.', calls: [], cancelled: [], requests: [], sessions: new Map() };
  const httpServer = http.createServer(async (req, res) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    state.requests.push({ method: req.method, headers: { ...req.headers } });
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    let body;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    }
    const id = req.headers['mcp-session-id'];
    let session = id ? state.sessions.get(id) : undefined;
    if (!session && req.method === 'POST' && body?.method === 'initialize') {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => state.sessions.set(sid, session),
      });
      const server = options.paged ? pagedServer() : new McpServer({ name: 'test-server', version: '1.0.0' });
      session = { transport, server, tools: options.paged ? {} : registerTools(server, state) };
      transport.onclose = () => {
        if (transport.sessionId) state.sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
    }
    if (!session) {
      res.writeHead(id ? 404 : 400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no session' }, id: null }));
      return;
    }
    await session.transport.handleRequest(req, res, body);
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${httpServer.address().port}/mcp`;
  return {
    url,
    state,
    /** Changes the echo tool's description in every session; the SDK notifies the clients. */
    changeEchoDescription(description) {
      state.echoDescription = description;
      for (const session of state.sessions.values()) session.tools.echo?.update({ description });
    },
    /** Adds a tool to every session (list_changed again). */
    addTool(name) {
      for (const session of state.sessions.values()) {
        session.tools[name] = session.server.registerTool(name, { description: `Added ${name}.`, inputSchema: {} }, async () => ({ content: [{ type: 'text', text: name }] }));
      }
    },
    /** Forgets every session, as a restarted server would: later requests get 404. */
    forgetSessions() {
      state.sessions.clear();
    },
    async close() {
      for (const session of state.sessions.values()) await session.transport.close().catch(() => {});
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}
