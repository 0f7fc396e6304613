// The worker that runs tabloop's model engine (engine.wasm, built from engine/ by
// scripts/build-engine.sh). It owns one loaded model and serves one completion at a time,
// reading the prompt in batches and generating token by token; between batches and tokens it
// yields to its message queue, so a cancel arrives within one step.
//
// With more than one thread (on a cross-origin isolated page) it runs the threaded build,
// whose threads are workers of their own (engine_thread.js) on the same shared memory. Each
// build comes with relaxed SIMD and without (simd_support.js picks by feature detection).
//
// The model file is read as the engine asks (its header, then one tensor at a time) from the
// Blob, so it is never whole in memory beside the packed weights; a model held in the page's
// memory (model_bytes.js) comes moved here, and goes back with the reply once it is read.
//
// Messages in:  {type: 'load', blob: Blob | held: ModelBytes' message, context, threads, build?: 'simd128',
//                activations?: an encoding's name, e.g. '7-bit' or '8-bit sign-magnitude'
//                (instead of the one probed for this CPU; refused where not exact: benchmarks)}
//               {type: 'complete', id, prompt, grammar, max_tokens, temperature, batch,
//                jump_forward?: false (every token sampled; on by default),
//                drafts?: false (no guesses from the context read with a token; on by default)}
//               {type: 'cancel', id}
// Messages out: {type: 'loaded', info, held?} | {type: 'load_error', message, held?}
//               (held: the held bytes moved back)
//               {type: 'prompt', id, loaded, total, reused}
//               {type: 'token', id, text, tokens (generated so far)}
//               {type: 'done', id, finish: 'stop'|'length'|'abort', prompt_tokens, reused_tokens, output_tokens, prompt_ms, generation_ms}
//               {type: 'error', id, message}

import { threadedImports, THREAD_MEMORY } from './wasi_host.js';
import { engineBuild } from './simd_support.js';
import { ModelBytes } from '../model_bytes.js';

// The relaxed-SIMD builds where the browser has relaxed SIMD, else the SIMD128 ones (Safari);
// a load message may ask for the SIMD128 ones (the tests do: no flag of Chromium 156 turns
// relaxed SIMD off).
const buildUrls = (build) => ({
  single: new URL(`./${build.single}`, import.meta.url),
  threads: new URL(`./${build.threads}`, import.meta.url),
});
const THREAD_URL = new URL('./engine_thread.js', import.meta.url);
/** How long the engine's threads may take to start before loading gives up on them. */
const THREAD_START_MS = 10_000;
const encoder = new TextEncoder();

let exports = null;
/** The model file being loaded: a Blob (read synchronously: this is a worker) or ModelBytes. */
let file = null;

/** Why the last read of the model file failed (the browser's words), for the load error. */
let readError = null;

/** Copies `len` bytes of the model file from `offset` into the engine's memory at `dst`. */
function readFile(offset, len, dst) {
  try {
    if (file instanceof ModelBytes) {
      if (file.copyTo(offset, new Uint8Array(exports.memory.buffer, dst, len))) return 1;
      readError = new Error(`the held file has ${file.size} bytes`);
      return 0;
    }
    const bytes = new Uint8Array(new FileReaderSync().readAsArrayBuffer(file.slice(offset, offset + len)));
    if (bytes.length !== len) {
      readError = new Error(`the file gave ${bytes.length} bytes`);
      return 0;
    }
    new Uint8Array(exports.memory.buffer, dst, len).set(bytes);
    return 1;
  } catch (err) {
    readError = err;
    return 0;
  }
}
let cancelled = new Set();

/** The engine's last output (copied: a decoder refuses views of shared memory). */
function outputBytes() {
  return new Uint8Array(exports.memory.buffer, exports.tl_output_ptr(), exports.tl_output_len()).slice();
}

function output() {
  return new TextDecoder().decode(outputBytes());
}

/** Copies `bytes` into the engine's memory; returns [ptr, len]. */
function copyIn(bytes) {
  const ptr = exports.tl_alloc(bytes.length);
  new Uint8Array(exports.memory.buffer, ptr, bytes.length).set(bytes);
  return [ptr, bytes.length];
}

/** Runs an engine call taking a text argument (freed after). */
function withText(text, call) {
  const [ptr, len] = copyIn(encoder.encode(text));
  try {
    return call(ptr, len);
  } finally {
    exports.tl_free(ptr, len);
  }
}

// Yielding through a message port (a setTimeout would be clamped to 4 ms when nested).
const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => waiting.shift()?.();
function yieldToQueue() {
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(0);
  });
}

/** Compiles a build of the engine; a browser that cannot (no SIMD at all) may use wllama. */
async function compile(url) {
  try {
    return await WebAssembly.compileStreaming(fetch(url));
  } catch (err) {
    throw Object.assign(new Error(`this browser cannot compile the engine (${err?.message ?? err})`), { unsupported: true });
  }
}

/** The one-thread build. */
async function instantiateSingle(urls) {
  const module = await compile(urls.single);
  return (await WebAssembly.instantiate(module, { env: { tl_now: () => performance.now(), tl_read: readFile } })).exports;
}

/** Bytes of stack each of the engine's threads gets. */
const THREAD_STACK = 1 << 20;

/** The threaded build, whose `tl_spawn_thread` starts a worker per thread. */
async function instantiateThreaded(urls) {
  const module = await compile(urls.threads);
  const memory = new WebAssembly.Memory({ ...THREAD_MEMORY, shared: true });
  let engine = null;
  const spawn = (index) => {
    // A stack and thread-local storage of its own, from the engine's allocator.
    const stackBase = engine.tl_alloc(THREAD_STACK);
    const align = engine.__tls_align.value;
    const tlsBlock = engine.tl_alloc(engine.__tls_size.value + align);
    const tls = Math.ceil(tlsBlock / align) * align;
    const thread = new Worker(THREAD_URL, { type: 'module', name: `tabloop-engine-thread-${index}` });
    thread.onerror = (event) => console.error('[engine] a thread failed:', event.message);
    thread.postMessage({ module, memory, index, stackTop: stackBase + THREAD_STACK, tls });
    return 1;
  };
  engine = (await WebAssembly.instantiate(module, threadedImports(memory, spawn, readFile))).exports;
  return engine;
}

async function waitForThreads() {
  const started = performance.now();
  while (exports.tl_threads_ready() !== 1) {
    if (performance.now() - started > THREAD_START_MS) throw new Error('the engine\'s threads did not start');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function load({ blob, held, context, threads, build, activations }) {
  const threaded = threads > 1 && globalThis.crossOriginIsolated === true;
  const urls = buildUrls(engineBuild(build));
  exports = threaded ? await instantiateThreaded(urls) : await instantiateSingle(urls);
  if (activations != null && withText(activations, (p, l) => exports.tl_choose_activations(p, l)) !== 0) throw new Error(output());
  file = held ? ModelBytes.fromMessage(held) : blob;
  readError = null;
  const loaded = exports.tl_load_reading(file.size, context, threaded ? threads : 1);
  file = null;
  if (loaded === -2) throw Object.assign(new Error(output()), { unsupported: true });
  // A file the browser cannot read (removed from disk after it was picked, a blob too large
  // for a private window's memory) says why, not only where the engine stopped reading.
  if (loaded !== 0) throw new Error(readError ? `${output()}: ${readError.name}: ${readError.message}` : output());
  await waitForThreads();
  if (exports.tl_info() !== 0) throw new Error(output());
  // the engine's whole memory after loading (its peak so far: the file's bytes were in it too)
  return { ...JSON.parse(output()), memory_bytes: exports.memory.buffer.byteLength };
}

async function complete(message) {
  const { id, prompt, grammar, max_tokens, temperature, batch, jump_forward = true, drafts = true } = message;
  exports.tl_jump_forward(jump_forward ? 1 : 0);
  exports.tl_drafts(drafts ? 1 : 0);
  const stream = new TextDecoder();
  const started = performance.now();
  const begin = withText(prompt, (pp, pl) =>
    grammar == null
      ? exports.tl_begin(pp, pl, 0, 0, max_tokens, temperature)
      : withText(grammar, (gp, gl) => exports.tl_begin(pp, pl, gp, gl, max_tokens, temperature)),
  );
  if (begin !== 0) throw new Error(output());
  const plan = JSON.parse(output());
  const done = (finish, extra) => ({ type: 'done', id, finish, prompt_tokens: plan.total, reused_tokens: plan.reused, ...extra });
  postMessage({ type: 'prompt', id, loaded: plan.reused, total: plan.total, reused: plan.reused });
  let remaining = plan.total - plan.reused;
  while (remaining > 0) {
    await yieldToQueue();
    if (cancelled.has(id)) {
      exports.tl_cancel();
      return done('abort', { output_tokens: 0, prompt_ms: performance.now() - started, generation_ms: 0 });
    }
    remaining = exports.tl_feed(batch);
    if (remaining < 0) throw new Error(output());
    postMessage({ type: 'prompt', id, loaded: plan.total - remaining, total: plan.total, reused: plan.reused });
  }
  const promptDone = performance.now();
  let tokens = 0;
  for (;;) {
    await yieldToQueue();
    if (cancelled.has(id)) {
      exports.tl_cancel();
      return done('abort', { output_tokens: tokens, prompt_ms: promptDone - started, generation_ms: performance.now() - promptDone });
    }
    const step = exports.tl_next(Math.random());
    if (step < 0) throw new Error(output());
    if (step !== 0) {
      const text = stream.decode();
      if (text) postMessage({ type: 'token', id, text });
      return done(step === 1 ? 'stop' : 'length', {
        output_tokens: tokens,
        prompt_ms: promptDone - started,
        generation_ms: performance.now() - promptDone,
      });
    }
    // a step may append several tokens (what the grammar forced rides along)
    tokens = exports.tl_generated();
    const text = stream.decode(outputBytes(), { stream: true });
    if (text) postMessage({ type: 'token', id, text, tokens });
  }
}

let queue = Promise.resolve();
self.onmessage = (event) => {
  const message = event.data;
  if (message?.type === 'cancel') {
    cancelled.add(message.id);
    return;
  }
  queue = queue.then(async () => {
    if (message?.type === 'load') {
      // held bytes go back either way (another runtime may take the model the engine refused)
      const { held } = message;
      const back = (reply) => (held ? postMessage({ ...reply, held }, held.segments) : postMessage(reply));
      try {
        back({ type: 'loaded', info: await load(message) });
      } catch (err) {
        back({ type: 'load_error', message: String(err?.message ?? err), unsupported: !!err?.unsupported });
      }
    } else if (message?.type === 'complete') {
      try {
        postMessage(await complete(message));
      } catch (err) {
        postMessage({ type: 'error', id: message.id, message: String(err?.message ?? err) });
      } finally {
        cancelled.delete(message.id);
      }
    }
  });
};
