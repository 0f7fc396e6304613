// A scripted OpenAI-compatible Chat Completions server on loopback for end-to-end tests and
// drills: each request takes the next scripted reply, or asks `respond(body)` when given. A reply
// is text, tool calls, 'hold' (never answer), { wait: Promise<reply> } (answer later), 'cut' (some text, then the connection drops), or a
// fault: an HTTP status, an SSE error event, a stream dropped at a named phase, or a stream that
// stalls after its first chunk. CORS-enabled; side effects of tools are counted on /side-effect.
import http from 'node:http';
import { EventEmitter } from 'node:events';

const CORS = { 'access-control-allow-origin': '*' };
const SSE_HEAD = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...CORS };
const USAGE = { prompt_tokens: 20, completion_tokens: 5 };

const frame = (chunk) => `data: ${JSON.stringify(chunk)}\n\n`;

function toolCalls(reply) {
  return reply.calls.map((c, index) => ({
    index,
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: c.rawArgs ?? JSON.stringify(c.args) },
  }));
}

/** The SSE chunks of a text or tool-call reply, without the [DONE] marker. */
export function replyChunks(reply) {
  if (reply.text !== undefined) {
    return [
      { choices: [{ index: 0, delta: { role: 'assistant', content: reply.text } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      { choices: [], usage: USAGE },
    ];
  }
  return [
    { choices: [{ index: 0, delta: { role: 'assistant', tool_calls: toolCalls(reply) } }] },
    { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    { choices: [], usage: USAGE },
  ];
}

/**
 * Writes a stream that breaks at `phase`: 'before_first_byte' (the socket closes before any
 * header), 'mid_text' (half the text, then the connection drops), 'mid_args' (a tool call with
 * half its arguments, then the drop), 'before_end' (the whole reply and its finish reason, no
 * [DONE], then the drop).
 */
function dropAt(req, res, phase, reply) {
  if (phase === 'before_first_byte') return req.socket.destroy();
  res.writeHead(200, SSE_HEAD);
  if (phase === 'mid_text') {
    const text = reply.text ?? 'partial answer that will be cut';
    res.write(frame({ choices: [{ index: 0, delta: { role: 'assistant', content: text.slice(0, Math.ceil(text.length / 2)) } }] }));
  } else if (phase === 'mid_args') {
    const [call] = toolCalls(reply);
    const half = call.function.arguments.slice(0, Math.ceil(call.function.arguments.length / 2));
    res.write(frame({ choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ ...call, function: { name: call.function.name, arguments: half } }] } }] }));
  } else if (phase === 'before_end') {
    for (const chunk of replyChunks(reply).slice(0, 2)) res.write(frame(chunk));
  } else {
    throw new Error(`unknown drop phase ${phase}`);
  }
  setTimeout(() => res.destroy(), 50);
}

/**
 * Starts the server. `script` is consumed one reply per request (push more with `script.push`);
 * `options.respond(body, request)`, when given, answers instead and may return any reply kind;
 * `options.closeConnections` turns keep-alive off.
 * `emitter` emits 'request' (body), 'responded' (body, reply) once a reply was fully written,
 * 'chunk' after the first chunk of a stalled stream, and 'side-effect' (url).
 */
export async function scriptedOpenAi(options = {}) {
  const script = [];
  const requests = [];
  const held = [];
  const sideEffects = [];
  const emitter = new EventEmitter();
  const server = http.createServer((req, res) => {
    // No keep-alive when asked: Chromium itself resends a request that got a 408 on a reused
    // socket, which would count as an attempt the client under test never made.
    if (options.closeConnections) res.setHeader('connection', 'close');
    // A side effect a tool performs, counted so tests can tell how often it really happened.
    if (req.url.startsWith('/side-effect')) {
      sideEffects.push(req.url);
      res.writeHead(200, { ...CORS, 'content-type': 'application/json' });
      res.end('{"ok":true}');
      emitter.emit('side-effect', req.url);
      return undefined;
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        ...CORS,
        'access-control-allow-headers': 'authorization, content-type',
        'access-control-allow-methods': 'POST, OPTIONS',
      });
      return res.end();
    }
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const parsed = JSON.parse(body || '{}');
      requests.push({ url: req.url, headers: req.headers, body: parsed, at: Date.now() });
      emitter.emit('request', parsed);
      const next = options.respond ? options.respond(parsed, req) : script.shift();
      answer(req, res, next, parsed);
    });
  });
  function answer(req, res, next, parsed) {
    if (!next) {
      res.writeHead(500, CORS).end('{"error":{"message":"script exhausted"}}');
    } else if (next === 'hold') {
      held.push(res);
    } else if (next.wait !== undefined) {
      // Answered once the test decides: `wait` resolves to the reply.
      next.wait.then((reply) => answer(req, res, reply, parsed));
    } else if (next === 'cut' || next.cut !== undefined) {
      // Some text, then the connection drops: no finish reason, no [DONE].
      res.writeHead(200, SSE_HEAD);
      const text = next.cut ?? 'partial answer that will be cut';
      res.write(frame({ choices: [{ index: 0, delta: { role: 'assistant', content: text } }] }));
      setTimeout(() => res.destroy(), 50);
    } else if (next.status !== undefined) {
      res.writeHead(next.status, { ...CORS, 'access-control-expose-headers': '*', 'content-type': 'application/json', ...next.headers });
      res.end(JSON.stringify(next.body ?? { error: { message: `scripted ${next.status}`, type: 'scripted' } }));
    } else if (next.drop !== undefined) {
      dropAt(req, res, next.drop, next);
    } else if (next.sseError !== undefined) {
      res.writeHead(200, SSE_HEAD);
      if (next.text) res.write(frame({ choices: [{ index: 0, delta: { role: 'assistant', content: next.text } }] }));
      res.end(`${next.event ? 'event: error\n' : ''}data: ${JSON.stringify({ error: next.sseError })}\n\n`);
    } else if (next.stall) {
      // The first chunk, then nothing: a stream that is mid-way when the test acts.
      res.writeHead(200, SSE_HEAD);
      res.write(frame(replyChunks(next)[0]));
      held.push(res);
      emitter.emit('chunk', parsed);
    } else {
      res.writeHead(200, SSE_HEAD);
      for (const chunk of replyChunks(next)) res.write(frame(chunk));
      res.end('data: [DONE]\n\n', () => emitter.emit('responded', parsed, next));
    }
  }
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    script,
    requests,
    sideEffects,
    emitter,
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
