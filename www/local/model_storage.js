// Where downloaded (and picked) GGUF models are kept in the browser: the Cache API keyed by the
// model's absolute URL, else the origin private file system (OPFS), else nowhere. An entry is
// trusted only when its size matches what was recorded at write time, so a damaged or partial
// entry is dropped instead of used. Picked files that storage refused stay in memory.

/** Name of the Cache API cache and of the OPFS directory that hold models. */
export const MODEL_CACHE_NAME = 'tabloop-models-v1';

const EXPECTED_BYTES_HEADER = 'x-tabloop-expected-bytes';
/** Path under the page's origin of the keys a picked file is stored under (never fetched). */
const LOCAL_FILE_PATH = '/.tabloop-local-file/';

/** The key of a model: its URL resolved against the page. */
export function absoluteUrl(url) {
  return new URL(url, globalThis.location?.href).href;
}

// Picked files that browser storage refused (quota, private mode): used from the File itself
// until the page closes. Keyed like stored models.
export const memoryModels = new Map();

/** The key a picked file is stored under: its size, time and name under LOCAL_FILE_PATH. */
export function localFileKey(file) {
  const name = encodeURIComponent(file.name || 'model.gguf');
  return new URL(`${LOCAL_FILE_PATH}${file.size}-${file.lastModified ?? 0}/${name}`, globalThis.location?.href).href;
}

/** Whether `url` is the key of a file the user picked (see storeModelFile), not a download. */
export function isLocalFileKey(url) {
  try {
    return new URL(url, globalThis.location?.href).pathname.startsWith(LOCAL_FILE_PATH);
  } catch {
    return false;
  }
}

/** The file name in a picked file's key. */
export function localFileName(key) {
  const last = new URL(key).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** Why storing failed, in words (quota first). */
export function storageError(err) {
  const full = err?.name === 'QuotaExceededError' || /quota/i.test(String(err?.message ?? ''));
  return full
    ? 'there is not enough browser storage for it (the quota is exceeded): remove other models or free space'
    : `browser storage refused it (${err?.name ?? 'Error'}: ${err?.message ?? err})`;
}

/** Whether `err` is an abort (the user stopped it). */
export function isAbort(err) {
  return err?.name === 'AbortError';
}

/** The error an aborted download rejects with. */
export function abortError() {
  return new DOMException('The model download was aborted', 'AbortError');
}

/** Whether the Cache API is there (it is not on plain-http origins other than localhost). */
export function hasCacheApi() {
  return typeof globalThis.caches?.open === 'function';
}

/** Whether OPFS with writable files is there. */
export function hasOpfs() {
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

/** The storage `store` stands for here; throws for one this page lacks. */
export function resolveStore(store = 'auto') {
  if (store === 'auto') return modelStorageKind();
  if (store === 'cache' && !hasCacheApi()) throw new Error('the Cache API is not available here');
  if (store === 'opfs' && !hasOpfs()) throw new Error('OPFS is not available here');
  if (!['cache', 'opfs', 'none'].includes(store)) throw new Error(`unknown model store: ${store}`);
  return store;
}

// ---- Cache API --------------------------------------------------------------------------------

/** The stored model at `key` in the Cache API, or null (a damaged entry is dropped). */
export async function cacheRead(key) {
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

/** Streams a model into the Cache API; nothing is kept when the stream errors. */
export async function cacheWrite(key, stream, expected) {
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
  askToKeepStorage();
  return blob;
}

/** Where the answer of this page's one `navigator.storage.persist()` request is kept: on the
 *  global, since this module may be loaded under more than one URL in a page. */
const KEEP_REQUEST = Symbol.for('tabloop.keepStorageRequest');

/**
 * Asks the browser, once per page, to keep this site's storage (persistent storage) after a
 * model was stored: a model is hundreds of megabytes a person chose to keep, and evicting it
 * under storage pressure would break offline use. The browser decides (Chromium grants it
 * silently to installed or engaged sites, Firefox may ask); a refusal is not an error, and
 * the settings still offer "Keep it". Resolves to whether the storage is persistent.
 */
export function askToKeepStorage() {
  const storage = globalThis.navigator?.storage;
  if (typeof storage?.persist !== 'function') return Promise.resolve(false);
  globalThis[KEEP_REQUEST] ??= (async () => {
    if (typeof storage.persisted === 'function' && (await storage.persisted())) return true;
    return storage.persist();
  })().catch(() => false);
  return globalThis[KEEP_REQUEST];
}

// ---- OPFS -------------------------------------------------------------------------------------

/** The OPFS file name of `key` (its SHA-256, hex). */
export async function opfsName(key) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The OPFS directory models live in. */
export async function opfsDir() {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(MODEL_CACHE_NAME, { create: true });
}

/** Removes one model (file and metadata) from OPFS. */
export async function opfsRemove(dir, name) {
  for (const entry of [`${name}.gguf`, `${name}.json`]) {
    await dir.removeEntry(entry).catch(() => {});
  }
}

/** The stored model at `key` in OPFS, or null (a damaged entry is dropped). */
export async function opfsRead(key) {
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

/** Streams a model into OPFS; the metadata is written last, so a cut write is never trusted. */
export async function opfsWrite(key, stream) {
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
  askToKeepStorage();
  return file;
}

/**
 * Every model in browser storage: `{url, store, bytes}` per entry (Cache API, OPFS, then the
 * picked files held in memory). Entries whose size does not match their record are left out.
 */
export async function listStored() {
  const out = [];
  if (hasCacheApi()) {
    const cache = await caches.open(MODEL_CACHE_NAME);
    for (const request of await cache.keys()) {
      const blob = await cacheRead(request.url);
      if (blob) out.push({ url: request.url, store: 'cache', bytes: blob.size });
    }
  }
  if (hasOpfs()) {
    try {
      const dir = await opfsDir();
      for await (const [name, handle] of dir.entries()) {
        if (!name.endsWith('.json') || handle.kind !== 'file') continue;
        const meta = JSON.parse(await (await handle.getFile()).text());
        if (typeof meta?.url === 'string' && (await opfsRead(meta.url))) {
          out.push({ url: meta.url, store: 'opfs', bytes: meta.bytes });
        }
      }
    } catch (err) {
      console.warn('[tabloop] could not list the models in OPFS', err);
    }
  }
  for (const [url, blob] of memoryModels) out.push({ url, store: 'memory', bytes: blob.size });
  return out;
}
