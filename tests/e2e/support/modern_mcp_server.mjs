// A modern-only (2026-07-28, stateless) MCP server on loopback for the end-to-end tests, built
// with the official TypeScript SDK v2 (`@modelcontextprotocol/server`, `createMcpHandler` with
// `legacy: 'reject'`): no initialize, no sessions; what it needs from the client (a person's
// confirmation, a completion of the session's model, the roots) it asks for in an
// InputRequiredResult with a request state, and change notifications go out on
// `subscriptions/listen` streams. CORS for the test page; it records every request it served.
import http from 'node:http';
import { McpServer, createMcpHandler, inputRequired, acceptedContent, inputResponse } from '@modelcontextprotocol/server';
import * as z from 'zod';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': '*',
  'access-control-expose-headers': '*',
};

/** Starts the server; `state.extraTool` adds a tool to the next lists (see `addTool`). */
export async function startModernMcpServer() {
  const state = { requests: [], deployed: [], extraTool: false, notes: 'first note' };
  const factory = () => {
    const server = new McpServer({ name: 'modern', version: '2.0.0' }, { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, logging: {} } });
    server.registerTool('deploy', { description: 'Deploys, once a person confirms.', inputSchema: { env: z.string() } }, async ({ env }, ctx) => {
      const confirmation = acceptedContent(ctx.mcpReq.inputResponses, 'confirm');
      if (confirmation?.confirm !== true) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Deploy to ${env}?`,
              requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: 'Confirm', default: false }, note: { type: 'string', title: 'Note', default: 'none' } }, required: ['confirm'] },
            }),
          },
          requestState: `deploy:${env}`,
        });
      }
      state.deployed.push({ env, state: ctx.mcpReq.requestState(), note: confirmation.note });
      return { content: [{ type: 'text', text: `deployed to ${env} (${confirmation.note})` }] };
    });
    server.registerTool('colour', { description: 'Asks the client model for a colour.', inputSchema: {} }, async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'pick');
      if (answer.kind !== 'sampling') {
        return inputRequired({ inputRequests: { pick: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Name one colour.' } }], maxTokens: 10 }) } });
      }
      return { content: [{ type: 'text', text: `the model picked ${answer.result.content.text}` }] };
    });
    server.registerTool('where', { description: 'Lists the client roots.', inputSchema: {} }, async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'roots');
      if (answer.kind !== 'roots') return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
      return { content: [{ type: 'text', text: answer.roots.map((r) => r.uri).join(' ') }] };
    });
    server.registerTool('count', { description: 'Counts with progress and log messages.', inputSchema: { to: z.number() } }, async ({ to }, ctx) => {
      for (let i = 1; i <= to; i++) {
        if (ctx.mcpReq._meta?.progressToken !== undefined) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: ctx.mcpReq._meta.progressToken, progress: i, total: to } });
        }
        await ctx.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data: `counted ${i}` } });
        await new Promise((r) => setTimeout(r, 20));
      }
      return { content: [{ type: 'text', text: `counted to ${to}` }] };
    });
    if (state.extraTool) {
      server.registerTool('extra', { description: 'Added while the client was connected.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'extra' }] }));
    }
    server.registerResource('note', 'memo://note', { mimeType: 'text/plain' }, async () => ({ contents: [{ uri: 'memo://note', mimeType: 'text/plain', text: state.notes }] }));
    return server;
  };
  const handler = createMcpHandler(factory, { legacy: 'reject', keepAliveMs: 0 });
  const httpServer = http.createServer(async (req, res) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    if (req.method === 'OPTIONS') return res.writeHead(204).end();
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    let message;
    try {
      message = body ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      message = undefined;
    }
    state.requests.push({ method: message?.method, headers: { ...req.headers }, params: message?.params });
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: req.headers, body, signal: controller.signal });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return res.end();
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // The client went away.
    }
    return res.end();
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${httpServer.address().port}/mcp`,
    state,
    /** Adds the `extra` tool and tells open listen streams. */
    addTool() {
      state.extraTool = true;
      handler.notify.toolsChanged();
    },
    /** Changes the note resource and tells its subscribers. */
    changeNote(text) {
      state.notes = text;
      handler.notify.resourceUpdated('memo://note');
    },
    async close() {
      await handler.close();
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}
