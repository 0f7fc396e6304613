// The in-tab local model: a small GGUF model run in a worker, no server and no key. Models the
// engine runs (llama, qwen2, qwen3 and gemma3 architectures in F32/F16/BF16, Q8_0, Q4/Q5 and
// K-quant blocks, ChatML or Gemma templates: the bundled SmolLM2, Qwen2.5, Qwen3, Gemma 3) run
// on tabloop's own engine (engine/, WebAssembly relaxed SIMD, or SIMD128 where the browser has
// no relaxed SIMD); others, and any model when
// the browser offers WebGPU, run on wllama (llama.cpp compiled to wasm). One completion runs at
// a time; later calls wait their turn.
//
//   const model = await loadLocalModel({ onProgress });
//   const out = await model.complete({ messages, max_tokens: 64 }, { onDelta, signal });
//   await model.unload();

import { DEFAULT_MODEL_URL, fetchModel } from './model_store.js';
import { chooseThreads, threadChoices } from './core_probe.js';
import { EngineModel, EngineUnsupportedError, startEngine } from './engine/engine_model.js';
import { startWllama, WllamaModel } from './wllama_model.js';
import { modelStarted, modelStopped } from './live_models.js';
import { ModelBytes } from './model_bytes.js';

export { DEFAULT_MODEL_URL, clearModelCache, isModelCached, ModelDownloadError } from './model_store.js';
export { liveLocalModels } from './live_models.js';

const DEFAULT_N_CTX = 4096;
const DEFAULT_N_BATCH = 64;
/** Most threads the engine takes. */
const MAX_ENGINE_THREADS = 8;

// A module with one 64-bit memory: validates only where wasm memory64 is supported.
const MEMORY64_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 5, 3, 1, 4, 0]);

/**
 * What this browser offers the local model.
 * @returns {{ok: boolean, memory64: boolean, jspi: boolean, cross_origin_isolated: boolean, threads: number, reason: string|null}}
 *   `ok` is false when the model cannot run here (`reason` says why); `threads` is what
 *   loadLocalModel would use by default.
 */
export function localModelSupport() {
  const wasm = typeof WebAssembly === 'object';
  let memory64 = false;
  try {
    memory64 = wasm && WebAssembly.validate(MEMORY64_PROBE);
  } catch {
    memory64 = false;
  }
  const jspi = wasm && typeof WebAssembly.Suspending === 'function' && typeof WebAssembly.promising === 'function';
  const isolated = !!globalThis.crossOriginIsolated;
  const reason = wasm ? null : 'WebAssembly is not available';
  return {
    ok: reason == null,
    memory64,
    memory64_reason: memory64 ? null : 'this browser lacks WebAssembly memory64, which wllama needs for this model',
    jspi,
    cross_origin_isolated: isolated,
    threads: defaultThreads(),
    reason,
  };
}

/**
 * The threads that are safe whatever the machine is doing: 1 unless the page is cross-origin
 * isolated (threads need SharedArrayBuffer); when isolated, half the logical cores (at most 8).
 * llama.cpp's threads spin-wait on each other, so taking every core makes them stall when the
 * tab or the machine is busy (measured: 2 threads on a loaded 2-core machine were ~10x slower
 * than 1). loadLocalModel takes more when a probe finds the cores free (core_probe.js).
 */
export function defaultThreads() {
  if (!globalThis.crossOriginIsolated) return 1;
  return threadChoices(globalThis.navigator?.hardwareConcurrency || 1).safe;
}

/** Why WebGPU cannot be used here, or null when the browser offers an adapter. */
async function webGpuProblem() {
  if (!globalThis.navigator?.gpu) return 'this browser offers no WebGPU';
  try {
    const adapter = await globalThis.navigator.gpu.requestAdapter();
    return adapter ? null : 'this browser has no WebGPU adapter';
  } catch (err) {
    return `WebGPU failed: ${err?.message ?? err}`;
  }
}

function abortError(message) {
  return new DOMException(message, 'AbortError');
}

/**
 * Downloads (or reads from browser storage) a GGUF model and starts it.
 *
 * @param {object} [options]
 * @param {string} [options.url] GGUF URL; default: the bundled SmolLM2-135M-Instruct (Q8_0)
 * @param {Blob} [options.blob] a GGUF file the user picked (used instead of `url`, not stored)
 * @param {(p: {phase: 'download'|'cache'|'init', loaded: number, total: number|null, from_cache: boolean, note?: string}) => void} [options.onProgress]
 *   download progress in bytes; the last 'download'/'cache' event has loaded === total, then an
 *   'init' event when the model starts, whose `note` says where it runs (a second one when the
 *   GPU failed and it falls back to the CPU)
 * @param {number} [options.threads] worker threads; forced to 1 unless the page is cross-origin
 *   isolated. When not given, a short probe of the cores (core_probe.js) chooses: every core
 *   when they are free, else half of them
 * @param {number} [options.n_ctx] context length in tokens (default 4096)
 * @param {'auto'|'cache'|'opfs'|'none'} [options.store] where to keep the download (default 'auto')
 * @param {'auto'|boolean} [options.gpu] 'auto' (default): offload to WebGPU when the browser
 *   has an adapter, else (or when starting on the GPU fails) run on the CPU; false: CPU only
 * @param {number} [options.n_batch] prompt tokens per decode call (default 64): the prompt-reading
 *   progress and a cancel land between calls, so a smaller batch reports and stops sooner
 * @param {AbortSignal} [options.signal] aborts the download / start (rejects with an AbortError)
 * @param {'auto'|'tabloop'|'wllama'} [options.engine] what runs the model: 'auto' (default)
 *   tabloop's engine on the CPU when it runs this model, else wllama (and wllama on the GPU
 *   when the browser has one); 'tabloop' only the engine (rejects a model it does not run);
 *   'wllama' only wllama
 * @param {'simd128'} [options.engineBuild] run the engine's SIMD128 build even where the
 *   browser has relaxed SIMD (what Safari runs; for tests and benchmarks)
 * @param {string} [options.engineActivations] the engine's activation encoding by name ('7-bit',
 *   '8-bit sign-magnitude', …) instead of the one probed for this CPU (benchmarks; loading
 *   fails where the engine's kernels are not exact with it here)
 * @param {boolean} [options.debug] print llama.cpp's own log
 * @returns {Promise<LocalModel>}
 */
export async function loadLocalModel(options = {}) {
  const { url = DEFAULT_MODEL_URL, blob, onProgress, signal, store = 'auto', gpu = 'auto', debug = false } = options;
  const engine = options.engine ?? 'auto';
  if (!['auto', 'tabloop', 'wllama'].includes(engine)) throw new TypeError(`unknown engine ${engine}`);
  const support = localModelSupport();
  if (!support.ok) throw new Error(`the local model cannot run in this browser: ${support.reason}`);
  const started = performance.now();

  let source;
  if (blob) {
    source = { file: blob, url: blob.name ?? 'file', bytes: blob.size, from_cache: false, store: 'none', ms: 0 };
    onProgress?.({ phase: 'cache', loaded: blob.size, total: blob.size, from_cache: false });
  } else {
    source = await fetchModel(url, { onProgress, signal, store });
  }
  if (signal?.aborted) throw abortError('loading the local model was aborted');

  const isolated = !!globalThis.crossOriginIsolated;
  const nCtx = options.n_ctx ?? DEFAULT_N_CTX;
  const nBatch = options.n_batch ?? DEFAULT_N_BATCH;
  const init = (note) =>
    onProgress?.({ phase: 'init', loaded: source.bytes, total: source.bytes, from_cache: source.from_cache, note });
  const initStarted = performance.now();
  const figures = (extra) => {
    const now = performance.now();
    return {
      url: source.url,
      bytes: source.bytes,
      from_cache: source.from_cache,
      store: source.store,
      download_ms: Math.round(source.ms),
      init_ms: Math.round(now - initStarted),
      load_ms: Math.round(now - started),
      cross_origin_isolated: isolated,
      n_ctx: nCtx,
      n_batch: nBatch,
      ...extra,
    };
  };
  const gpuProblem = gpu === false ? 'the GPU is turned off' : await webGpuProblem();

  // tabloop's engine, on the CPU, unless the GPU can take the model
  let engineRefusal = null;
  const asked = Number.isInteger(options.threads) && options.threads > 0 ? options.threads : null;
  if (engine === 'tabloop' || (engine === 'auto' && gpuProblem != null)) {
    // The engine's threads take their work in small pieces as they come free, so a busy core
    // slows only its own share: every core is worth taking (threads need isolation).
    const cores = Math.min(globalThis.navigator?.hardwareConcurrency || 1, MAX_ENGINE_THREADS);
    const threads = !isolated ? 1 : (asked ?? cores);
    const why = gpuProblem ?? 'the engine runs on the CPU';
    const threadsReason = !isolated
      ? 'not cross-origin isolated: 1 thread'
      : asked != null
        ? `asked for ${asked}`
        : `every core (${cores}): threads take work as they come free`;
    const note = `on the CPU: ${why}; tabloop engine, ${threads} thread${threads === 1 ? '' : 's'}`;
    init(note);
    try {
      const running = await startEngine(source.file, { context: nCtx, threads, signal, build: options.engineBuild, activations: options.engineActivations });
      modelStarted();
      // which engine runs it and why: the engine runs this architecture, with these kernels
      const kernels = running.info.kernels === 'wasm simd128' ? 'SIMD128: this browser has no relaxed SIMD' : running.info.kernels;
      const ran = `on the CPU: ${why}; tabloop engine (it runs ${running.info.architecture}; ${kernels}), ${threads} thread${threads === 1 ? '' : 's'}`;
      init(ran);
      const info = figures({
        runtime: 'tabloop',
        kernels: running.info.kernels,
        activations: running.info.activations,
        memory_bytes: running.info.memory_bytes,
        threads: running.info.threads,
        threads_reason: threadsReason,
        threads_probe: null,
        multithread: running.info.threads > 1,
        backend: 'cpu',
        backend_note: ran,
      });
      return new EngineModel(running, info, { batch: nBatch, onUnload: modelStopped });
    } catch (err) {
      if (!(err instanceof EngineUnsupportedError) || engine === 'tabloop') throw err;
      engineRefusal = err.message;
    }
  }

  // wllama: threads as the cores allow (llama.cpp's threads wait for each other)
  if (!support.memory64) throw new Error(`the local model cannot run in this browser: ${support.memory64_reason}`);
  const choice = !isolated
    ? { threads: 1, reason: 'not cross-origin isolated: 1 thread', short: 'the page is not cross-origin isolated', rates: null }
    : asked != null
      ? { threads: asked, reason: `asked for ${asked}`, short: 'as asked', rates: null }
      : await chooseThreads();
  const threads = choice.threads;
  // wllama reads Blobs (held bytes become one; a private window may refuse a large one)
  const wllamaBlob = source.file instanceof ModelBytes ? source.file.toBlob() : source.file;
  const start = (onGpu, nThreads = threads) => startWllama(wllamaBlob, { threads: nThreads, nCtx, nBatch, onGpu, debug });
  let backend = gpuProblem == null ? 'webgpu' : 'cpu';
  const onThreads = `${threads} thread${threads === 1 ? '' : 's'} (${choice.short})`;
  const onWllama = engineRefusal ? `wllama (${engineRefusal}), ` : '';
  let note = gpuProblem == null ? 'on the GPU (WebGPU)' : `on the CPU: ${gpuProblem}; ${onWllama}${onThreads}`;
  init(note);
  let wllama;
  try {
    wllama = await start(backend === 'webgpu');
  } catch (err) {
    if (backend !== 'webgpu') throw new Error(`the local model failed to start: ${err?.message ?? err}`, { cause: err });
    backend = 'cpu';
    note = `on the CPU: starting on the GPU failed (${err?.message ?? err}); ${onThreads}`;
    init(note);
    try {
      wllama = await start(false);
    } catch (again) {
      throw new Error(`the local model failed to start: ${again?.message ?? again}`, { cause: again });
    }
  }
  if (signal?.aborted) {
    await wllama.exit().catch(() => {});
    throw abortError('loading the local model was aborted');
  }
  const info = figures({
    runtime: 'wllama',
    threads: wllama.getNumThreads(),
    threads_reason: choice.reason,
    threads_probe: choice.rates,
    multithread: wllama.isMultithread(),
    backend,
    backend_note: note,
    engine_refusal: engineRefusal,
  });
  // Threads the probe found free may stop being free: if generation then slows down sharply,
  // the model restarts on the threads that are safe on a busy machine.
  const safe = threadChoices(globalThis.navigator?.hardwareConcurrency || 1).safe;
  const fallback =
    asked == null && backend === 'cpu' && info.threads > safe ? { threads: safe, start: () => start(false, safe) } : null;
  return new WllamaModel(wllama, info, fallback);
}
