// Downloads a GGUF model file once and keeps it in the browser, so a reload reads it locally.
//
// Storage, in order of preference ("auto"): the Cache API (keyed by the model's absolute URL),
// else the origin private file system (OPFS), else none (the file is kept in memory only).
// A download is streamed straight into storage and committed only when every byte arrived:
// the byte count must equal Content-Length, so a failed or cut-off download leaves no entry.

/** The bundled default model: SmolLM2-135M-Instruct, Q4_1 layers re-stored as Q8_0 (fast wasm kernels; see scripts/fetch-model-assets.sh). */
export const DEFAULT_MODEL_URL = new URL(
  '../models/smollm2-135m-instruct-q8_0.gguf',
  import.meta.url,
).href;


import {
  MODEL_CACHE_NAME,
  absoluteUrl,
  abortError,
  cacheRead,
  cacheWrite,
  hasCacheApi,
  hasOpfs,
  isAbort,
  isLocalFileKey,
  localFileName,
  memoryModels,
  opfsName,
  opfsRead,
  opfsRemove,
  opfsWrite,
  resolveStore,
  storageError,
} from './model_storage.js';
import { ModelBytes } from './model_bytes.js';

export { MODEL_CACHE_NAME, isLocalFileKey, modelStorageKind } from './model_storage.js';

const GGUF_MAGIC = [0x47, 0x47, 0x55, 0x46]; // "GGUF"
const PROGRESS_INTERVAL_MS = 100;

/** A model download that failed; `loaded`/`total` tell how far it got. */
export class ModelDownloadError extends Error {
  constructor(message, { url, loaded = 0, total = null, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ModelDownloadError';
    this.url = url;
    this.loaded = loaded;
    this.total = total;
  }
}

// ---- download ---------------------------------------------------------------------------------

function describeFetchError(url, err) {
  return new ModelDownloadError(
    `could not download the model from ${url}: ${err?.message ?? err} ` +
      '(offline, or the server does not allow cross-origin requests)',
    { url, cause: err },
  );
}

/**
 * Starts the download and returns a checked byte stream: it reports progress, checks the GGUF
 * magic number, and errors (instead of closing) when fewer or more bytes than Content-Length
 * arrived. `state.error` holds the download error, if any, so callers can tell it apart from a
 * storage error.
 */
async function openDownload(url, { onProgress, signal }) {
  let response;
  try {
    response = await fetch(url, { signal, cache: 'no-store' });
  } catch (err) {
    if (isAbort(err)) throw err;
    throw describeFetchError(url, err);
  }
  if (!response.ok || !response.body) {
    throw new ModelDownloadError(
      `could not download the model from ${url}: HTTP ${response.status} ${response.statusText}`.trim(),
      { url },
    );
  }
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const lengthHeader = response.headers.get('content-length');
  const total = !encoded && lengthHeader != null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
  const state = { loaded: 0, total, error: null };
  const reader = response.body.getReader();
  const head = [];
  let lastReport = 0;
  const report = (force) => {
    const now = performance.now();
    if (!force && now - lastReport < PROGRESS_INTERVAL_MS) return;
    lastReport = now;
    onProgress?.({ phase: 'download', loaded: state.loaded, total, from_cache: false });
  };
  const fail = (controller, err) => {
    state.error = err;
    controller.error(err);
    reader.cancel(err).catch(() => {});
  };
  report(true);
  const stream = new ReadableStream({
    async pull(controller) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (err) {
        const wrapped = isAbort(err) || signal?.aborted
          ? abortError()
          : new ModelDownloadError(
              `the model download from ${url} failed after ${state.loaded} of ${total ?? '?'} bytes: ${err?.message ?? err}`,
              { url, loaded: state.loaded, total, cause: err },
            );
        fail(controller, wrapped);
        return;
      }
      if (chunk.done) {
        if (head.length < GGUF_MAGIC.length) {
          fail(controller, new ModelDownloadError(`${url} is not a GGUF file (it is too short)`, { url, ...state }));
          return;
        }
        if (total != null && state.loaded !== total) {
          fail(
            controller,
            new ModelDownloadError(
              `the model download from ${url} is incomplete: got ${state.loaded} of ${total} bytes`,
              { url, loaded: state.loaded, total },
            ),
          );
          return;
        }
        report(true);
        controller.close();
        return;
      }
      const bytes = chunk.value;
      for (let i = 0; head.length < GGUF_MAGIC.length && i < bytes.length; i++) head.push(bytes[i]);
      if (head.length >= GGUF_MAGIC.length && !GGUF_MAGIC.every((b, i) => head[i] === b)) {
        fail(controller, new ModelDownloadError(`${url} is not a GGUF file (wrong magic number)`, { url }));
        return;
      }
      state.loaded += bytes.byteLength;
      if (total != null && state.loaded > total) {
        fail(
          controller,
          new ModelDownloadError(`the model download from ${url} sent more than ${total} bytes`, { url, ...state }),
        );
        return;
      }
      report(false);
      controller.enqueue(bytes);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { stream, state };
}

async function downloadToMemory(url, options) {
  const { stream } = await openDownload(url, options);
  return ModelBytes.read(stream);
}

/**
 * Gets a GGUF model: from browser storage when it was downloaded before, else by downloading
 * it (and storing it for next time). A download no storage keeps is held as ModelBytes (see
 * model_bytes.js: a private window may refuse a Blob that large).
 *
 * @param {string} [url] the model's URL (relative URLs resolve against the page); default: bundled SmolLM2
 * @param {object} [options]
 * @param {(p: {phase: 'download'|'cache', loaded: number, total: number|null, from_cache: boolean}) => void} [options.onProgress]
 *   called with bytes loaded so far and the total (null when the server does not say); the last
 *   call has loaded === total
 * @param {AbortSignal} [options.signal] aborts the download (rejects with an AbortError)
 * @param {'auto'|'cache'|'opfs'|'none'} [options.store] where to keep the file (default 'auto')
 * @param {boolean} [options.fallback] when storing fails (quota...), keep the download in memory
 *   (default true); false rejects with a ModelDownloadError that says why
 * @returns {Promise<{file: Blob|ModelBytes, url: string, bytes: number, from_cache: boolean, store: string, ms: number}>}
 */
export async function fetchModel(url = DEFAULT_MODEL_URL, { onProgress, signal, store = 'auto', fallback = true } = {}) {
  const started = performance.now();
  const key = absoluteUrl(url);
  const kind = resolveStore(store);
  if (signal?.aborted) throw abortError();
  const done = (file, fromCache, usedStore) => ({
    file,
    url: key,
    bytes: file.size,
    from_cache: fromCache,
    store: usedStore,
    ms: Math.round(performance.now() - started),
  });

  const held = memoryModels.get(key);
  if (held) {
    onProgress?.({ phase: 'cache', loaded: held.size, total: held.size, from_cache: true });
    return done(held, true, 'memory');
  }
  let cached = null;
  try {
    if (kind === 'cache') cached = await cacheRead(key);
    else if (kind === 'opfs') cached = await opfsRead(key);
  } catch (err) {
    console.warn('[tabloop] could not read the model cache; downloading', err);
  }
  if (cached) {
    onProgress?.({ phase: 'cache', loaded: cached.size, total: cached.size, from_cache: true });
    return done(cached, true, kind);
  }
  if (isLocalFileKey(key)) {
    throw new ModelDownloadError(
      `the model file ${localFileName(key)} is no longer in browser storage: pick the file again`,
      { url: key },
    );
  }

  if (kind !== 'none') {
    const { stream, state } = await openDownload(key, { onProgress, signal });
    try {
      const blob = kind === 'cache' ? await cacheWrite(key, stream, state.total) : await opfsWrite(key, stream);
      return done(blob, false, kind);
    } catch (err) {
      if (state.error) throw state.error;
      if (isAbort(err) || signal?.aborted) throw abortError();
      stream.cancel().catch(() => {}); // storage failed before reading it (a locked stream stays as is)
      if (!fallback) {
        throw new ModelDownloadError(`the model from ${key} was not stored: ${storageError(err)}`, { url: key, cause: err });
      }
      // The download was fine but storing it failed (quota, private mode...): keep it in memory.
      console.warn(`[tabloop] could not store the model (${kind}); keeping it in memory only`, err);
    }
  }
  return done(await downloadToMemory(key, { onProgress, signal }), false, 'none');
}

/**
 * Whether the model at `url` is in browser storage (so loading it needs no download).
 * @param {string} [url]
 * @param {{store?: 'auto'|'cache'|'opfs'|'none'}} [options]
 * @returns {Promise<boolean>}
 */
export async function isModelCached(url = DEFAULT_MODEL_URL, { store = 'auto' } = {}) {
  const key = absoluteUrl(url);
  const kind = resolveStore(store);
  if (memoryModels.has(key)) return true;
  try {
    if (kind === 'cache') return (await cacheRead(key)) != null;
    if (kind === 'opfs') return (await opfsRead(key)) != null;
  } catch {
    return false;
  }
  return false;
}

/**
 * Removes stored models from both the Cache API and OPFS: the one at `url`, or all of them.
 * @param {string} [url] omit to remove every stored model
 * @returns {Promise<number>} how many entries were removed
 */
export async function clearModelCache(url) {
  let removed = 0;
  const key = url == null ? null : absoluteUrl(url);
  if (key == null) {
    removed += memoryModels.size;
    memoryModels.clear();
  } else if (memoryModels.delete(key)) {
    removed += 1;
  }
  if (hasCacheApi()) {
    if (key == null) {
      if (await caches.delete(MODEL_CACHE_NAME)) removed += 1;
    } else {
      const cache = await caches.open(MODEL_CACHE_NAME);
      if (await cache.delete(key)) removed += 1;
    }
  }
  if (hasOpfs()) {
    try {
      const root = await navigator.storage.getDirectory();
      if (key == null) {
        await root.removeEntry(MODEL_CACHE_NAME, { recursive: true });
        removed += 1;
      } else {
        const dir = await root.getDirectoryHandle(MODEL_CACHE_NAME);
        const name = await opfsName(key);
        try {
          await dir.getFileHandle(`${name}.gguf`);
          removed += 1;
        } catch {
          // not stored
        }
        await opfsRemove(dir, name);
      }
    } catch {
      // no OPFS directory yet
    }
  }
  return removed;
}
