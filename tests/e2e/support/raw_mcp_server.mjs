// A small legacy-era (2025-11-25) MCP server over raw HTTP for the client's safety tests, where
// the official SDK would not misbehave on purpose: it can break a tools/call's event stream
// before the answer (no event id, so it cannot be resumed), send CORS headers that lack what a
// browser client needs, and demand a sign-in it does not describe. Two tools: `lookup`
// (annotated read-only) and `send` (no hints: not safe to repeat). It counts every call.
import http from 'node:http';
import { randomUUID } from 'node:crypto';

const TOOLS = [
  { name: 'lookup', description: 'Looks something up.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, annotations: { readOnlyHint: true } },
  { name: 'send', description: 'Sends a message.', inputSchema: { type: 'object', properties: { to: { type: 'string' } } } },
];

/**
 * @param {{allowHeaders?: string, allowOrigin?: string|null, exposeHeaders?: string,
 *   requireAuth?: boolean}} [options] `allowOrigin: null` sends no CORS headers at all
 */
export async function startRawMcpServer(options = {}) {
  const state = { calls: [], breakNext: {}, descriptions: {} };
  const server = http.createServer(async (req, res) => {
    if (options.allowOrigin !== null) {
      res.setHeader('access-control-allow-origin', options.allowOrigin ?? '*');
      res.setHeader('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
      res.setHeader('access-control-allow-headers', options.allowHeaders ?? '*');
      res.setHeader('access-control-expose-headers', options.exposeHeaders ?? 'mcp-session-id, www-authenticate');
    }
    if (req.method === 'OPTIONS') return res.writeHead(204).end();
    if (options.requireAuth) {
      return res.writeHead(401, { 'www-authenticate': 'Bearer realm="mcp"', 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
    }
    if (req.method === 'GET') return res.writeHead(405).end();
    if (req.method === 'DELETE') return res.writeHead(200).end();
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const reply = (result) => res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'raw-session' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    switch (message.method) {
      case 'initialize':
        return reply({ protocolVersion: '2025-11-25', serverInfo: { name: 'raw', version: '1' }, capabilities: { tools: {} } });
      case 'tools/list':
        return reply({ tools: TOOLS.map((t) => ({ ...t, description: state.descriptions[t.name] ?? t.description })) });
      case 'tools/call': {
        const name = message.params?.name;
        state.calls.push({ tool: name, args: message.params?.arguments, id: randomUUID() });
        if ((state.breakNext[name] ?? 0) > 0) {
          state.breakNext[name] -= 1;
          // The server may have done the work; the answer never arrives.
          res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'raw-session' });
          res.write(': working\n\n');
          setTimeout(() => res.socket?.destroy(), 50);
          return undefined;
        }
        return reply({ content: [{ type: 'text', text: `${name} done` }] });
      }
      default:
        if (message.id === undefined) return res.writeHead(202).end();
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'method not found' } }));
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    state,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
