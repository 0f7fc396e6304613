// The models a page offers besides the bundled one: what is in browser storage and how big it
// is, a download that must end up stored (the model list's Download), and GGUF files the user
// picks from disk.
//
// A picked file is stored like a download, under a key of its own on this origin
// (`/.tabloop-local-file/<size>-<time>/<name>`, never fetched): so the model worker reads it
// the way it reads a cached download, a reload or a resumed session finds it again, and the
// model list shows its size and removes it like any other. When storage refuses it (quota,
// private mode) it is used straight from the File until the page closes, and the result says so.

import { DEFAULT_MODEL_URL, ModelDownloadError, fetchModel } from './model_store.js';
import {
  abortError,
  absoluteUrl,
  cacheRead,
  cacheWrite,
  isAbort,
  listStored,
  localFileKey,
  memoryModels,
  modelStorageKind,
  opfsRead,
  opfsWrite,
  resolveStore,
  storageError,
} from './model_storage.js';

const PROGRESS_INTERVAL_MS = 100;

/**
 * Where each model is kept, if anywhere.
 * @param {string[]} urls model URLs ('' for the bundled model)
 * @returns {Promise<{url: string, key: string, store: 'cache'|'opfs'|'memory'|null, bytes: number|null}[]>}
 */
export async function modelStatus(urls) {
  const kind = modelStorageKind();
  return Promise.all(
    urls.map(async (url) => {
      const key = absoluteUrl(url || DEFAULT_MODEL_URL);
      const held = memoryModels.get(key);
      if (held) return { url, key, store: 'memory', bytes: held.size };
      let blob = null;
      try {
        if (kind === 'cache') blob = await cacheRead(key);
        else if (kind === 'opfs') blob = await opfsRead(key);
      } catch {
        blob = null;
      }
      return { url, key, store: blob ? kind : null, bytes: blob?.size ?? null };
    }),
  );
}

/**
 * Every model in browser storage (and picked files held in memory).
 * @returns {Promise<{url: string, store: 'cache'|'opfs'|'memory', bytes: number}[]>}
 */
export async function listStoredModels() {
  return listStored();
}

/**
 * Downloads a model into browser storage (or finds it there). Unlike loading a model, a
 * download that cannot be stored is an error, not a copy in memory.
 * @param {string} url
 * @param {{onProgress?: (p: {loaded: number, total: number|null}) => void, signal?: AbortSignal}} [options]
 * @returns {Promise<{url: string, store: string, bytes: number, from_cache: boolean}>}
 */
export async function downloadModel(url, { onProgress, signal } = {}) {
  if (modelStorageKind() === 'none') {
    throw new ModelDownloadError('this browser offers no storage for models (no Cache API, no OPFS)', { url });
  }
  const out = await fetchModel(url, { onProgress, signal, fallback: false });
  return { url: out.url, store: out.store, bytes: out.bytes, from_cache: out.from_cache };
}

function countingStream(blob, { onProgress, signal }) {
  const reader = blob.stream().getReader();
  const total = blob.size;
  let loaded = 0;
  let last = 0;
  const report = (force) => {
    const now = performance.now();
    if (!force && now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    onProgress?.({ loaded, total });
  };
  report(true);
  return new ReadableStream({
    async pull(controller) {
      if (signal?.aborted) {
        const err = abortError();
        controller.error(err);
        reader.cancel(err).catch(() => {});
        return;
      }
      const { done, value } = await reader.read();
      if (done) {
        report(true);
        controller.close();
        return;
      }
      loaded += value.byteLength;
      report(false);
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * Checks that a picked file is a GGUF model and stores it (see the top of this file).
 * @param {File} file
 * @param {{onProgress?: (p: {loaded: number, total: number}) => void, signal?: AbortSignal, store?: 'auto'|'cache'|'opfs'|'none'}} [options]
 * @returns {Promise<{url: string, name: string, bytes: number, store: 'cache'|'opfs'|'memory', note: string|null}>}
 *   `url` is the key to load it by (loadLocalModel({url}), or the settings' model URL)
 */
export async function storeModelFile(file, { onProgress, signal, store = 'auto' } = {}) {
  if (!(file instanceof Blob)) throw new TypeError('storeModelFile(): expected a File');
  const name = file.name || 'model.gguf';
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  if (head.length < 4) throw new ModelDownloadError(`${name} is not a GGUF file (it is too short)`, { url: name });
  if (String.fromCharCode(...head) !== 'GGUF') {
    throw new ModelDownloadError(`${name} is not a GGUF file (it does not start with "GGUF")`, { url: name });
  }
  const key = localFileKey(file);
  const kind = resolveStore(store);
  const result = (stored, note = null) => ({ url: key, name, bytes: file.size, store: stored, note });
  if (kind === 'none') {
    memoryModels.set(key, file);
    return result('memory', 'this browser offers no storage for models: it is used from the picked file until this page closes');
  }
  try {
    const stream = countingStream(file, { onProgress, signal });
    if (kind === 'cache') await cacheWrite(key, stream, file.size);
    else await opfsWrite(key, stream);
  } catch (err) {
    if (isAbort(err) || signal?.aborted) throw abortError();
    memoryModels.set(key, file);
    return result('memory', `it is used from the picked file until this page closes, as ${storageError(err)}`);
  }
  memoryModels.delete(key);
  return result(kind);
}
