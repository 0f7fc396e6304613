// A scripted loopback model provider for browser tests (Node 20, no dependencies).
//
//   node tests/support/mock_provider.mjs --port 8791      → prints "ready http://127.0.0.1:8791"
//
// POST /scenario/<name>/chat/completions   answers in OpenAI Chat Completions SSE
// POST /scenario/<name>/v1/messages        answers in Anthropic Messages SSE
// The behaviour is the part of <name> before the first '.', so tests can run the same behaviour
// under their own counter ("flaky-503.openai"). Behaviours: see SCENARIOS below.
// GET  /attempts/<name>   {attempts, times_ms, closed_early_ms, directed_wait_ms}
// POST /reset             clears every counter;  POST /reset/<name> clears one
// GET  /key-leaks         {requests_with_key, leaks: [{scenario, where}]}: the API key seen
//                         anywhere but its own header (URL, body, other headers)
// CORS is open (the test page is on another port) and preflights are answered.

import http from 'node:http';
import { openAiWriter, anthropicWriter, errorBody } from './mock_provider_formats.mjs';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers':
    'authorization, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access, content-type',
  'access-control-expose-headers': 'retry-after, retry-after-ms, x-should-retry, request-id',
  'access-control-max-age': '600',
};

const stats = new Map();
const keyHygiene = { requests_with_key: 0, leaks: [] };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function statsFor(name) {
  if (!stats.has(name)) stats.set(name, { attempts: 0, times_ms: [], closed_early_ms: [], directed_wait_ms: null });
  return stats.get(name);
}

function json(res, status, value, headers = {}) {
  res.writeHead(status, { ...CORS, 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

// Records where the key appears besides the header that carries it.
function checkKey(req, url, body, scenario) {
  const auth = req.headers.authorization ?? '';
  const key = auth.startsWith('Bearer ') ? auth.slice(7) : req.headers['x-api-key'];
  if (!key) return;
  keyHygiene.requests_with_key += 1;
  const carrier = auth.startsWith('Bearer ') ? 'authorization' : 'x-api-key';
  if (decodeURIComponent(url.href).includes(key)) keyHygiene.leaks.push({ scenario, where: 'url' });
  if (body.includes(key)) keyHygiene.leaks.push({ scenario, where: 'body' });
  for (const [name, value] of Object.entries(req.headers)) {
    if (name !== carrier && String(value).includes(key)) keyHygiene.leaks.push({ scenario, where: `header ${name}` });
  }
}

function sendError(res, w, status, extraHeaders = {}, message) {
  res.writeHead(status, { ...CORS, 'content-type': 'application/json', 'request-id': 'req_mock', ...extraHeaders });
  res.end(JSON.stringify(errorBody(w.provider, status, message)));
}

// Each behaviour gets (res, writer, attempt number from 1, context) and may be async.
const SCENARIOS = {
  text: (res, w) => w.text(res, ['Hello', ', wor', 'ld!']),
  tools: (res, w) => w.tools(res),
  // <status> on the first attempt, then text
  flaky: (res, w, n, ctx) => (n === 1 ? sendError(res, w, ctx.arg) : w.text(res, ['Recovered.'])),
  // <status> on every attempt; a 401 echoes the key the way real providers do
  status: (res, w, n, ctx) =>
    sendError(res, w, ctx.arg, {}, ctx.arg === 401 ? `Incorrect API key provided: ${ctx.key}.` : undefined),
  // 429 with retry-after-ms: <arg> once, then text
  'retry-after-ms': (res, w, n, ctx) =>
    n === 1 ? sendError(res, w, 429, { 'retry-after-ms': String(ctx.arg) }) : w.text(res, ['Waited.']),
  // 429 with retry-after: <arg> seconds once, then text
  'retry-after': (res, w, n, ctx) =>
    n === 1 ? sendError(res, w, 429, { 'retry-after': String(ctx.arg) }) : w.text(res, ['Waited.']),
  // 429 with retry-after as an HTTP-date about <arg> seconds ahead (whole seconds) once
  'retry-after-date': (res, w, n, ctx) => {
    if (n !== 1) return w.text(res, ['Waited.']);
    const at = Math.ceil((Date.now() + ctx.arg * 1000) / 1000) * 1000;
    ctx.stats.directed_wait_ms = at - Date.now();
    return sendError(res, w, 429, { 'retry-after': new Date(at).toUTCString() });
  },
  // 200, a ping, then an overloaded_error event (every attempt)
  'sse-error': (res, w) => w.sseError(res, []),
  // 200, some text, then an overloaded_error event
  'sse-error-after-text': (res, w) => w.sseError(res, ['Partial ']),
  // 200 and a no-output event, then the connection is reset; the next attempt succeeds
  'cut-before': async (res, w, n) => {
    if (n > 1) return w.text(res, ['After the cut.']);
    w.open(res);
    w.preamble(res);
    await sleep(50);
    res.socket?.destroy();
  },
  // 200, some text, then a clean end without the end marker (every attempt)
  'cut-after': async (res, w) => {
    w.open(res);
    w.preamble(res);
    for (const piece of ['The answer ', 'is ']) {
      w.delta(res, piece);
      await sleep(20);
    }
    res.end();
  },
  // 200, some text, then the connection is reset
  'reset-after': async (res, w) => {
    w.open(res);
    w.preamble(res);
    w.delta(res, 'Half a ');
    await sleep(50);
    res.socket?.destroy();
  },
  // response headers only after <arg> ms
  'slow-headers': async (res, w, n, ctx) => {
    await sleep(ctx.arg);
    if (!res.destroyed) w.text(res, ['Late.']);
  },
  // headers at once, first body bytes after <arg> ms
  'slow-body': async (res, w, n, ctx) => {
    w.open(res);
    await sleep(ctx.arg);
    if (!res.destroyed) w.text(res, ['Late.'], { opened: true });
  },
  // some text, then silence for <arg> ms, then the rest
  stall: async (res, w, n, ctx) => {
    w.open(res);
    w.preamble(res);
    w.delta(res, 'Before the stall.');
    await sleep(ctx.arg);
    if (!res.destroyed) w.text(res, [' After.'], { opened: true, preambled: true });
  },
  // one delta every 100 ms for 30 s (for abort tests)
  slow: async (res, w) => {
    w.open(res);
    w.preamble(res);
    for (let i = 0; i < 300 && !res.destroyed; i += 1) {
      w.delta(res, `tick ${i} `);
      await sleep(100);
    }
    if (!res.destroyed) w.finish(res);
  },
};

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function handleScenario(req, res, url, name, rest) {
  const body = await readBody(req);
  const provider = rest === 'chat/completions' ? 'openai' : rest === 'v1/messages' ? 'anthropic' : null;
  const behaviour = name.split('.')[0];
  const match = /^(.*?)(?:-(\d+))?$/.exec(behaviour);
  const base = SCENARIOS[behaviour] ? behaviour : match[1];
  const scenario = SCENARIOS[base];
  if (!provider || !scenario) return json(res, 404, { error: { type: 'not_found_error', message: `no route ${url.pathname}` } });
  const s = statsFor(name);
  s.attempts += 1;
  s.times_ms.push(Date.now());
  checkKey(req, url, body, name);
  res.on('close', () => {
    if (!res.writableFinished) s.closed_early_ms.push(Date.now());
  });
  req.socket.setNoDelay(true);
  const auth = req.headers.authorization ?? '';
  const ctx = {
    arg: match[2] == null ? null : Number(match[2]),
    key: auth.startsWith('Bearer ') ? auth.slice(7) : req.headers['x-api-key'] ?? '',
    stats: s,
  };
  const writer = provider === 'openai' ? openAiWriter(CORS) : anthropicWriter(CORS);
  await scenario(res, writer, s.attempts, ctx);
}

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://127.0.0.1');
    const parts = url.pathname.split('/').filter(Boolean);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      return res.end();
    }
    if (req.method === 'GET' && parts[0] === 'attempts' && parts.length === 2) {
      return json(res, 200, { name: parts[1], ...statsFor(parts[1]) });
    }
    if (req.method === 'GET' && parts[0] === 'key-leaks') return json(res, 200, keyHygiene);
    if (req.method === 'POST' && parts[0] === 'reset') {
      if (parts[1]) stats.delete(parts[1]);
      else {
        stats.clear();
        keyHygiene.requests_with_key = 0;
        keyHygiene.leaks = [];
      }
      return json(res, 200, { ok: true });
    }
    if (req.method === 'POST' && parts[0] === 'scenario' && parts.length >= 3) {
      return await handleScenario(req, res, url, parts[1], parts.slice(2).join('/'));
    }
    return json(res, 404, { error: { type: 'not_found_error', message: `no route ${url.pathname}` } });
  } catch (err) {
    if (!res.headersSent) json(res, 500, { error: { type: 'mock_error', message: String(err?.message ?? err) } });
    else res.destroy();
  }
});

const portArg = process.argv.indexOf('--port');
const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : 8791;
server.listen(port, '127.0.0.1', () => {
  console.log(`ready http://127.0.0.1:${server.address().port}`);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
