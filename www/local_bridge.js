// The bridge between the Rust local-model client and the in-tab model module. wasm-bindgen
// copies this file on its own as a snippet, so it imports nothing statically: it loads the real
// module (www/local/local_model.js by default) with a dynamic import resolved against the page,
// and hands Rust plain, normalised values so the Rust side does not depend on the module's
// internals.

const DEFAULT_MODULE = 'www/local/local_model.js';
const modules = new Map();

function baseUrl() {
  return globalThis.TABLOOP_BASE ?? globalThis.document?.baseURI ?? globalThis.location?.href;
}

function loadModule(moduleUrl) {
  const href = new URL(moduleUrl || DEFAULT_MODULE, baseUrl()).href;
  let pending = modules.get(href);
  if (!pending) {
    pending = import(href);
    modules.set(href, pending);
    pending.catch(() => modules.delete(href));
  }
  return pending;
}

function count(value) {
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : 0;
}

/**
 * Loads the local model module and starts a model.
 * @param {string} moduleUrl module to import, relative to the page ('' for the default)
 * @param {string} modelUrl GGUF URL ('' for the module's default)
 * @param {(p: {phase: string, loaded: number, total: number|null, from_cache: boolean, per_second: number|null, note: string|null}) => void} onProgress
 *   download / start progress, and later each completion's ('prompt', 'writing', then 'idle'
 *   once it has ended: see completionProgress)
 * @param {AbortSignal} signal aborts the download / start
 * @returns {Promise<object>} an opaque model handle for bridgeComplete / bridgeUnload
 */
export async function bridgeLoad(moduleUrl, modelUrl, onProgress, signal) {
  const module = await loadModule(moduleUrl);
  if (typeof module.loadLocalModel !== 'function') {
    throw new TypeError('the local model module has no loadLocalModel()');
  }
  // Rust drops `onProgress` once the load is aborted, or with the model (bridgeForget): a
  // report the module makes after that is dropped here.
  const live = { open: true };
  const options = {
    signal,
    onProgress: (p) =>
      live.open &&
      !signal.aborted &&
      onProgress({
        phase: String(p?.phase ?? ''),
        loaded: count(p?.loaded),
        total: p?.total == null ? null : count(p.total),
        from_cache: !!p?.from_cache,
        per_second: rate(p?.per_second),
        note: typeof p?.note === 'string' ? p.note : null,
      }),
  };
  if (modelUrl) options.url = modelUrl;
  const model = await module.loadLocalModel(options);
  // Completions report their progress (reading the prompt, writing) to the same listener.
  progressOf.set(model, options.onProgress);
  liveOf.set(model, live);
  return model;
}

const progressOf = new WeakMap();
/** Model handle -> `{open}`: whether Rust still holds the model's progress callback. */
const liveOf = new WeakMap();

/**
 * Rust let go of a model (and of the progress callback it gave bridgeLoad): its reports, and a
 * completion's idle report still waiting, reach nobody from now on.
 * @param {object} model handle from bridgeLoad
 */
export function bridgeForget(model) {
  clearTimeout(idleOf.get(model));
  idleOf.delete(model);
  const live = liveOf.get(model);
  if (live) live.open = false;
}

function rate(value) {
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 10) / 10 : null;
}

/**
 * Runs one completion.
 * @param {object} model handle from bridgeLoad
 * @param {object} request `{messages, grammar?, max_tokens}`, made for this call (the grammar
 *   is GBNF text built by the Rust side)
 * @param {(text: string) => void} onDelta called with each generated piece of text
 * @param {AbortSignal} signal aborts the generation
 * @returns {Promise<{text: string, finish: string, input_tokens: number, output_tokens: number}>}
 *   `finish` is 'stop', 'length' or 'abort'
 */
export async function bridgeComplete(model, request, onDelta, signal) {
  const progress = completionProgress(model, signal);
  // Rust drops `onDelta` once this call ends or is aborted: a piece written later is dropped.
  let open = true;
  try {
    const out = await model.complete(request, {
      onDelta: (text) => open && !signal.aborted && onDelta(String(text)),
      onProgress: progress.report,
      signal,
    });
    const finish = out?.finish === 'length' || out?.finish === 'abort' ? out.finish : 'stop';
    return {
      text: typeof out?.text === 'string' ? out.text : '',
      finish,
      input_tokens: count(out?.usage?.input_tokens),
      output_tokens: count(out?.usage?.output_tokens),
    };
  } finally {
    open = false;
    progress.end();
  }
}

/** A model's 'idle' report not sent yet: model handle -> timer (see completionProgress). */
const idleOf = new WeakMap();

/**
 * One completion's progress reports, passed on to the model's `listener` until the completion
 * ends (returns, fails, or `signal` stops it), then one last report, phase 'idle' with what the
 * completion wrote (`loaded` pieces at `per_second`): without it the page kept showing
 * "Writing: 18 pieces" once the reply was done. A report the model sends after that (a worker's
 * message already on its way) is dropped, so it cannot put "Writing" back. The idle report
 * waits for the next task and is dropped if another completion starts first (an answer's text
 * is a second completion right after the first): the header does not flash "Ready" between.
 */
function completionProgress(model, signal) {
  const listener = progressOf.get(model);
  clearTimeout(idleOf.get(model));
  idleOf.delete(model);
  let ended = false;
  let written = null;
  const end = () => {
    if (ended) return;
    ended = true;
    signal?.removeEventListener('abort', end);
    if (!listener) return;
    const loaded = written?.loaded ?? 0;
    const idle = { phase: 'idle', loaded, total: loaded, per_second: written?.per_second ?? null };
    idleOf.set(model, setTimeout(() => {
      idleOf.delete(model);
      listener(idle);
    }, 0));
  };
  signal?.addEventListener('abort', end, { once: true });
  const report = (p) => {
    if (ended) return;
    if (p?.phase === 'writing') written = p;
    listener(p);
  };
  return { report: listener ? report : undefined, end };
}

/**
 * The model's chat template (the Jinja text in its GGUF), from which the Rust side picks the
 * model's tool-call format; null when the runtime does not give it.
 * @param {object} model handle from bridgeLoad
 * @returns {string|null}
 */
export function bridgeChatTemplate(model) {
  const template = model?.chatTemplate;
  return typeof template === 'string' ? template : null;
}

/**
 * Stops a model and frees its memory.
 * @param {object} model handle from bridgeLoad
 */
export async function bridgeUnload(model) {
  if (typeof model?.unload === 'function') await model.unload();
}

/**
 * Whether a model file is already in browser storage (so loading it costs no download).
 * @param {string} moduleUrl module to import, relative to the page ('' for the default)
 * @param {string} modelUrl GGUF URL ('' for the module's default)
 * @returns {Promise<boolean>}
 */
export async function bridgeIsCached(moduleUrl, modelUrl) {
  const module = await loadModule(moduleUrl);
  if (typeof module.isModelCached !== 'function') return false;
  return !!(await module.isModelCached(modelUrl || undefined));
}
