// A model run by tabloop's own engine (engine.wasm in a worker, see engine_worker.js), with
// the same contract as the wllama-backed model: complete(request, {onDelta, onProgress,
// signal}) streams text and resolves {text, finish, usage, timings}; unload() frees it.

import { chatFormat, renderChat } from './chat_template.js';
import { schemaGrammar } from './json_schema_grammar.js';
import { completionResult, toChatMessages } from '../completion.js';
import { ModelBytes } from '../model_bytes.js';

const WORKER_URL = new URL('./engine_worker.js', import.meta.url);

/** The engine's refusal of a model it does not run (another runtime may). */
export class EngineUnsupportedError extends Error {
  constructor(message) {
    super(message);
    this.name = 'EngineUnsupportedError';
  }
}

/**
 * Starts the engine on a model's bytes.
 * @param {Blob|ModelBytes} file the GGUF file: a Blob the worker reads as the engine asks, or
 *   bytes held in memory, moved to the worker and back once the engine has read them
 * @param {{context?: number, batch?: number, threads?: number, signal?: AbortSignal, build?: 'simd128', activations?: string}} options
 *   build: the SIMD128 build even where the browser has relaxed SIMD (tests, benchmarks);
 *   activations: an activation encoding's name instead of the one probed for this CPU
 *   (benchmarks; the engine refuses one its kernels are not exact with here)
 * @returns {Promise<{worker: Worker, info: object, format: object}>}
 *   rejects with EngineUnsupportedError when the engine does not run this model
 */
export async function startEngine(file, { context = 4096, threads = 1, signal, build, activations } = {}) {
  const worker = new Worker(WORKER_URL, { type: 'module', name: 'tabloop-engine' });
  const held = file instanceof ModelBytes ? file.toMessage() : null;
  const reply = new Promise((resolve, reject) => {
    worker.onmessage = (event) => {
      if (held && event.data?.held) file.takeBack(event.data.held.segments);
      resolve(event.data);
    };
    worker.onerror = (event) => reject(new Error(`the engine worker failed: ${event.message ?? 'no message'}`));
  });
  // a Blob itself (no copy), or held bytes moved (not copied) there and back
  const load = { type: 'load', context, threads, build, activations };
  if (held) worker.postMessage({ ...load, held: held.message }, held.transfer);
  else worker.postMessage({ ...load, blob: file });
  const onAbort = () => worker.terminate();
  signal?.addEventListener('abort', onAbort, { once: true });
  let message;
  try {
    message = await reply;
  } catch (err) {
    worker.terminate();
    throw err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw new DOMException('loading the local model was aborted', 'AbortError');
  if (message?.type !== 'loaded') {
    worker.terminate();
    if (message?.unsupported) throw new EngineUnsupportedError(message.message);
    throw new Error(`the local model failed to start: ${message?.message ?? 'no reply from the engine'}`);
  }
  const format = chatFormat(message.info.chat_template);
  if (!format) {
    worker.terminate();
    throw new EngineUnsupportedError('its chat template is neither ChatML nor Gemma\'s turns');
  }
  return { worker, info: message.info, format };
}

let nextId = 1;

/** A model running in the engine. Create it with startEngine() and new EngineModel(). */
export class EngineModel {
  /**
   * @param {{worker: Worker, info: object, format: object}} started from startEngine
   * @param {object} info load figures (the LocalModel `info` shape)
   * @param {{batch: number, onUnload?: () => void}} options prompt tokens per step, and a
   *   callback when unloaded
   */
  constructor(started, info, { batch, onUnload }) {
    this._worker = started.worker;
    this._format = started.format;
    this._batch = batch;
    this._onUnload = onUnload;
    this._queue = Promise.resolve();
    this._unloaded = false;
    this._handlers = new Map();
    this._worker.onmessage = (event) => this._handlers.get(event.data?.id)?.(event.data);
    this._worker.onerror = (event) => {
      const error = new Error(`the engine worker failed: ${event.message ?? 'no message'}`);
      for (const handler of this._handlers.values()) handler({ type: 'error', message: error.message });
    };
    /** The GGUF's chat template (the app picks the model's tool-call format from it). */
    this.chatTemplate = started.info.chat_template ?? null;
    /** Load figures, as the wllama-backed model gives them. */
    this.info = info;
    /** Generation speed of the last finished completion (tokens per second), or null. */
    this.last_tokens_per_s = null;
  }

  /** See LocalModel.complete in ../local_model.js: the same request, options and result. */
  complete(request, options = {}) {
    if (this._unloaded) return Promise.reject(new Error('the local model was unloaded'));
    const run = this._queue.then(() => this._run(request, options));
    this._queue = run.catch(() => {});
    return run;
  }

  async _run(request, { onDelta, onProgress, signal } = {}) {
    if (this._unloaded) throw new Error('the local model was unloaded');
    const prompt = renderChat(this._format, toChatMessages(request?.messages));
    const grammar = requestGrammar(request);
    const started = performance.now();
    const id = nextId++;
    let text = '';
    let pieces = 0;
    let firstTokenAt = null;
    let callbackError = null;
    const guard = (fn) => {
      try {
        fn();
      } catch (err) {
        callbackError ??= err;
        this._worker.postMessage({ type: 'cancel', id });
      }
    };
    if (signal?.aborted) return completionResult('', 'abort', { input_tokens: 0, output_tokens: 0 }, started, {});
    const done = new Promise((resolve, reject) => {
      this._handlers.set(id, (message) => {
        switch (message.type) {
          case 'prompt':
            guard(() => onProgress?.({ phase: 'prompt', loaded: message.loaded, total: message.total }));
            break;
          case 'token': {
            const now = performance.now();
            firstTokenAt ??= now;
            text += message.text;
            // tokens so far (a piece may carry several: what the grammar forced rides along)
            pieces = message.tokens ?? pieces + 1;
            const seconds = (now - firstTokenAt) / 1000;
            guard(() => onProgress?.({ phase: 'writing', loaded: pieces, total: null, per_second: seconds > 0 ? (pieces - 1) / seconds : null }));
            guard(() => onDelta?.(message.text));
            break;
          }
          case 'done':
            resolve(message);
            break;
          default:
            reject(new Error(`the local model failed: ${message.message ?? 'unknown error'}`));
        }
      });
    });
    const onAbort = () => this._worker.postMessage({ type: 'cancel', id });
    signal?.addEventListener('abort', onAbort, { once: true });
    guard(() => onProgress?.({ phase: 'prompt', loaded: 0, total: null }));
    this._worker.postMessage({
      type: 'complete',
      id,
      prompt,
      grammar,
      max_tokens: request?.max_tokens ?? 256,
      temperature: request?.temperature ?? 0,
      batch: this._batch,
      // jump-forward decoding and drafts from the context (on unless the request turns them
      // off: the benchmark compares)
      jump_forward: request?.jump_forward !== false,
      drafts: request?.drafts !== false,
    });
    let message;
    try {
      message = await done;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this._handlers.delete(id);
    }
    if (callbackError) throw callbackError;
    // as llama.cpp reports it: tokens generated over the time spent generating them
    const tokensPerS =
      message.finish !== 'abort' && message.generation_ms > 0 && message.output_tokens > 0
        ? message.output_tokens / (message.generation_ms / 1000)
        : null;
    if (tokensPerS != null) this.last_tokens_per_s = tokensPerS;
    const read = message.prompt_tokens - message.reused_tokens;
    return completionResult(
      text,
      message.finish,
      { input_tokens: message.prompt_tokens, output_tokens: message.output_tokens },
      started,
      {
        first_token_ms: firstTokenAt == null ? null : Math.round(firstTokenAt - started),
        prompt_ms: Math.round(message.prompt_ms),
        generation_ms: Math.round(message.generation_ms),
        tokens_per_s: tokensPerS,
        prompt_tokens: read,
        cached_tokens: message.reused_tokens,
        prompt_tokens_per_s: message.prompt_ms > 0 && read > 0 ? read / (message.prompt_ms / 1000) : null,
      },
    );
  }

  /** Stops the model and frees its memory (waits for a running completion to end). */
  async unload() {
    if (this._unloaded) return;
    this._unloaded = true;
    await this._queue;
    this._worker.terminate();
    this._onUnload?.();
  }
}


/** The GBNF grammar a request asks for: its own, or one from its response_format; or null. */
function requestGrammar(request) {
  const format = request?.response_format;
  if (request?.grammar != null) {
    if (typeof request.grammar !== 'string') throw new TypeError('complete(): grammar must be GBNF text');
    if (format != null) throw new TypeError('complete(): give grammar or response_format, not both');
    return request.grammar;
  }
  if (format == null || format.type === 'text') return null;
  if (format.type === 'json_schema') {
    const schema = format.json_schema?.schema;
    if (schema == null) throw new TypeError('complete(): response_format.json_schema.schema is missing');
    return schemaGrammar(schema);
  }
  if (format.type === 'json_object') return schemaGrammar({ type: 'object' });
  throw new TypeError(`complete(): unknown response_format type ${format.type}`);
}
