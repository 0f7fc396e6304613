// Owns the virtual filesystem's IndexedDB storage: one object store of file records keyed by
// [volume, path], a per-volume usage row enforcing the byte quota, and short transactions that
// await nothing but their own requests. Knows nothing about tool arguments or formatting.

const STORE = 'files';
const KEY_INDEX = 'keys';
const DB_VERSION = 1;
// The usage row of a volume sits at path '' (no file can have an empty path) and has no `size`,
// so it never appears in KEY_INDEX.
const USAGE_PATH = '';

/** Error raised by the filesystem with a message meant for the model. */
export class VfsError extends Error {
  /**
   * @param {string} message
   * @param {string} [code] machine-readable reason, e.g. 'quota_exceeded', 'not_found'
   */
  constructor(message, code = 'vfs_error') {
    super(message);
    this.name = 'VfsError';
    this.code = code;
  }
}

/** UTF-8 byte length of a string, the unit of the quota. */
export function byteLength(text) {
  return new TextEncoder().encode(text).length;
}

/** Number of lines a viewer shows for `text` (a final newline does not start a new line). */
export function countLines(text) {
  if (text === '') return 0;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines += 1;
  return text.endsWith('\n') ? lines - 1 : lines;
}

function promised(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function describeAbort(error, volume) {
  if (error && error.name === 'QuotaExceededError') {
    return new VfsError(
      `browser storage quota exceeded (QuotaExceededError) while writing to volume '${volume}'; the write was rolled back and earlier files are intact. Delete files or free browser storage, then retry.`,
      'browser_quota_exceeded',
    );
  }
  const name = error?.name ?? 'AbortError';
  return new VfsError(`storage transaction failed (${name}: ${error?.message ?? 'aborted'}); nothing was changed`, 'storage_error');
}

/** Key range covering every record of `volume` whose path starts with `prefix` ('' = all). */
function volumeRange(volume, prefix) {
  return IDBKeyRange.bound([volume, prefix], [volume, `${prefix}\uffff`]);
}

/**
 * Opens (lazily, once) the filesystem database and runs short transactions on it. A connection
 * closed by the browser or by a newer version elsewhere is dropped and reopened on next use.
 * @param {{dbName?: string, indexedDB?: IDBFactory}} [options]
 */
export function createVfsStore(options = {}) {
  const dbName = options.dbName ?? 'tabloop-vfs';
  const factory = options.indexedDB ?? globalThis.indexedDB;
  let dbPromise = null;

  function open() {
    if (!factory) return Promise.reject(new VfsError('IndexedDB is not available here', 'storage_error'));
    if (!dbPromise) {
      dbPromise = new Promise((resolve, reject) => {
        const request = factory.open(dbName, DB_VERSION);
        request.onupgradeneeded = () => {
          const store = request.result.createObjectStore(STORE, { keyPath: ['volume', 'path'] });
          store.createIndex(KEY_INDEX, ['volume', 'path', 'size', 'mtime']);
        };
        request.onsuccess = () => {
          const db = request.result;
          const forget = () => {
            if (dbPromise && dbPromise.db === db) dbPromise = null;
          };
          db.onversionchange = () => {
            db.close();
            forget();
          };
          db.onclose = forget;
          dbPromise.db = db;
          resolve(db);
        };
        request.onerror = () => {
          dbPromise = null;
          reject(new VfsError(`cannot open the filesystem database: ${request.error?.name}: ${request.error?.message}`, 'storage_error'));
        };
        request.onblocked = () => {
          /* an older connection is closing; onsuccess follows */
        };
      });
      const pending = dbPromise;
      pending.catch(() => {
        if (dbPromise === pending) dbPromise = null;
      });
    }
    return dbPromise;
  }

  /**
   * Runs `body(store)` in one transaction and resolves with its result once the transaction has
   * committed. `body` may await only requests made on `store`. A throw aborts the transaction.
   */
  async function transact(volume, mode, body, retried = false) {
    const db = await open();
    let tx;
    try {
      tx = db.transaction(STORE, mode);
    } catch (error) {
      if (!retried && error?.name === 'InvalidStateError') {
        dbPromise = null;
        return transact(volume, mode, body, true);
      }
      throw describeAbort(error, volume);
    }
    const finished = new Promise((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onabort = () => reject(tx.error);
    });
    finished.catch(() => {});
    let result;
    try {
      result = await body(tx.objectStore(STORE));
    } catch (error) {
      try {
        tx.abort();
      } catch {
        /* already finished */
      }
      if (error instanceof VfsError) throw error;
      throw describeAbort(error, volume);
    }
    try {
      await finished;
    } catch (error) {
      throw describeAbort(error, volume);
    }
    return result;
  }

  async function adjustUsage(store, volume, delta, quotaBytes) {
    const row = await promised(store.get([volume, USAGE_PATH]));
    const before = row?.usage ?? 0;
    const after = before + delta;
    if (delta > 0 && after > quotaBytes) {
      throw new VfsError(
        `quota exceeded: volume '${volume}' would hold ${after} bytes, over its quota of ${quotaBytes} bytes (${before} in use); nothing was written and existing files are unchanged`,
        'quota_exceeded',
      );
    }
    await promised(store.put({ volume, path: USAGE_PATH, usage: Math.max(0, after) }));
    return after;
  }

  function record(volume, path, content) {
    return { volume, path, content, size: byteLength(content), lines: countLines(content), mtime: Date.now() };
  }

  return {
    dbName,

    /** Reads one file record, or undefined. */
    get(volume, path) {
      return transact(volume, 'readonly', (store) => promised(store.get([volume, path])));
    },

    /** Bytes in use by `volume`. */
    usage(volume) {
      return transact(volume, 'readonly', async (store) => (await promised(store.get([volume, USAGE_PATH])))?.usage ?? 0);
    },

    /**
     * Creates or replaces a file. `compute(old)` runs inside the transaction (synchronously) and
     * returns the new content, so read-modify-write is atomic; it may throw to cancel.
     * @returns {Promise<{record: object, created: boolean, extra: any}>}
     */
    update(volume, path, compute, quotaBytes) {
      return transact(volume, 'readwrite', async (store) => {
        const old = await promised(store.get([volume, path]));
        const { content, extra } = compute(old);
        const next = record(volume, path, content);
        await adjustUsage(store, volume, next.size - (old?.size ?? 0), quotaBytes);
        await promised(store.put(next));
        return { record: next, created: !old, extra };
      });
    },

    /**
     * Lists [path, size, mtime] for every file under `prefix` ('' = whole volume; otherwise a
     * joined path followed by '/'), reading keys only.
     * @returns {Promise<Array<{path: string, size: number, mtime: number}>>}
     */
    keys(volume, prefix) {
      return transact(volume, 'readonly', (store) => new Promise((resolve, reject) => {
        const out = [];
        const index = store.index(KEY_INDEX);
        const range = IDBKeyRange.bound([volume, prefix], [volume, `${prefix}\uffff`, Infinity, Infinity]);
        const request = index.openKeyCursor(range);
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const cursor = request.result;
          if (!cursor) return resolve(out);
          const [, path, size, mtime] = cursor.key;
          if (path !== USAGE_PATH) out.push({ path, size, mtime });
          cursor.continue();
        };
      }));
    },

    /**
     * Visits full records under `prefix` in path order; `visit(record)` runs synchronously inside
     * the transaction and returns false to stop early.
     */
    scan(volume, prefix, visit) {
      return transact(volume, 'readonly', (store) => new Promise((resolve, reject) => {
        const request = store.openCursor(volumeRange(volume, prefix));
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const cursor = request.result;
          if (!cursor) return resolve();
          const value = cursor.value;
          if (value.path !== USAGE_PATH && visit(value) === false) return resolve();
          cursor.continue();
        };
      }));
    },

    /** Deletes the given files; returns how many existed. */
    remove(volume, paths) {
      return transact(volume, 'readwrite', async (store) => {
        let freed = 0;
        let count = 0;
        for (const path of paths) {
          const old = await promised(store.get([volume, path]));
          if (!old) continue;
          freed += old.size;
          count += 1;
          await promised(store.delete([volume, path]));
        }
        await adjustUsage(store, volume, -freed, Infinity);
        return count;
      });
    },

    /**
     * Renames files atomically: every source must exist, and unless `overwrite` no destination
     * may. Usage is adjusted for overwritten destinations.
     * @param {Array<[string, string]>} pairs [from, to]
     */
    rename(volume, pairs, overwrite) {
      return transact(volume, 'readwrite', async (store) => {
        const sources = new Set(pairs.map(([from]) => from));
        let freed = 0;
        const moved = [];
        for (const [from] of pairs) {
          const rec = await promised(store.get([volume, from]));
          if (!rec) throw new VfsError(`not found: /${from}`, 'not_found');
          moved.push(rec);
        }
        for (const [, to] of pairs) {
          const existing = await promised(store.get([volume, to]));
          if (existing && !sources.has(to)) {
            if (!overwrite) throw new VfsError(`destination exists: /${to} (pass overwrite: true to replace it)`, 'exists');
            freed += existing.size;
          }
        }
        for (const [from] of pairs) await promised(store.delete([volume, from]));
        for (let i = 0; i < pairs.length; i += 1) {
          await promised(store.put({ ...moved[i], path: pairs[i][1], mtime: Date.now() }));
        }
        if (freed) await adjustUsage(store, volume, -freed, Infinity);
        return moved.length;
      });
    },

    /** Closes the connection (tests and teardown). */
    async close() {
      if (!dbPromise) return;
      try {
        (await dbPromise).close();
      } catch {
        /* never opened */
      }
      dbPromise = null;
    },
  };
}
