// A model run by wllama (llama.cpp compiled to wasm) in its worker: what runs the models
// tabloop's own engine does not (other architectures and quantizations, and the GPU through
// WebGPU). Started by loadLocalModel() in local_model.js.

import { LogLevel, Wllama, WllamaAbortError } from '../vendor/wllama/index.js';
import { modelStarted, modelStopped } from './live_models.js';
import { completionResult, toChatMessages } from './completion.js';

const WASM_URL = new URL('../vendor/wllama/wasm/wllama.wasm', import.meta.url).href;

/** How many error lines a logger keeps for one completion (the first ones name the failure). */
const KEPT_ERRORS = 8;
/** Each started wllama's error lines (its logger's `errors`). */
const NATIVE_ERRORS = new WeakMap();

/**
 * wllama's logger: passes on warnings and errors (everything in `debug`), and keeps the first
 * error lines since `errors` was last cleared (a completion clears it as it starts). llama.cpp's
 * own error line is the only account of a failure inside it: wllama then rejects with a message
 * of its own worker's that says nothing (see failureMessage).
 */
function keepingLogger(debug) {
  const errors = [];
  return {
    errors,
    debug: debug ? (...args) => console.debug(...args) : () => {},
    log: debug ? (...args) => console.log(...args) : () => {},
    warn: (...args) => console.warn('[wllama]', ...args),
    error: (...args) => {
      console.error('[wllama]', ...args);
      if (typeof args[0] === 'string' && errors.length < KEPT_ERRORS) errors.push(args.join(' '));
    },
  };
}

/**
 * Why a completion failed, from wllama's error and the error lines llama.cpp logged meanwhile.
 * A reply holding bytes that are not UTF-8 (a byte token, a surrogate: the grammar's character
 * classes admit them) makes llama.cpp's JSON writer throw; wllama's worker then reads the start
 * of its own message as the reply's length and fails with "Invalid typed array length".
 */
function failureMessage(err, nativeErrors) {
  const wllamaSaid = err?.message ?? String(err);
  // wllama's own lines (its stack trace, its message again) say nothing new
  const native = nativeErrors.find((line) => !line.startsWith('Stack trace') && !line.includes(wllamaSaid) && !wllamaSaid.includes(line));
  if (native && /invalid UTF-8|incomplete UTF-8/.test(native)) {
    return `wllama could not hand back the reply: the model wrote bytes that are not UTF-8 (llama.cpp: ${native})`;
  }
  if (native) return `${wllamaSaid} (llama.cpp: ${native})`;
  return wllamaSaid;
}

/**
 * Starts wllama on a model file.
 * @param {Blob} blob the GGUF file
 * @param {{threads: number, nCtx: number, nBatch: number, onGpu: boolean, debug: boolean}} options
 * @returns {Promise<object>} the started wllama instance
 */
export async function startWllama(blob, { threads, nCtx, nBatch, onGpu, debug }) {
  const logger = keepingLogger(debug);
  const wllama = new Wllama({ default: WASM_URL }, { logger });
  try {
    await wllama.loadModel([blob], {
      // llama.cpp's own log: only its errors unless debugging (each line crosses from the worker)
      log_level: debug ? LogLevel.INFO : LogLevel.ERROR,
      n_ctx: nCtx,
      n_threads: threads,
      n_batch: nBatch,
      n_ubatch: nBatch,
      // one slot: requests run one at a time and reuse the previous prompt's KV cache
      n_parallel: 1,
      ...(onGpu ? {} : { n_gpu_layers: 0 }),
    });
    NATIVE_ERRORS.set(wllama, logger.errors);
    return wllama;
  } catch (err) {
    await wllama.exit().catch(() => {});
    throw err;
  }
}

function toResponseFormat(format) {
  if (format == null) return undefined;
  if (format.type === 'json_schema') {
    const js = format.json_schema ?? {};
    if (js.schema == null) throw new TypeError('complete(): response_format.json_schema.schema is missing');
    return { type: 'json_schema', json_schema: { name: js.name ?? 'response', schema: js.schema, strict: js.strict ?? true } };
  }
  if (format.type === 'json_object' || format.type === 'text') return { type: format.type };
  throw new TypeError(`complete(): unknown response_format type ${format.type}`);
}

/** A completion's generation rate below this share of the best one seen means the cores got busy. */
const SLOWDOWN_SHARE = 0.4;
/** Completions writing fewer tokens than this say too little about the rate. */
const WATCHED_MIN_TOKENS = 8;

/** A model started on wllama. Create it with loadLocalModel(). */
export class WllamaModel {
  /**
   * @param {object} wllama the started wllama instance
   * @param {object} info load figures
   * @param {{threads: number, start: () => Promise<object>}|null} [fallback] how to restart on
   *   fewer threads when generation slows down sharply (null: never)
   */
  constructor(wllama, info, fallback = null) {
    modelStarted();
    this._wllama = wllama;
    this._fallback = fallback;
    this._bestRate = null;
    this._slowdown = null;
    this._queue = Promise.resolve();
    this._unloaded = false;
    /** Load figures: {url, bytes, from_cache, store, download_ms, init_ms, load_ms, threads, threads_reason, threads_probe, multithread, cross_origin_isolated, n_ctx, n_batch, backend: 'webgpu'|'cpu', backend_note} */
    this.info = info;
    /** Generation speed of the last finished completion (tokens per second), or null. */
    this.last_tokens_per_s = null;
  }

  /**
   * Runs one chat completion, streaming the text as it is generated.
   *
   * @param {{messages: {role: string, content: string}[], grammar?: string, response_format?: object, max_tokens?: number, temperature?: number}} request
   *   `grammar`: GBNF text the output must match; or `response_format`:
   *   `{type: 'json_schema', json_schema: {schema}}` constrains the output to JSON matching
   *   `schema` (grammar-constrained decoding); `max_tokens` defaults to 256
   * @param {{onDelta?: (text: string) => void, onProgress?: (p: {phase: 'prompt'|'writing', loaded: number, total: number|null, per_second?: number|null}) => void, signal?: AbortSignal}} [options]
   *   `onProgress`: 'prompt' while the prompt is read (`loaded` of `total` tokens, cached ones
   *   included), then 'writing' per generated piece (`loaded` pieces, `per_second` their rate)
   * @returns {Promise<{text: string, finish: 'stop'|'length'|'abort', usage: {input_tokens: number, output_tokens: number},
   *   timings: {first_token_ms: number|null, total_ms: number, prompt_ms: number|null, generation_ms: number|null, tokens_per_s: number|null,
 *   prompt_tokens: number|null, cached_tokens: number|null, prompt_tokens_per_s: number|null}}>}
   *   On abort it resolves (not rejects) with the text so far and finish 'abort'.
   */
  complete(request, options = {}) {
    if (this._unloaded) return Promise.reject(new Error('the local model was unloaded'));
    // Requests run one at a time: each waits until wllama has really finished the previous one
    // (an aborted request resolves at once but frees the model a moment later).
    let release;
    const turn = new Promise((resolve) => {
      release = resolve;
    });
    const previous = this._queue;
    this._queue = turn;
    return previous.then(async () => {
      let work = null;
      try {
        return await this._run(request, options, (w) => {
          work = w;
        });
      } finally {
        if (work) work.then(release, release);
        else release();
      }
    });
  }

  /** Learns from a finished completion's generation rate whether the cores got busy. */
  _watchRate(timings) {
    const rate = timings?.predicted_per_second;
    if (!this._fallback || !(rate > 0) || !((timings?.predicted_n ?? 0) >= WATCHED_MIN_TOKENS)) return;
    if (this._bestRate == null || rate > this._bestRate) this._bestRate = rate;
    else if (rate < this._bestRate * SLOWDOWN_SHARE) this._slowdown = { from: this._bestRate, to: rate };
  }

  /** Restarts the model on the fallback threads (between completions; the KV cache is lost). */
  async _restartOnFewerThreads() {
    const { threads, start } = this._fallback;
    const { from, to } = this._slowdown;
    const before = this.info.threads;
    this._fallback = null;
    this._slowdown = null;
    await this._wllama.exit().catch(() => {});
    try {
      this._wllama = await start();
    } catch (err) {
      this._unloaded = true;
      modelStopped();
      throw new Error(`the local model failed to restart on ${threads} thread(s): ${err?.message ?? err}`, { cause: err });
    }
    this.info = {
      ...this.info,
      threads: this._wllama.getNumThreads(),
      threads_reason: `generation fell from ${from.toFixed(1)} to ${to.toFixed(1)} tokens/s on ${before} threads (the cores got busy): restarted on ${threads}`,
    };
  }

  async _run(request, { onDelta, onProgress, signal } = {}, onWork) {
    if (this._unloaded) throw new Error('the local model was unloaded');
    if (this._slowdown) await this._restartOnFewerThreads();
    const started = performance.now();
    const result = (text, finish, usage, extra = {}) => completionResult(text, finish, usage, started, extra);
    if (signal?.aborted) return result('', 'abort', { input_tokens: 0, output_tokens: 0 });

    const params = {
      messages: toChatMessages(request?.messages),
      max_tokens: request?.max_tokens ?? 256,
      stream: true,
      return_progress: true,
    };
    if (request?.temperature != null) params.temperature = request.temperature;
    if (request?.grammar != null) {
      if (typeof request.grammar !== 'string') throw new TypeError('complete(): grammar must be GBNF text');
      if (request.response_format != null) throw new TypeError('complete(): give grammar or response_format, not both');
      params.grammar = request.grammar;
    }
    const format = toResponseFormat(request?.response_format);
    if (format) params.response_format = format;

    const inner = new AbortController();
    params.abortSignal = inner.signal;
    let text = '';
    let deltas = 0;
    let firstTokenAt = null;
    let finishReason = null;
    let usage = null;
    let timings = null;
    let promptTokens = null;
    let aborted = false;
    let callbackError = null;
    const progress = (report) => {
      try {
        onProgress?.(report);
      } catch (err) {
        callbackError ??= err;
        inner.abort();
      }
    };
    progress({ phase: 'prompt', loaded: 0, total: null });
    params.onData = (chunk) => {
      const pp = chunk?.prompt_progress;
      if (pp?.total != null) {
        promptTokens = pp.total;
        // tokens reused from the KV cache count as read
        progress({ phase: 'prompt', loaded: Math.min(pp.total, (pp.cache ?? 0) + (pp.processed ?? 0)), total: pp.total });
      }
      if (chunk?.usage) usage = chunk.usage;
      if (chunk?.timings) timings = chunk.timings;
      const choice = chunk?.choices?.[0];
      if (choice?.finish_reason) finishReason = choice.finish_reason;
      const delta = choice?.delta?.content;
      if (!delta || aborted) return;
      const now = performance.now();
      if (firstTokenAt == null) firstTokenAt = now;
      text += delta;
      deltas += 1;
      const seconds = (now - firstTokenAt) / 1000;
      progress({ phase: 'writing', loaded: deltas, total: null, per_second: seconds > 0 ? (deltas - 1) / seconds : null });
      try {
        onDelta?.(delta);
      } catch (err) {
        callbackError ??= err;
        inner.abort();
      }
    };

    let settleAbort;
    const abortedPromise = new Promise((resolve) => {
      settleAbort = resolve;
    });
    const onAbort = () => {
      aborted = true;
      inner.abort();
      settleAbort('abort');
    };
    signal?.addEventListener('abort', onAbort, { once: true });

    const nativeErrors = NATIVE_ERRORS.get(this._wllama) ?? [];
    nativeErrors.length = 0;
    const work = this._wllama.createChatCompletion(params);
    onWork(work);
    let outcome;
    try {
      outcome = await Promise.race([work.then(() => 'done'), abortedPromise]);
    } catch (err) {
      if (callbackError) throw callbackError;
      if (err instanceof WllamaAbortError || err?.name === 'AbortError' || aborted) outcome = 'abort';
      else {
        // llama.cpp says little ("(ABORT)") about a file it cannot run: name what the engine saw.
        const refusal = this.info?.engine_refusal ? ` (the tabloop engine had refused this file: ${this.info.engine_refusal})` : '';
        const said = failureMessage(err, nativeErrors);
        throw new Error(`the local model failed: ${said}${refusal}`, { cause: err });
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (callbackError) throw callbackError;

    // prompt_progress.total counts the whole prompt; timings.prompt_n only the part not reused
    // from the previous request's KV cache (timings.cache_n).
    const inputTokens =
      promptTokens ?? usage?.prompt_tokens ?? (timings ? (timings.cache_n ?? 0) + (timings.prompt_n ?? 0) : 0);
    const outputTokens = usage?.completion_tokens ?? timings?.predicted_n ?? deltas;
    const firstTokenMs = firstTokenAt == null ? null : Math.round(firstTokenAt - started);
    if (outcome === 'abort') {
      return result(text, 'abort', { input_tokens: inputTokens, output_tokens: deltas }, { first_token_ms: firstTokenMs });
    }
    const tokensPerS = timings?.predicted_per_second ?? null;
    if (tokensPerS != null) this.last_tokens_per_s = tokensPerS;
    this._watchRate(timings);
    return result(
      text,
      finishReason === 'length' ? 'length' : 'stop',
      { input_tokens: inputTokens, output_tokens: outputTokens },
      {
        first_token_ms: firstTokenMs,
        prompt_ms: timings?.prompt_ms != null ? Math.round(timings.prompt_ms) : null,
        generation_ms: timings?.predicted_ms != null ? Math.round(timings.predicted_ms) : null,
        tokens_per_s: tokensPerS,
        // prompt tokens read this call, and those reused from the previous call's KV cache
        prompt_tokens: timings?.prompt_n ?? null,
        cached_tokens: timings?.cache_n ?? null,
        prompt_tokens_per_s: timings?.prompt_per_second ?? null,
      },
    );
  }

  /** Stops the model and frees its memory (waits for a running completion to end). */
  async unload() {
    if (this._unloaded) return;
    this._unloaded = true;
    await this._queue.catch(() => {});
    try {
      await this._wllama.exit();
    } finally {
      modelStopped();
    }
  }
}
