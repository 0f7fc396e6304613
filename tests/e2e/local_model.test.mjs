// End-to-end tests of the in-tab local model (www/local/*.js + SmolLM2-135M) in headless
// Chromium, on tabloop's engine (the default) and on wllama (other models, the GPU): download
// with progress, browser-storage cache across a reload, streamed text, JSON-Schema- and
// GBNF-constrained tool calls, abort (while writing and while reading the prompt), both thread
// modes (cross-origin isolated or not), the prompt reused across steps, jump-forward and drafts
// from the context writing what sampling every token writes, a model the engine does not run
// going to wllama, and a large download no storage keeps running from the page's memory.
// Needs the model assets: run `bash scripts/fetch-model-assets.sh` first.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from './support/server.mjs';
import { launchBrowser } from './support/browser.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const WWW = path.join(REPO, 'www');
const PAGE = path.join(HERE, 'pages/local-model.html');
const MODEL_PATH = '/models/smollm2-135m-instruct-q8_0.gguf';
const MODEL_BYTES = 144_811_072;
const ISOLATION_HEADERS = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
};

// The tool-call schema the agent loop uses with the local model: call read_file, or answer.
const TOOL_SCHEMA = {
  oneOf: [
    {
      type: 'object',
      properties: {
        tool: { const: 'read_file' },
        arguments: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
      required: ['tool', 'arguments'],
    },
    { type: 'object', properties: { final: { type: 'string' } }, required: ['final'] },
  ],
};
const TOOL_MESSAGES = [
  {
    role: 'system',
    content:
      'You are an agent that works on files. You have one tool:\n' +
      '- read_file(path: string): returns the text of the file at path.\n' +
      'Reply with JSON only. To call the tool: {"tool":"read_file","arguments":{"path":"<path>"}}. ' +
      'To answer the user: {"final":"<answer>"}.',
  },
  { role: 'user', content: 'Read the file notes.txt.' },
];

function matchesToolSchema(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  if ('tool' in value) {
    const args = value.arguments;
    const ok = value.tool === 'read_file' && args !== null && typeof args === 'object' && !Array.isArray(args) &&
      typeof args.path === 'string';
    return ok ? 'tool' : null;
  }
  return typeof value.final === 'string' ? 'final' : null;
}

function assetsProblem() {
  const model = path.join(WWW, MODEL_PATH);
  const vendor = path.join(WWW, 'vendor/wllama/index.js');
  const wasm = path.join(WWW, 'vendor/wllama/wasm/wllama.wasm');
  const missing = [];
  if (!fs.existsSync(model) || fs.statSync(model).size !== MODEL_BYTES) missing.push(`www${MODEL_PATH} (${MODEL_BYTES} bytes)`);
  if (!fs.existsSync(vendor) || !fs.existsSync(wasm)) missing.push('www/vendor/wllama/ (index.js, wasm/wllama.wasm)');
  if (missing.length === 0) return null;
  return `local model assets are missing: ${missing.join(', ')}. Run \`bash scripts/fetch-model-assets.sh\` first.`;
}

/** Serves www/ plus the test page at /local-test.html, and any extra routes. */
async function startServer({ isolated, routes = {} }) {
  const html = fs.readFileSync(PAGE);
  return serveStatic(WWW, {
    isolated,
    routes: {
      '/local-test.html': (req, res) => {
        res.writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          ...(isolated ? ISOLATION_HEADERS : {}),
        });
        res.end(html);
      },
      ...routes,
    },
  });
}

async function openTestPage(context, server) {
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error('[page error]', err));
  await page.goto(`${server.url}/local-test.html`);
  await page.waitForFunction(() => window.tabloopLocalReady === true, null, { timeout: 20_000 });
  return page;
}

const ggufHits = (server) => server.hits.filter((p) => p === MODEL_PATH).length;
const figures = {};
// Generous: on a busy 2-core machine llama.cpp's threads stall each other (see defaultThreads()).
const TEST_TIMEOUT_MS = 150_000;
let browser;

before(async () => {
  const problem = assetsProblem();
  if (problem) throw new Error(problem);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  console.log(JSON.stringify({ local_model_figures: figures }));
});

/** Loads the model in `page` (kept as window.model) and returns what was observed. */
function loadInPage(page, { threads, clear, engine, url, store }) {
  return page.evaluate(
    async ({ threads, clear, engine, url, store }) => {
      const L = window.tabloopLocal;
      if (clear) await L.clearModelCache();
      const events = [];
      const started = performance.now();
      window.model = await L.loadLocalModel({ threads, engine, url, store, onProgress: (p) => events.push(p) });
      return {
        wall_ms: Math.round(performance.now() - started),
        info: window.model.info,
        isolated: crossOriginIsolated,
        events,
      };
    },
    { threads, clear, engine, url, store },
  );
}

function streamInPage(page, request) {
  return page.evaluate(async (request) => {
    const deltas = [];
    const progress = [];
    const out = await window.model.complete(request, { onDelta: (d) => deltas.push(d), onProgress: (p) => progress.push(p) });
    return { ...out, deltas, progress };
  }, request);
}

/** Reading the prompt is reported up to its token count, then each written piece with a rate. */
function checkCallProgress(result) {
  const prompt = result.progress.filter((p) => p.phase === 'prompt');
  const writing = result.progress.filter((p) => p.phase === 'writing');
  assert.ok(prompt.length >= 2, `expected prompt progress, got ${JSON.stringify(result.progress.slice(0, 5))}`);
  assert.equal(prompt.at(-1).total, result.usage.input_tokens);
  assert.equal(prompt.at(-1).loaded, prompt.at(-1).total, 'the whole prompt was read');
  assert.equal(writing.length, result.deltas.length, 'one writing report per streamed piece');
  assert.ok(writing.at(-1).per_second > 0, JSON.stringify(writing.at(-1)));
  const firstWriting = result.progress.findIndex((p) => p.phase === 'writing');
  assert.ok(result.progress.slice(firstWriting).every((p) => p.phase === 'writing'), 'reading ends before writing');
}

function abortInPage(page) {
  return page.evaluate(async () => {
    const controller = new AbortController();
    let deltas = 0;
    let abortedAt = 0;
    const out = await window.model.complete(
      {
        messages: [{ role: 'user', content: 'Write a long story about a lighthouse keeper and the sea.' }],
        max_tokens: 400,
      },
      {
        signal: controller.signal,
        onDelta: () => {
          deltas += 1;
          if (deltas === 3) {
            abortedAt = performance.now();
            controller.abort();
          }
        },
      },
    );
    const returnMs = Math.round(performance.now() - abortedAt);
    // The model must still work after an abort.
    const next = await window.model.complete({ messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 3 });
    return { out, deltas, returnMs, next };
  });
}

// Aborts as soon as the first batch of a long prompt has been read (n of N tokens, n < N).
function abortWhileReadingInPage(page) {
  return page.evaluate(async () => {
    const controller = new AbortController();
    const reports = [];
    let abortedAt = 0;
    let deltas = 0;
    const filler = Array.from({ length: 60 }, (_, i) => `Line ${i}: the keeper climbed the stairs and lit the lamp again.`).join('\n');
    const out = await window.model.complete(
      { messages: [{ role: 'user', content: `${filler}\nSummarise this.` }], max_tokens: 32 },
      {
        signal: controller.signal,
        onDelta: () => {
          deltas += 1;
        },
        onProgress: (p) => {
          reports.push(p);
          if (p.phase === 'prompt' && p.loaded > 0 && p.loaded < p.total && !controller.signal.aborted) {
            abortedAt = performance.now();
            controller.abort();
          }
        },
      },
    );
    const returnMs = Math.round(performance.now() - abortedAt);
    const next = await window.model.complete({ messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 3 });
    return { out, reports, deltas, returnMs, next };
  });
}

function checkFreeText(result) {
  assert.ok(result.deltas.length >= 2, `expected at least 2 streamed deltas, got ${result.deltas.length}`);
  assert.ok(result.text.trim().length > 0, 'expected a non-empty answer');
  assert.equal(result.deltas.join(''), result.text, 'the deltas should add up to the text');
  assert.ok(['stop', 'length'].includes(result.finish), `finish was ${result.finish}`);
  assert.ok(result.usage.input_tokens > 0 && result.usage.output_tokens > 0, JSON.stringify(result.usage));
}

function checkToolCall(result) {
  let value;
  try {
    value = JSON.parse(result.text);
  } catch (err) {
    assert.fail(`the json_schema output does not parse as JSON: ${JSON.stringify(result.text)} (${err.message})`);
  }
  const branch = matchesToolSchema(value);
  assert.ok(branch, `the output matches neither schema branch: ${result.text}`);
  return { branch, value };
}

// A GBNF grammar in the shape the app builds: one call or a final answer, compact.
const GBNF_CALL = [
  'root ::= call | final',
  'call ::= "{\\"tool\\":\\"read_file\\",\\"arguments\\":{\\"path\\":" string "}}"',
  'final ::= "{\\"final\\":" string "}"',
  'string ::= "\\"" [^"\\\\\\x00-\\x1F]* "\\""',
].join('\n');

// The bundled model with its pre-tokenizer renamed from "smollm" to "falcon" (another
// pre-tokenizer to llama.cpp, a name the engine does not know): what a model the engine does
// not run looks like, without another download.
const RENAMED_PRE_PATH = '/models/renamed-pre.gguf';
let renamedPre = null;
function serveRenamedPre(res) {
  if (!renamedPre) {
    const bytes = fs.readFileSync(path.join(WWW, MODEL_PATH));
    const key = Buffer.from('tokenizer.ggml.pre');
    const at = bytes.indexOf(key);
    // key, then the value's type (u32) and length (u64), then the text
    const text = at + key.length + 4 + 8;
    assert.equal(bytes.toString('latin1', text, text + 6), 'smollm');
    bytes.write('falcon', text, 'latin1');
    renamedPre = bytes;
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': renamedPre.length, ...ISOLATION_HEADERS });
  res.end(renamedPre);
}

const FREE_TEXT = {
  messages: [{ role: 'user', content: 'What is the capital of France? Answer in one short sentence.' }],
  max_tokens: 16,
};
const TOOL_CALL = {
  messages: TOOL_MESSAGES,
  response_format: { type: 'json_schema', json_schema: { schema: TOOL_SCHEMA } },
  max_tokens: 48,
  temperature: 0,
};

describe('local model on the engine, cross-origin isolated (threads)', () => {
  let server;
  let context;
  let page;
  const f = (figures.isolated = {});

  before(async () => {
    server = await startServer({ isolated: true });
    context = await browser.newContext();
    page = await openTestPage(context, server);
  });
  after(async () => {
    await context?.close();
    await server?.close();
  });

  test('cold load downloads the GGUF with progress up to the total, using threads', { timeout: TEST_TIMEOUT_MS }, async () => {
    const loaded = await loadInPage(page, { threads: 2, clear: true });
    assert.equal(loaded.info.runtime, 'tabloop');
    assert.equal(loaded.info.kernels, 'wasm relaxed-simd');
    // as exact as this CPU's dot product allows (8 bits on x86 with AVX-VNNI and on Arm)
    assert.ok(['8-bit (read unsigned)', '8-bit (read signed)', '7-bit'].includes(loaded.info.activations), loaded.info.activations);
    f.activations = loaded.info.activations;
    assert.equal(loaded.isolated, true, 'the page should be cross-origin isolated');
    const downloads = loaded.events.filter((e) => e.phase === 'download');
    assert.ok(downloads.length >= 2, `expected several progress events, got ${downloads.length}`);
    const last = downloads.at(-1);
    assert.equal(last.total, MODEL_BYTES);
    assert.equal(last.loaded, MODEL_BYTES, 'progress should reach the total');
    assert.equal(loaded.events.at(-1).phase, 'init');
    assert.equal(loaded.info.from_cache, false);
    assert.equal(loaded.info.bytes, MODEL_BYTES);
    assert.equal(loaded.info.multithread, true);
    assert.ok(loaded.info.threads >= 2, `threads: ${loaded.info.threads}`);
    // Headless Chromium here has no GPU: the model falls back to the CPU and says why.
    assert.equal(loaded.info.backend, 'cpu');
    assert.match(loaded.info.backend_note, /^on the CPU: this browser (offers no WebGPU|has no WebGPU adapter); tabloop engine \(it runs llama; wasm relaxed-simd\), 2 threads$/);
    assert.equal(loaded.events.at(-1).note, loaded.info.backend_note, 'the start event carries the note');
    assert.equal(ggufHits(server), 1);
    Object.assign(f, { load_ms_cold: loaded.info.load_ms, download_ms: loaded.info.download_ms, threads: loaded.info.threads, store: loaded.info.store });
  });

  test('streams a free-text answer, reporting the prompt read and the pieces written', { timeout: TEST_TIMEOUT_MS }, async () => {
    const result = await streamInPage(page, FREE_TEXT);
    checkFreeText(result);
    checkCallProgress(result);
    Object.assign(f, { first_token_ms: result.timings.first_token_ms, tokens_per_s: round(result.timings.tokens_per_s), text_sample: result.text });
  });

  test('json_schema-constrained call returns a tool call matching the schema', { timeout: TEST_TIMEOUT_MS }, async () => {
    const result = await streamInPage(page, TOOL_CALL);
    const { branch, value } = checkToolCall(result);
    Object.assign(f, { json_call_ms: result.timings.total_ms, json_branch: branch, json_output: value });
  });

  test('abort mid-generation returns at once with finish "abort"', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { out, deltas, returnMs, next } = await abortInPage(page);
    assert.equal(out.finish, 'abort');
    assert.ok(deltas >= 3 && out.text.length > 0, 'some text should have streamed before the abort');
    assert.ok(returnMs < 1000, `complete() took ${returnMs} ms to return after abort`);
    assert.ok(next.text.length > 0 && next.finish !== 'abort', 'the model should work after an abort');
    f.abort_return_ms = returnMs;
  });

  test('cancel while the model is reading the prompt stops it before any output', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { out, reports, deltas, returnMs, next } = await abortWhileReadingInPage(page);
    const prompt = reports.filter((p) => p.phase === 'prompt' && p.total != null);
    assert.ok(prompt.length > 0, `no prompt progress: ${JSON.stringify(reports.slice(0, 4))}`);
    assert.ok(prompt.at(-1).loaded < prompt.at(-1).total, `the whole prompt was read: ${JSON.stringify(prompt.at(-1))}`);
    assert.equal(out.finish, 'abort');
    assert.equal(out.text, '');
    assert.equal(deltas, 0, 'nothing was written');
    assert.equal(reports.filter((p) => p.phase === 'writing').length, 0);
    assert.ok(next.text.length > 0 && next.finish !== 'abort', 'the model should work after the cancel');
    Object.assign(f, { cancel_while_reading_return_ms: returnMs, cancel_at_tokens: `${prompt.at(-1).loaded} of ${prompt.at(-1).total}` });
  });

  test('the next step reads only what is new: the prompt up to the model\'s own reply is reused', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { first, second } = await page.evaluate(async (grammar) => {
      const messages = [
        { role: 'system', content: 'Reply with one JSON object only. Tools: read_file(path).' },
        { role: 'user', content: 'Read the file notes.txt.' },
      ];
      const first = await window.model.complete({ messages, grammar, max_tokens: 48 });
      const second = await window.model.complete({
        messages: [...messages, { role: 'assistant', content: first.text }, { role: 'user', content: 'Result of read_file:\nhello' }],
        grammar,
        max_tokens: 48,
      });
      return { first, second };
    }, GBNF_CALL);
    // everything the first step held comes back: its prompt and what the model wrote, as it
    // wrote it, but for its last token, which was never read (the grammar ended there; the
    // "}} jump-forward forced before it was read, to check it against the model's own tokens)
    const unread = first.usage.input_tokens + first.usage.output_tokens - second.timings.cached_tokens;
    assert.equal(unread, 1, JSON.stringify({ unread, first: first.timings, second: second.timings }));
    assert.equal(second.timings.prompt_tokens + second.timings.cached_tokens, second.usage.input_tokens);
    Object.assign(f, { step2_cached_tokens: second.timings.cached_tokens, step2_read_tokens: second.timings.prompt_tokens, step2_first_token_ms: second.timings.first_token_ms });
  });

  test('jump-forward writes the same call as sampling every token, a token reaching past the forced text included', { timeout: TEST_TIMEOUT_MS }, async () => {
    // the jump-forward benchmark's request in Qwen's format, one call: the grammar forces
    // `"path": "`, whose last token is ` "`, where sampling every token may take ` "/`
    const task = JSON.parse(fs.readFileSync(path.join(REPO, 'benches/local_model/qwen_call_task.json'), 'utf8'));
    const built = spawnSync('cargo', ['run', '-q', '--example', 'local_request'], {
      cwd: REPO,
      input: `${JSON.stringify({ ...task, one_call: true })}\n`,
      encoding: 'utf8',
    });
    assert.equal(built.status, 0, built.stderr);
    const request = JSON.parse(built.stdout);
    const { jumped, stepped } = await page.evaluate(async (request) => {
      const run = (jump) => window.model.complete({ messages: request.messages, grammar: request.grammar, max_tokens: request.max_tokens, temperature: 0, jump_forward: jump, drafts: jump });
      return { jumped: await run(true), stepped: await run(false) };
    }, request);
    assert.equal(jumped.text, stepped.text);
    // token for token: the forced text as the model splits it, not as the tokenizer does
    assert.equal(jumped.usage.output_tokens, stepped.usage.output_tokens);
    assert.match(stepped.text, /^<tool_call>\n\{"name": "read_file", "arguments": \{"path": "[^"]+"\}\}\n<\/tool_call>$/);
    assert.equal(jumped.finish, stepped.finish);
    Object.assign(f, { jump_forward_call: jumped.text, jump_forward_ms: jumped.timings.generation_ms, stepped_ms: stepped.timings.generation_ms });
  });

  test('drafts from the context write the same quote as sampling every token, in fewer steps', { timeout: TEST_TIMEOUT_MS }, async () => {
    const note = 'Buy milk and eggs on Tuesday. Call Anna about the garden fence. The train to Leeds leaves at 9:40 from platform 3.';
    const request = {
      messages: [
        { role: 'system', content: 'You are tabloop, an agent in a browser tab.' },
        { role: 'user', content: `I read the file /notes.txt for you. It says:\n\n${note}\n\nRepeat the file's text back to me word for word.` },
      ],
      max_tokens: 40,
      temperature: 0,
    };
    const { drafted, plain } = await page.evaluate(async (request) => {
      const run = async (drafts) => {
        let steps = 0;
        const out = await window.model.complete({ ...request, drafts }, { onDelta: () => (steps += 1) });
        return { ...out, steps };
      };
      return { drafted: await run(true), plain: await run(false) };
    }, request);
    assert.ok(plain.text.startsWith('Buy milk and eggs on Tuesday.'), plain.text);
    assert.equal(drafted.text, plain.text);
    assert.equal(drafted.usage.output_tokens, plain.usage.output_tokens);
    assert.equal(plain.steps, plain.usage.output_tokens, 'one token a step without drafts');
    assert.ok(drafted.steps * 3 < plain.steps * 2, `${drafted.steps} steps with drafts, ${plain.steps} without`);
    Object.assign(f, { drafts_steps: drafted.steps, plain_steps: plain.steps, drafts_ms: drafted.timings.generation_ms, plain_ms: plain.timings.generation_ms });
  });

  test('a reload gets the model from browser storage, not the server, on every core', { timeout: TEST_TIMEOUT_MS }, async () => {
    await page.reload();
    await page.waitForFunction(() => window.tabloopLocalReady === true);
    const loaded = await loadInPage(page, { clear: false });
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    assert.equal(loaded.info.threads, Math.min(cores, 8));
    assert.match(loaded.info.threads_reason, /^every core \(\d+\): threads take work as they come free$/);
    assert.equal(loaded.info.from_cache, true);
    assert.equal(loaded.info.bytes, MODEL_BYTES);
    const cacheEvent = loaded.events.find((e) => e.phase === 'cache');
    assert.ok(cacheEvent && cacheEvent.loaded === MODEL_BYTES && cacheEvent.total === MODEL_BYTES);
    assert.equal(ggufHits(server), 1, 'the GGUF must not be requested from the server again');
    const result = await streamInPage(page, { ...FREE_TEXT, max_tokens: 3 });
    assert.ok(result.text.length > 0);
    f.load_ms_cached = loaded.info.load_ms;
  });
});

describe('local model on wllama, cross-origin isolated (threads)', () => {
  let server;
  let context;
  let page;
  const f = (figures.wllama = {});

  before(async () => {
    server = await startServer({
      isolated: true,
      // The bundled model with a pre-tokenizer name the engine does not know (llama.cpp does).
      routes: { [RENAMED_PRE_PATH]: (req, res) => serveRenamedPre(res) },
    });
    context = await browser.newContext();
    page = await openTestPage(context, server);
  });
  after(async () => {
    await context?.close();
    await server?.close();
  });

  test('wllama runs the model on threads the core probe chose, and writes a constrained call', { timeout: TEST_TIMEOUT_MS }, async () => {
    const loaded = await loadInPage(page, { engine: 'wllama', clear: true });
    assert.equal(loaded.info.runtime, 'wllama');
    assert.equal(loaded.info.multithread, loaded.info.threads > 1);
    const { threads, threads_reason: reason, threads_probe: probe } = loaded.info;
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    assert.ok(probe && probe.single > 0 && probe.concurrent.length >= 2 && probe.concurrent.every((r) => r > 0), JSON.stringify(probe));
    const kept = Math.min(...probe.concurrent) / probe.single;
    assert.equal(threads, kept >= 0.85 ? Math.min(cores <= 2 ? cores : cores - 1, 8) : Math.max(1, Math.floor(cores / 2)), `${reason}`);
    assert.match(reason, /workers at once kept \d+% of one alone/);
    assert.match(loaded.info.backend_note, /^on the CPU: this browser (offers no WebGPU|has no WebGPU adapter); \d threads? \(/);
    const result = await streamInPage(page, TOOL_CALL);
    checkToolCall(result);
    const text = await streamInPage(page, FREE_TEXT);
    checkFreeText(text);
    checkCallProgress(text);
    const { out } = await abortInPage(page);
    assert.equal(out.finish, 'abort');
    Object.assign(f, { threads, load_ms: loaded.info.load_ms, tokens_per_s: round(text.timings.tokens_per_s) });
    await page.evaluate(() => window.model.unload());
  });

  // A grammar admitting only a surrogate's code point: the model's bytes (ED A0 80) are not
  // UTF-8, llama.cpp's JSON writer throws, and wllama's own error is "Invalid typed array length".
  test('a reply wllama cannot hand back (bytes that are not UTF-8) fails saying so, and the model goes on', { timeout: TEST_TIMEOUT_MS }, async () => {
    const loaded = await loadInPage(page, { engine: 'wllama', clear: false });
    assert.equal(loaded.info.runtime, 'wllama');
    // Five times: more error lines than the logger keeps, each failure still named.
    const failures = await page.evaluate(async () => {
      const request = { messages: [{ role: 'user', content: 'Say something.' }], grammar: 'root ::= [\\uD800] "ok"', max_tokens: 8, temperature: 0 };
      const messages = [];
      for (let i = 0; i < 5; i += 1) messages.push(await window.model.complete(request).then(() => 'it did not fail', (err) => err.message));
      return messages;
    });
    for (const failed of failures) {
      assert.match(failed, /^the local model failed: wllama could not hand back the reply: the model wrote bytes that are not UTF-8 \(llama\.cpp: .*invalid UTF-8/);
      assert.doesNotMatch(failed, /typed array/);
    }
    // Another failure after those says what went wrong this time, not what went wrong before.
    const other = await page.evaluate(() =>
      window.model.complete({ messages: [{ role: 'user', content: 'Say something.' }], grammar: 'root ::= (', max_tokens: 8 }).then(() => 'it did not fail', (err) => err.message));
    assert.match(other, /^the local model failed: .*failed to parse grammar/);
    assert.doesNotMatch(other, /UTF-8/);
    const after = await streamInPage(page, { ...FREE_TEXT, max_tokens: 4 });
    assert.ok(after.text.length > 0, JSON.stringify(after));
    await page.evaluate(() => window.model.unload());
  });

  // store 'none': the bytes held in memory go to the engine's worker and come back for wllama
  for (const store of ['auto', 'none']) {
    test(`a model the engine does not run goes to wllama, saying why (store: ${store})`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const loaded = await loadInPage(page, { url: RENAMED_PRE_PATH, clear: false, store });
      assert.equal(loaded.info.runtime, 'wllama');
      assert.equal(loaded.info.store, store === 'none' ? 'none' : 'cache');
      assert.match(loaded.info.backend_note, /^on the CPU: this browser (offers no WebGPU|has no WebGPU adapter); wllama \(the engine does not run this model: its pre-tokenizer "falcon"\), \d threads? \(/);
      const result = await streamInPage(page, { ...FREE_TEXT, max_tokens: 6 });
      assert.ok(result.text.length > 0, JSON.stringify(result));
      await page.evaluate(() => window.model.unload());
    });
  }
});

// The bundled model followed by zeros, 700 MB in all: a download no storage keeps is held in
// the page's memory, where a Blob this large could not be read back (model_bytes.js).
const HELD_PATH = '/held/smollm2-padded.gguf';
const HELD_BYTES = 700 * 1024 * 1024;

/** Sends the bundled model, then zeros up to HELD_BYTES, a MB at a time. */
function servePadded(req, res) {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': HELD_BYTES });
  const model = fs.createReadStream(path.join(WWW, MODEL_PATH));
  model.pipe(res, { end: false });
  model.on('end', () => {
    const zeros = Buffer.alloc(1 << 20);
    let left = HELD_BYTES - MODEL_BYTES;
    const more = () => {
      while (left > 0) {
        const n = Math.min(left, zeros.length);
        left -= n;
        if (!res.write(zeros.subarray(0, n))) return res.once('drain', more);
      }
      res.end();
    };
    more();
  });
}

describe('local model on the engine, not isolated (one thread)', () => {
  let server;
  let context;
  let page;
  const f = (figures.single_thread = {});

  before(async () => {
    server = await startServer({ isolated: false, routes: { [HELD_PATH]: servePadded } });
    context = await browser.newContext();
    page = await openTestPage(context, server);
  });
  after(async () => {
    await context?.close();
    await server?.close();
  });

  test('loads single-threaded without cross-origin isolation', { timeout: TEST_TIMEOUT_MS }, async () => {
    const loaded = await loadInPage(page, { clear: true });
    assert.equal(loaded.isolated, false);
    assert.equal(loaded.info.runtime, 'tabloop');
    assert.equal(loaded.info.multithread, false);
    assert.equal(loaded.info.threads, 1);
    assert.equal(loaded.events.filter((e) => e.phase === 'download').at(-1).loaded, MODEL_BYTES);
    Object.assign(f, { load_ms_cold: loaded.info.load_ms, threads: loaded.info.threads });
  });

  test('streams text, constrains JSON, and aborts', { timeout: TEST_TIMEOUT_MS }, async () => {
    const text = await streamInPage(page, FREE_TEXT);
    checkFreeText(text);
    const call = await streamInPage(page, TOOL_CALL);
    const { branch } = checkToolCall(call);
    const { out, returnMs, next } = await abortInPage(page);
    assert.equal(out.finish, 'abort');
    assert.ok(returnMs < 1000, `complete() took ${returnMs} ms to return after abort`);
    assert.ok(next.text.length > 0);
    Object.assign(f, {
      first_token_ms: text.timings.first_token_ms,
      tokens_per_s: round(text.timings.tokens_per_s),
      json_call_ms: call.timings.total_ms,
      json_branch: branch,
      abort_return_ms: returnMs,
    });
  });

  test('a 700 MB download no storage keeps runs from memory and writes what the stored model writes', { timeout: TEST_TIMEOUT_MS }, async () => {
    const request = { ...FREE_TEXT, max_tokens: 8, temperature: 0 };
    const stored = (await streamInPage(page, request)).text;
    // A fresh browser, this load its first work: Chromium refused to read back such a Blob
    // there (once it had stored anything, it could page blobs to disk and did not).
    const fresh = await launchBrowser();
    try {
      const freshPage = await openTestPage(await fresh.newContext(), server);
      const held = await freshPage.evaluate(
        async ({ url, request }) => {
          const model = await window.tabloopLocal.loadLocalModel({ url, store: 'none', engine: 'tabloop', threads: 1 });
          return { text: (await model.complete(request)).text, info: model.info };
        },
        { url: HELD_PATH, request },
      );
      assert.equal(held.info.store, 'none');
      assert.equal(held.info.bytes, HELD_BYTES);
      assert.equal(held.info.runtime, 'tabloop');
      assert.ok(stored.length > 0);
      assert.equal(held.text, stored, 'the model held in memory writes what the stored one writes');
      f.held_load_ms = held.info.load_ms;
    } finally {
      await fresh.close();
    }
  });

  test('a GBNF grammar shapes the output exactly (no whitespace, keys in order)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const result = await streamInPage(page, { messages: TOOL_MESSAGES, grammar: GBNF_CALL, max_tokens: 48, temperature: 0 });
    assert.match(result.text, /^(\{"tool":"read_file","arguments":\{"path":"[^"]*"\}\}|\{"final":"[^"]*"\})$/, result.text);
    f.grammar_output = result.text;
    f.grammar_call_ms = result.timings.total_ms;
  });
});

describe('model store (synthetic GGUF files)', () => {
  const SIZE = 300_000;
  const body = Buffer.alloc(SIZE, 7);
  body.write('GGUF', 0, 'latin1');
  let server;
  let context;
  let page;

  before(async () => {
    server = await startServer({
      isolated: false,
      routes: {
        '/fake/good.gguf': (req, res) => {
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': SIZE });
          res.end(body);
        },
        // Promises SIZE bytes, sends a third, then drops the connection.
        '/fake/cut.gguf': (req, res) => {
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': SIZE });
          res.write(body.subarray(0, SIZE / 3), () => setTimeout(() => res.destroy(), 50));
        },
        '/fake/page.gguf': (req, res) => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<!doctype html><p>not a model</p>');
        },
      },
    });
    context = await browser.newContext();
    page = await openTestPage(context, server);
  });
  after(async () => {
    await context?.close();
    await server?.close();
  });

  for (const store of ['cache', 'opfs', 'none']) {
    const keeps = store !== 'none';
    const title = keeps ? 'stores a download, serves it again' : 'downloads each time';
    test(`${store}: ${title}, and rejects cut or bad files`, async () => {
      const r = await page.evaluate(async (store) => {
        const L = window.tabloopLocal;
        await L.clearModelCache();
        const attempt = async (url) => {
          try {
            const got = await L.fetchModel(url, { store });
            return { ok: true, bytes: got.bytes, from_cache: got.from_cache, store: got.store };
          } catch (err) {
            return { ok: false, name: err.name, message: err.message };
          }
        };
        const events = [];
        const first = await L.fetchModel('/fake/good.gguf', { store, onProgress: (p) => events.push(p) });
        const second = await attempt('/fake/good.gguf');
        const cut = await attempt('/fake/cut.gguf');
        const cutCached = await L.isModelCached('/fake/cut.gguf', { store });
        const html = await attempt('/fake/page.gguf');
        const missing = await attempt('/fake/missing.gguf');
        const removed = await L.clearModelCache('/fake/good.gguf');
        const goodCachedAfterClear = await L.isModelCached('/fake/good.gguf', { store });
        return { first: { bytes: first.bytes, from_cache: first.from_cache, store: first.store }, last: events.at(-1), second, cut, cutCached, html, missing, removed, goodCachedAfterClear };
      }, store);
      assert.deepEqual(r.first, { bytes: SIZE, from_cache: false, store });
      assert.equal(r.last.loaded, SIZE);
      assert.equal(r.last.total, SIZE);
      assert.deepEqual(r.second, { ok: true, bytes: SIZE, from_cache: keeps, store });
      assert.equal(r.cut.ok, false);
      assert.equal(r.cut.name, 'ModelDownloadError');
      assert.match(r.cut.message, /cut|incomplete|failed after/);
      assert.equal(r.cutCached, false, 'a cut download must leave no cache entry');
      assert.equal(r.html.ok, false);
      assert.match(r.html.message, /not a GGUF file/);
      assert.equal(r.missing.ok, false);
      assert.match(r.missing.message, /HTTP 404/);
      assert.equal(r.removed, keeps ? 1 : 0);
      assert.equal(r.goodCachedAfterClear, false);
      const goodHits = server.hits.filter((p) => p === '/fake/good.gguf').length;
      assert.equal(goodHits, keeps ? 1 : 2, keeps ? 'the second fetch must come from storage' : 'no storage: fetch again');
      server.hits.length = 0;
    });
  }
});

function round(x) {
  return x == null ? null : Math.round(x * 10) / 10;
}
