// The bridge between the playground's model list (Rust) and the model files module
// (www/local/model_files.js). Like local_bridge.js it is copied on its own as a snippet, so it
// imports nothing statically: the module is loaded by URL against the page, which makes it the
// same module instance the local model loads through (picked files held in memory are shared).
// Values handed to Rust are plain and normalised.

const MODULE = 'www/local/model_files.js';
let pending = null;

function baseUrl() {
  return globalThis.TABLOOP_BASE ?? globalThis.document?.baseURI ?? globalThis.location?.href;
}

function files() {
  if (!pending) {
    pending = import(new URL(MODULE, baseUrl()).href);
    pending.catch(() => {
      pending = null;
    });
  }
  return pending;
}

function count(value) {
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : null;
}

function storeKind(value) {
  return ['cache', 'opfs', 'memory'].includes(value) ? value : null;
}

function progress(onProgress) {
  return (p) => onProgress({ loaded: count(p?.loaded) ?? 0, total: count(p?.total) });
}

/**
 * Where each model is kept.
 * @param {string} urlsJson JSON array of model URLs ('' for the bundled model)
 * @returns {Promise<{url: string, store: string|null, bytes: number|null}[]>} in the same order
 */
export async function libraryStatus(urlsJson) {
  const urls = JSON.parse(urlsJson);
  const module = await files();
  const out = await module.modelStatus(urls.map(String));
  return out.map((s, i) => ({ url: urls[i], store: storeKind(s?.store), bytes: count(s?.bytes) }));
}

/**
 * Every stored model; the bundled one is reported with url ''.
 * @returns {Promise<{url: string, store: string|null, bytes: number|null}[]>}
 */
export async function libraryStored() {
  const module = await files();
  const bundled = (await module.modelStatus(['']))[0]?.key;
  const out = await module.listStoredModels();
  return out.map((s) => ({
    url: s?.url === bundled ? '' : String(s?.url ?? ''),
    store: storeKind(s?.store),
    bytes: count(s?.bytes),
  }));
}

/**
 * Downloads a model into browser storage.
 * @param {string} url ('' for the bundled model)
 * @param {(p: {loaded: number, total: number|null}) => void} onProgress
 * @param {AbortSignal} signal
 * @returns {Promise<{url: string, store: string|null, bytes: number|null}>}
 */
export async function libraryDownload(url, onProgress, signal) {
  const module = await files();
  const target = url || (await module.modelStatus(['']))[0].key;
  const out = await module.downloadModel(target, { onProgress: progress(onProgress), signal });
  return { url, store: storeKind(out?.store), bytes: count(out?.bytes) };
}

/**
 * Checks and stores a picked GGUF file.
 * @param {File} file
 * @param {(p: {loaded: number, total: number|null}) => void} onProgress
 * @param {AbortSignal} signal
 * @returns {Promise<{url: string, name: string, store: string|null, bytes: number|null, note: string|null}>}
 */
export async function libraryStoreFile(file, onProgress, signal) {
  const module = await files();
  const out = await module.storeModelFile(file, { onProgress: progress(onProgress), signal });
  return {
    url: String(out.url),
    name: String(out.name ?? ''),
    store: storeKind(out.store),
    bytes: count(out.bytes),
    note: typeof out.note === 'string' ? out.note : null,
  };
}

/**
 * Removes one model from browser storage (and from memory).
 * @param {string} url ('' for the bundled model)
 * @returns {Promise<number>} entries removed
 */
export async function libraryRemove(url) {
  const module = await files();
  const store = await import(new URL('www/local/model_store.js', baseUrl()).href);
  const target = url || (await module.modelStatus(['']))[0].key;
  return store.clearModelCache(target);
}

/**
 * The browser storage this site uses: `{ usage, quota, persisted }` from
 * navigator.storage.estimate() and persisted() (`persisted` null where the browser cannot
 * say). With `persist`, navigator.storage.persist() is asked first (the browser decides; a
 * refusal is not an error).
 * @param {boolean} persist
 */
export async function libraryStorage(persist) {
  const storage = globalThis.navigator?.storage;
  if (persist && typeof storage?.persist === 'function') await storage.persist().catch(() => false);
  const estimate = typeof storage?.estimate === 'function' ? await storage.estimate() : {};
  const persisted = typeof storage?.persisted === 'function' ? Boolean(await storage.persisted()) : null;
  return { usage: count(estimate?.usage) ?? 0, quota: count(estimate?.quota) ?? 0, persisted };
}
