// A scripted OpenAI-compatible Chat Completions server on loopback for end-to-end tests: each
// request takes the next scripted reply (text, tool calls, 'hold' = never answer, or 'cut' = some
// text, then the connection drops). CORS-enabled.
import http from 'node:http';

function sse(res, chunks) {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'access-control-allow-origin': '*',
  });
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  res.end('data: [DONE]\n\n');
}

function replyChunks(reply) {
  const usage = { prompt_tokens: 20, completion_tokens: 5 };
  if (reply.text !== undefined) {
    return [
      { choices: [{ index: 0, delta: { role: 'assistant', content: reply.text } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      { choices: [], usage },
    ];
  }
  const calls = reply.calls.map((c, index) => ({
    index,
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
  return [
    { choices: [{ index: 0, delta: { role: 'assistant', tool_calls: calls } }] },
    { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    { choices: [], usage },
  ];
}

/** Starts the server. `script` is consumed one reply per request; push more with `script.push`. */
export async function scriptedOpenAi() {
  const script = [];
  const requests = [];
  const held = [];
  const sideEffects = [];
  const server = http.createServer((req, res) => {
    // A side effect a tool performs, counted so tests can tell how often it really happened.
    if (req.url.startsWith('/side-effect')) {
      sideEffects.push(req.url);
      res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'application/json' });
      return res.end('{"ok":true}');
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-headers': 'authorization, content-type',
        'access-control-allow-methods': 'POST, OPTIONS',
      });
      return res.end();
    }
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      requests.push({ url: req.url, headers: req.headers, body: JSON.parse(body || '{}') });
      const next = script.shift();
      if (!next) {
        res.writeHead(500, { 'access-control-allow-origin': '*' }).end('{"error":{"message":"script exhausted"}}');
      } else if (next === 'hold') {
        held.push(res);
      } else if (next === 'cut' || next.cut !== undefined) {
        // Some text, then the connection drops: no finish reason, no [DONE].
        res.writeHead(200, { 'content-type': 'text/event-stream', 'access-control-allow-origin': '*' });
        const text = next.cut ?? 'partial answer that will be cut';
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: text } }] })}\n\n`);
        setTimeout(() => res.destroy(), 50);
      } else {
        sse(res, replyChunks(next));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    script,
    requests,
    sideEffects,
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
