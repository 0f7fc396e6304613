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

/** Name of the Cache API cache and of the OPFS directory that hold models. */
export const MODEL_CACHE_NAME = 'tabloop-models-v1';

const EXPECTED_BYTES_HEADER = 'x-tabloop-expected-bytes';
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

function absoluteUrl(url) {
  return new URL(url, globalThis.location?.href).href;
}

function isAbort(err) {
  return err?.name === 'AbortError';
}

function abortError() {
  return new DOMException('The model download was aborted', 'AbortError');
}

function hasCacheApi() {
  return typeof globalThis.caches?.open === 'function';
}

function hasOpfs() {
  return (
    typeof globalThis.navigator?.storage?.getDirectory === 'function' &&
    typeof globalThis.FileSystemFileHandle === 'function' &&
    'createWritable' in globalThis.FileSystemFileHandle.prototype
  );
}

/**
 * Which storage `store: 'auto'` uses in this page: 'cache', 'opfs' or 'none'.
 * @returns {'cache'|'opfs'|'none'}
 */
export function modelStorageKind() {
  if (hasCacheApi()) return 'cache';
  if (hasOpfs()) return 'opfs';
  return 'none';
}

function resolveStore(store = 'auto') {
  if (store === 'auto') return modelStorageKind();
  if (store === 'cache' && !hasCacheApi()) throw new Error('the Cache API is not available here');
  if (store === 'opfs' && !hasOpfs()) throw new Error('OPFS is not available here');
  if (!['cache', 'opfs', 'none'].includes(store)) throw new Error(`unknown model store: ${store}`);
  return store;
}

// ---- Cache API --------------------------------------------------------------------------------

async function cacheRead(key) {
  const cache = await caches.open(MODEL_CACHE_NAME);
  const hit = await cache.match(key);
  if (!hit) return null;
  const blob = await hit.blob();
  const expected = Number(hit.headers.get(EXPECTED_BYTES_HEADER) ?? NaN);
  if (blob.size === 0 || (Number.isFinite(expected) && blob.size !== expected)) {
    await cache.delete(key); // a damaged entry: drop it and download again
    return null;
  }
  return blob;
}

async function cacheWrite(key, stream, expected) {
  const cache = await caches.open(MODEL_CACHE_NAME);
  const headers = { 'content-type': 'application/octet-stream' };
  if (expected != null) headers[EXPECTED_BYTES_HEADER] = String(expected);
  try {
    // put() reads the whole body before it commits; if the body errors nothing is stored.
    await cache.put(key, new Response(stream, { headers }));
  } catch (err) {
    await cache.delete(key).catch(() => {});
    throw err;
  }
  const blob = await cacheRead(key);
  if (!blob) throw new Error('the model was stored in the Cache API but could not be read back');
  return blob;
}

// ---- OPFS -------------------------------------------------------------------------------------

async function opfsName(key) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

async function opfsDir() {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(MODEL_CACHE_NAME, { create: true });
}

async function opfsRemove(dir, name) {
  for (const entry of [`${name}.gguf`, `${name}.json`]) {
    await dir.removeEntry(entry).catch(() => {});
  }
}

async function opfsRead(key) {
  const dir = await opfsDir();
  const name = await opfsName(key);
  let meta;
  let file;
  try {
    const metaFile = await (await dir.getFileHandle(`${name}.json`)).getFile();
    meta = JSON.parse(await metaFile.text());
    file = await (await dir.getFileHandle(`${name}.gguf`)).getFile();
  } catch {
    return null;
  }
  if (meta?.url !== key || file.size === 0 || file.size !== meta.bytes) {
    await opfsRemove(dir, name);
    return null;
  }
  return file;
}

async function opfsWrite(key, stream) {
  const dir = await opfsDir();
  const name = await opfsName(key);
  await opfsRemove(dir, name);
  const handle = await dir.getFileHandle(`${name}.gguf`, { create: true });
  const writable = await handle.createWritable();
  try {
    // pipeTo() aborts the writable when the source errors; an aborted writable is discarded.
    await stream.pipeTo(writable);
  } catch (err) {
    await opfsRemove(dir, name);
    throw err;
  }
  const file = await handle.getFile();
  // The metadata file is written last: an entry without it is never trusted.
  const metaWritable = await (await dir.getFileHandle(`${name}.json`, { create: true })).createWritable();
  await metaWritable.write(JSON.stringify({ url: key, bytes: file.size }));
  await metaWritable.close();
  return file;
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
  const parts = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  return new Blob(parts, { type: 'application/octet-stream' });
}

/**
 * Gets a GGUF model as a Blob: from browser storage when it was downloaded before, else by
 * downloading it (and storing it for next time).
 *
 * @param {string} [url] the model's URL (relative URLs resolve against the page); default: bundled SmolLM2
 * @param {object} [options]
 * @param {(p: {phase: 'download'|'cache', loaded: number, total: number|null, from_cache: boolean}) => void} [options.onProgress]
 *   called with bytes loaded so far and the total (null when the server does not say); the last
 *   call has loaded === total
 * @param {AbortSignal} [options.signal] aborts the download (rejects with an AbortError)
 * @param {'auto'|'cache'|'opfs'|'none'} [options.store] where to keep the file (default 'auto')
 * @returns {Promise<{blob: Blob, url: string, bytes: number, from_cache: boolean, store: string, ms: number}>}
 */
export async function fetchModel(url = DEFAULT_MODEL_URL, { onProgress, signal, store = 'auto' } = {}) {
  const started = performance.now();
  const key = absoluteUrl(url);
  const kind = resolveStore(store);
  if (signal?.aborted) throw abortError();
  const done = (blob, fromCache, usedStore) => ({
    blob,
    url: key,
    bytes: blob.size,
    from_cache: fromCache,
    store: usedStore,
    ms: Math.round(performance.now() - started),
  });

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

  if (kind !== 'none') {
    const { stream, state } = await openDownload(key, { onProgress, signal });
    try {
      const blob = kind === 'cache' ? await cacheWrite(key, stream, state.total) : await opfsWrite(key, stream);
      globalThis.navigator?.storage?.persist?.().catch(() => {});
      return done(blob, false, kind);
    } catch (err) {
      if (state.error) throw state.error;
      if (isAbort(err) || signal?.aborted) throw abortError();
      stream.cancel().catch(() => {}); // storage failed before reading it (a locked stream stays as is)
      // The download was fine but storing it failed (quota, private mode...): keep it in memory.
      console.warn(`[tabloop] could not store the model (${kind}); keeping it in memory only`, err);
    }
  }
  const blob = await downloadToMemory(key, { onProgress, signal });
  return done(blob, false, 'none');
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
