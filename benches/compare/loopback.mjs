// The loopback HTTP mock both loops talk to in the end-to-end figure: an OpenAI-compatible
// streaming Chat Completions endpoint at /s<steps>/v1/chat/completions. It is stateless: while
// the request holds fewer than steps-1 tool results it answers with one no-op tool call,
// then with text. CORS-enabled; counts requests.
import http from 'node:http';

function sse(res, chunks) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'access-control-allow-origin': '*' });
  let body = '';
  for (const chunk of chunks) body += `data: ${JSON.stringify(chunk)}\n\n`;
  res.end(`${body}data: [DONE]\n\n`);
}

function reply(toolResults, steps) {
  const head = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model' };
  const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
  if (toolResults < steps - 1) {
    const call = { index: 0, id: `call_${toolResults}`, type: 'function', function: { name: 'noop', arguments: JSON.stringify({ i: toolResults }) } };
    return [
      { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: null }] },
      { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
      { ...head, choices: [], usage },
    ];
  }
  return [
    { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: 'done' }, finish_reason: null }] },
    { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    { ...head, choices: [], usage },
  ];
}

/** Starts the mock; `urlFor(steps)` is the base URL of a `steps`-step run. */
export async function loopbackMock() {
  let requests = 0;
  const server = http.createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-headers': '*',
        'access-control-allow-methods': 'POST, OPTIONS',
      });
      return res.end();
    }
    const match = /^\/s(\d+)\/v1\/chat\/completions/.exec(req.url);
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      requests += 1;
      if (!match) return res.writeHead(404, { 'access-control-allow-origin': '*' }).end('{"error":{"message":"no such route"}}');
      let parsed;
      try {
        parsed = JSON.parse(body);
      } catch {
        return res.writeHead(400, { 'access-control-allow-origin': '*' }).end('{"error":{"message":"bad json"}}');
      }
      const toolResults = (parsed.messages ?? []).filter((m) => m.role === 'tool').length;
      sse(res, reply(toolResults, Number(match[1])));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    urlFor: (steps) => `${origin}/s${steps}/v1`,
    requests: () => requests,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
