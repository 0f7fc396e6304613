// The IndexedDB connections of tabloop's store and what every part of it shares: the schema
// (see the layout in idb_store.js), the connection cache, named errors, request and transaction
// promises, and the row layout of the records store. Its own file so that the append queue
// (idb_append.js) and the reads (idb_store.js) each stay one job; wasm-bindgen copies each of
// the three because the Rust side imports from each.

export const SCHEMA_VERSION = 3;
export const RECORDS = 'records';
export const SESSIONS = 'sessions';
export const SNAPSHOTS = 'snapshots';
export const SNAPSHOT_PARTS = 'snapshot_parts';
// Records per row at most, so the row holding a record starts at most this many seqs before it.
export const ROW_RECORDS = 256;
// How long an open may wait for other tabs to close their connections before it gives up.
const BLOCKED_GRACE_MS = 3000;

/**
 * The sessions rows as this page's own appends left them, per open connection and session:
 * {records, name, tail} (`records` counting the rows written blind after the row's own count).
 * Set when an append that read the row commits, advanced by each append of ours that commits
 * after it, and dropped on any doubt (a failed append, a read of the log, a rename, delete or
 * rest here). An append continuing exactly from `records` writes without reading the row
 * first; another tab's rename or delete leaves a fence where that append would write (see
 * `putFence`), so it fails and is written again reading the row (idb_append.js).
 */
const knownRows = new WeakMap();

/** The row of `session` as our appends left it on connection `db`, or undefined. */
export function knownRow(db, session) {
  return knownRows.get(db)?.get(session);
}

/** Remembers the row of `session` on `db` as a committed append of ours left it. */
export function rememberRow(db, session, records, name, tail) {
  let rows = knownRows.get(db);
  if (rows === undefined) {
    rows = new Map();
    knownRows.set(db, rows);
  }
  rows.set(session, { records, name, tail });
}

/** Forgets what our appends left in the row of `session` in database `name`. */
export function forgetRow(name, session) {
  const db = openDbs.get(name);
  if (db !== undefined) knownRows.get(db)?.delete(session);
}

/**
 * Puts a fence in the records store at [session, seq] (where the next append of a log of `seq`
 * records writes its first row): a row holding no records, which every reader skips. An
 * append that writes without reading the sessions row adds its first row there, so it fails
 * on the fence instead of overwriting a row another tab changed (renamed, or deleted with its
 * log). An append that reads the row overwrites the fence (put) when the log reaches it.
 */
export function putFence(recordStore, session, seq) {
  recordStore.put({ session, seq, json: [] });
}

/**
 * The sessions row of `session` in `tx` as it stands for the log, through `done(row)` (undefined
 * when there is none). A row marked `tail` does not count the rows its writer added blind after
 * its count; each such row carries the head of the log through it ({updated_at, digest,
 * digest_schema}), and the last one's replaces the row's count, time and digest here.
 */
export function readRow(tx, session, done) {
  const request = tx.objectStore(SESSIONS).get(session);
  request.onsuccess = () => {
    const row = request.result;
    if (row === undefined || row.tail !== true) done(row);
    else withTail(tx, row, done);
  };
}

/** `readRow` as a promise (read-only transactions). */
export function readRowPromise(tx, session) {
  return new Promise((resolve, reject) => {
    readRow(tx, session, resolve);
    tx.onabort = () => reject(tx.error ?? new DOMException('transaction aborted', 'AbortError'));
  });
}

/** `rows` (sessions rows read in `tx`) with each `tail` row brought up to its log's end. */
export function withTails(tx, rows) {
  return Promise.all(rows.map((row) => (row.tail === true ? new Promise((resolve) => withTail(tx, row, resolve)) : row)));
}

// The tail row `row` with the count, time and digest of the last row after its count, if any
// (fences skipped).
function withTail(tx, row, done) {
  const after = IDBKeyRange.bound([row.session, row.records], [row.session, Infinity]);
  const cursor = tx.objectStore(RECORDS).openCursor(after, 'prev');
  cursor.onsuccess = () => {
    const at = cursor.result;
    if (at === null) {
      done(row);
      return;
    }
    const last = at.value;
    const count = Array.isArray(last.json) ? last.json.length : 1;
    if (count === 0) {
      at.continue();
      return;
    }
    const head = last.head ?? {};
    done({
      ...row,
      records: Math.max(row.records, last.seq + count),
      updated_at: head.updated_at ?? row.updated_at,
      digest: head.digest ?? null,
      digest_schema: head.digest_schema ?? null,
    });
  };
}

/** Cached connections: database name -> Promise<IDBDatabase>. */
export const connections = new Map();
/** The same connections once open, so an append can start its transaction in the same task. */
export const openDbs = new Map();

export function namedError(name, message, fields) {
  const error = new Error(message);
  error.name = name;
  return Object.assign(error, fields);
}

function openDatabase(name) {
  return new Promise((resolve, reject) => {
    let settled = false;
    let request;
    try {
      request = indexedDB.open(name, SCHEMA_VERSION);
    } catch (error) {
      reject(error);
      return;
    }
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(RECORDS)) {
        db.createObjectStore(RECORDS, { keyPath: ['session', 'seq'] });
      }
      if (!db.objectStoreNames.contains(SESSIONS)) {
        db.createObjectStore(SESSIONS, { keyPath: 'session' });
      }
      if (!db.objectStoreNames.contains(SNAPSHOTS)) {
        db.createObjectStore(SNAPSHOTS, { keyPath: 'session' });
      }
      if (!db.objectStoreNames.contains(SNAPSHOT_PARTS)) {
        db.createObjectStore(SNAPSHOT_PARTS, { keyPath: ['session', 'part'] });
      }
    };
    request.onblocked = () => {
      setTimeout(() => {
        if (settled) return;
        settled = true;
        connections.delete(name);
        reject(namedError('BlockedError', `opening "${name}" is blocked by another tab`, {}));
      }, BLOCKED_GRACE_MS);
    };
    request.onsuccess = () => {
      const db = request.result;
      if (settled) {
        // We already gave up on this open; do not leak the late connection.
        db.close();
        return;
      }
      settled = true;
      // Another tab wants to upgrade or delete: step aside, reopen on next use.
      db.onversionchange = () => {
        db.close();
        forget(name, db);
      };
      // Closed by the browser (storage cleared, backing store lost): drop the handle.
      db.onclose = () => forget(name, db);
      resolve(db);
    };
    request.onerror = () => {
      if (settled) return;
      settled = true;
      reject(request.error);
    };
  });
}

function forget(name, db) {
  if (openDbs.get(name) === db) openDbs.delete(name);
  const cached = connections.get(name);
  if (cached === undefined) return;
  cached.then(
    (current) => {
      if (current === db && connections.get(name) === cached) connections.delete(name);
    },
    () => {},
  );
}

export function connection(name) {
  let cached = connections.get(name);
  if (cached === undefined) {
    const opening = openDatabase(name);
    cached = opening;
    connections.set(name, opening);
    opening.then(
      (db) => {
        if (connections.get(name) === opening) openDbs.set(name, db);
      },
      () => {
        if (connections.get(name) === opening) connections.delete(name);
      },
    );
  }
  return cached;
}

// The result of a read request as soon as it succeeds: a read-only transaction's later
// `complete` event costs one more round trip to the browser's storage process and adds nothing.
export function read(tx, request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    tx.onabort = () => reject(tx.error ?? new DOMException('transaction aborted', 'AbortError'));
  });
}

// Settles when the transaction completes; rejects with `failure()` (a reason chosen by the
// caller) or the transaction's own error when it aborts.
export function settle(tx, failure) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => {
      reject(failure() ?? tx.error ?? new DOMException('transaction aborted', 'AbortError'));
    };
  });
}

/**
 * The records of `rows` (in key order) from seq `from` (inclusive) to `to` (exclusive; null =
 * the end) as json strings; a row is an array of consecutive records or one record.
 */
export function rowRecords(rows, from, to) {
  const out = [];
  for (const row of rows) {
    const texts = Array.isArray(row.json) ? row.json : [row.json];
    for (let i = 0; i < texts.length; i += 1) {
      const seq = row.seq + i;
      if (seq >= from && (to == null || seq < to)) out.push(texts[i]);
    }
  }
  return out;
}

/** The key range of the rows that can hold records `from` to `to` (exclusive; null = the end). */
export function rowsRange(session, from, to) {
  const upper = to == null ? [session, Infinity] : [session, to];
  return IDBKeyRange.bound([session, from - (ROW_RECORDS - 1)], upper, false, to != null);
}

/** Opens the connection ahead of first use (opening costs milliseconds); never rejects. */
export function warm(db) {
  connection(db).catch(() => {});
}
