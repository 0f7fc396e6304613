// tabloop's event log in IndexedDB. Imported by src/web/idb_store.rs; wasm-bindgen copies this
// file on its own, so it must stay self-contained (no imports).
//
// Layout (schema version 3):
//   records        key [session, seq]   value {session, seq, json}       json = serialised Records
//                  seq, seq + 1, … (an array of at most ROW_RECORDS), or one Record (a string)
//   sessions       key session          value {session, records, updated_at, digest, digest_schema, name}
//   snapshots      key session          value {session, records, json}   json = a fold snapshot's head
//   snapshot_parts key [session, part]  value {session, part, json}      json = transcript messages
// An append writes its records as rows of up to ROW_RECORDS (one put per row, not per record:
// fewer puts are most of a step's write cost) and the sessions row in ONE transaction, so the row always counts the
// log. The row's digest (title, status, spend: a JSON string folded by the Rust side) is written
// in that same transaction, and only when it was folded from exactly the records the row counted
// before (`index.base`); otherwise it is cleared, and the next listing rebuilds it from the log.
// `name` is what the user named the session (absent: none); appends and rebuilt digests keep it.
// Snapshots are derived data: written on their own, checked against the log when read. A head
// replaces the last one; its new parts join the stored ones (each written once) in the same
// transaction, so a head never stands on parts that are not there.
//
// Appends are written in the order they are called. A relaxed append waits until the end of the
// current task (nothing awaits it but the caller), so a strict one called behind it in the same
// task goes out in the same transaction: one commit where an in-page model answers at once.
// Every other transaction first writes the appends still waiting, so it sees them.
//
// Errors: every promise rejects with the DOMException IndexedDB raised (QuotaExceededError keeps
// its name), or with an Error named ConflictError {seq}, GapError {expected, found},
// CorruptError or BlockedError. The Rust side turns them into StoreError in src/web/js_error.rs.

const SCHEMA_VERSION = 3;
const RECORDS = 'records';
const SESSIONS = 'sessions';
const SNAPSHOTS = 'snapshots';
const SNAPSHOT_PARTS = 'snapshot_parts';
// Records per row at most, so the row holding a record starts at most this many seqs before it.
const ROW_RECORDS = 256;
// How long an open may wait for other tabs to close their connections before it gives up.
const BLOCKED_GRACE_MS = 3000;

/** Cached connections: database name -> Promise<IDBDatabase>. */
const connections = new Map();
/** The same connections once open, so an append can start its transaction in the same task. */
const openDbs = new Map();

function namedError(name, message, fields) {
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

function connection(name) {
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

// Opens a transaction, reopening the connection once if the cached one turned out to be closed
// without telling us (WebKit's "connection to Indexed Database server lost").
async function transaction(name, stores, mode, options) {
  flushAppends(name);
  const db = await connection(name);
  try {
    return db.transaction(stores, mode, options);
  } catch (error) {
    if (error?.name !== 'InvalidStateError') throw error;
    connections.delete(name);
    openDbs.delete(name);
    const fresh = await connection(name);
    return fresh.transaction(stores, mode, options);
  }
}

// The result of a read request as soon as it succeeds: a read-only transaction's later
// `complete` event costs one more round trip to the browser's storage process and adds nothing.
function read(tx, request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    tx.onabort = () => reject(tx.error ?? new DOMException('transaction aborted', 'AbortError'));
  });
}

// Settles when the transaction completes; rejects with `failure()` (a reason chosen by the
// caller) or the transaction's own error when it aborts.
function settle(tx, failure) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => {
      reject(failure() ?? tx.error ?? new DOMException('transaction aborted', 'AbortError'));
    };
  });
}

/** Appends not written yet: database name -> [{session, records, durability, index, resolve, reject}]. */
const waitingAppends = new Map();
let flushQueued = false;
// A message to ourselves runs at the start of a later task, with none of setTimeout's clamping.
const flushChannel = typeof MessageChannel === 'function' ? new MessageChannel() : null;
if (flushChannel !== null) {
  flushChannel.port1.onmessage = flushAllAppends;
  // Where ports keep a process alive (Node), this one must not.
  flushChannel.port1.unref?.();
}

function flushAllAppends() {
  flushQueued = false;
  for (const name of [...waitingAppends.keys()]) flushAppends(name);
}

/**
 * Appends records to a session's log, atomically.
 * `records`: array of {seq, at, json}; `durability`: 'strict' | 'relaxed'; `index`: null or
 * {base, digest, schema}: the session's digest folded over its first `base` records plus these.
 * Each seq must either already be stored with identical json (an idempotent retry) or continue
 * the log; otherwise nothing is written and the promise rejects with ConflictError or GapError.
 * Appends go out in call order. A strict one goes out at once, in ONE readwrite transaction with
 * the appends of its session still waiting; a relaxed one waits for the end of the task (or a
 * strict one behind it). Appends sharing a transaction succeed or fail together. Resolves when
 * the transaction completes, to whether the digest in `index` was stored.
 */
export function append(db, session, records, durability, index) {
  return new Promise((resolve, reject) => {
    let waiting = waitingAppends.get(db);
    if (waiting === undefined) {
      waiting = [];
      waitingAppends.set(db, waiting);
    }
    waiting.push({ session, records, durability, index, resolve, reject });
    if (durability === 'strict' || flushChannel === null) {
      flushAppends(db);
    } else if (!flushQueued) {
      flushQueued = true;
      flushChannel.port2.postMessage(null);
    }
  });
}

/**
 * `append` with its records packed as the Rust side hands them over, with no object per
 * record to build across the boundary: `seqsAndAts` a Float64Array [seq, at, seq, at, …],
 * `jsons` the records' json joined by newlines (compact JSON never holds a raw newline), and
 * the index as its three parts (`indexDigest` null: none).
 */
export function appendPacked(db, session, seqsAndAts, jsons, durability, indexBase, indexDigest, indexSchema) {
  const texts = jsons.length === 0 ? [] : jsons.split('\n');
  if (texts.length * 2 !== seqsAndAts.length) {
    return Promise.reject(namedError('CorruptError', `${texts.length} records but ${seqsAndAts.length / 2} seqs`, {}));
  }
  const records = texts.map((json, i) => ({ seq: seqsAndAts[2 * i], at: seqsAndAts[2 * i + 1], json }));
  const index = indexDigest == null ? null : { base: indexBase, digest: indexDigest, schema: indexSchema };
  return append(db, session, records, durability, index);
}

// Writes the waiting appends of database `name`: one transaction per session, in the order the
// sessions first appear. Waits for the connection if it is not open yet (they stay queued, so
// later appends still go out behind them).
function flushAppends(name, reopened = false) {
  const waiting = waitingAppends.get(name);
  if (waiting === undefined || waiting.length === 0) return;
  const db = openDbs.get(name);
  if (db === undefined) {
    connection(name).then(
      () => flushAppends(name, reopened),
      (error) => rejectWaiting(name, error),
    );
    return;
  }
  waitingAppends.delete(name);
  const groups = new Map();
  for (const entry of waiting) {
    const group = groups.get(entry.session);
    if (group === undefined) groups.set(entry.session, [entry]);
    else group.push(entry);
  }
  const order = [...groups.values()];
  for (let i = 0; i < order.length; i += 1) {
    const group = order[i];
    const durability = group.some((e) => e.durability === 'strict') ? 'strict' : 'relaxed';
    let tx;
    try {
      tx = db.transaction([RECORDS, SESSIONS], 'readwrite', { durability });
    } catch (error) {
      if (error?.name !== 'InvalidStateError' || reopened) {
        for (const entry of group) entry.reject(error);
        continue;
      }
      // Closed without telling us (WebKit's "connection to Indexed Database server lost"):
      // reopen once, then write this group and the rest, still in order.
      connections.delete(name);
      openDbs.delete(name);
      const rest = order.slice(i).flat();
      waitingAppends.set(name, [...rest, ...(waitingAppends.get(name) ?? [])]);
      connection(name).then(
        () => flushAppends(name, true),
        (e) => rejectWaiting(name, e),
      );
      return;
    }
    writeAppends(tx, group).then(
      (indexed) => group.forEach((entry) => entry.resolve(indexed)),
      (error) => group.forEach((entry) => entry.reject(error)),
    );
  }
}

function rejectWaiting(name, error) {
  const waiting = waitingAppends.get(name) ?? [];
  waitingAppends.delete(name);
  for (const entry of waiting) entry.reject(error);
}

// The digest of appends sharing a transaction: the last one's, when each folded over the one
// before it (its base is where the one before ended); otherwise none (rebuilt when listed).
function chainedIndex(group) {
  let index = null;
  let end = null;
  for (const entry of group) {
    const next = entry.index;
    if (next == null || (end !== null && next.base !== end)) return null;
    index = index === null ? next : { ...next, base: index.base };
    end = entry.records.length > 0 ? Math.max(next.base, entry.records[entry.records.length - 1].seq + 1) : next.base;
  }
  return index;
}

// The records of `group` (appends of one session, in order) in the readwrite transaction `tx`.
async function writeAppends(tx, group) {
  const session = group[0].session;
  const records = group.length === 1 ? group[0].records : group.flatMap((entry) => entry.records);
  const index = group.length === 1 ? group[0].index : chainedIndex(group);
  let failure = null;
  let indexed = false;
  const done = settle(tx, () => failure);
  const fail = (error) => {
    if (failure !== null) return;
    failure = error;
    tx.abort();
  };
  const recordStore = tx.objectStore(RECORDS);
  const sessionStore = tx.objectStore(SESSIONS);
  const rowRequest = sessionStore.get(session);
  rowRequest.onsuccess = () => {
    const row = rowRequest.result;
    const count = row === undefined ? 0 : row.records;
    // Classify in order: stored (compare), fresh (write) or a gap. The first problem wins.
    const stored = [];
    const fresh = [];
    let gap = null;
    let next = count;
    for (const record of records) {
      if (record.seq < count) {
        stored.push(record);
      } else if (record.seq === next) {
        fresh.push(record);
        next += 1;
      } else {
        gap = namedError('GapError', `record ${record.seq} does not continue the log`, {
          expected: next,
          found: record.seq,
        });
        break;
      }
    }
    const write = () => {
      if (gap !== null) {
        fail(gap);
        return;
      }
      for (let i = 0; i < fresh.length; i += ROW_RECORDS) {
        const chunk = fresh.slice(i, i + ROW_RECORDS);
        recordStore.put({ session, seq: chunk[0].seq, json: chunk.map((record) => record.json) });
      }
      if (fresh.length > 0) {
        const last = fresh[fresh.length - 1];
        const current = index != null && index.base === count;
        indexed = current;
        const named = typeof row?.name === 'string' ? { name: row.name } : {};
        sessionStore.put({
          session,
          records: count + fresh.length,
          updated_at: last.at,
          digest: current ? index.digest : null,
          digest_schema: current ? index.schema : null,
          ...named,
        });
      }
      if (typeof tx.commit === 'function') tx.commit();
    };
    if (stored.length === 0) {
      write();
      return;
    }
    // A retry of records already stored: each must be stored with identical json.
    const from = stored[0].seq;
    const to = stored[stored.length - 1].seq + 1;
    const request = recordStore.getAll(rowsRange(session, from, to));
    request.onsuccess = () => {
      const texts = new Map();
      for (const row of request.result) {
        const json = Array.isArray(row.json) ? row.json : [row.json];
        json.forEach((text, i) => texts.set(row.seq + i, text));
      }
      for (const record of stored) {
        const existing = texts.get(record.seq);
        if (existing === undefined) {
          const message = `the sessions row counts ${count} records but ${record.seq} is missing`;
          fail(namedError('CorruptError', message, {}));
          return;
        }
        if (existing !== record.json) {
          const message = `record ${record.seq} is stored with other content`;
          fail(namedError('ConflictError', message, { seq: record.seq }));
          return;
        }
      }
      write();
    };
  };
  await done;
  return indexed;
}

/**
 * The records of `rows` (in key order) from seq `from` (inclusive) to `to` (exclusive; null =
 * the end) as json strings; a row is an array of consecutive records or one record.
 */
function rowRecords(rows, from, to) {
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
function rowsRange(session, from, to) {
  const upper = to == null ? [session, Infinity] : [session, to];
  return IDBKeyRange.bound([session, from - (ROW_RECORDS - 1)], upper, false, to != null);
}

/** Opens the connection ahead of first use (opening costs milliseconds); never rejects. */
export function warm(db) {
  connection(db).catch(() => {});
}

/** The whole log of a session: its records' json, ordered by seq, joined by newlines. */
export async function load(db, session) {
  const tx = await transaction(db, [RECORDS], 'readonly');
  const range = IDBKeyRange.bound([session, -Infinity], [session, Infinity]);
  const result = await read(tx, tx.objectStore(RECORDS).getAll(range));
  return rowRecords(result, 0, null).join('\n');
}

/** Records `from` (inclusive) to `to` (exclusive; null = the end): json joined by newlines. */
export async function loadRange(db, session, from, to) {
  const tx = await transaction(db, [RECORDS], 'readonly');
  const result = await read(tx, tx.objectStore(RECORDS).getAll(rowsRange(session, from, to)));
  return rowRecords(result, from, to).join('\n');
}

/** Every session as a JSON string: [{session, records, updated_at}], ordered by session id. */
export async function sessions(db) {
  const tx = await transaction(db, [SESSIONS], 'readonly');
  const result = await read(tx, tx.objectStore(SESSIONS).getAll());
  return JSON.stringify(
    result.map((row) => ({ session: row.session, records: row.records, updated_at: row.updated_at })),
  );
}

/**
 * The sessions index as UTF-8 JSON bytes: [{session, records, updated_at, digest, digest_schema,
 * name}] ordered by id (name null if none). With `embed` each stored digest (a JSON text the
 * Rust side wrote) is spliced in as JSON, so neither side escapes or unescapes it; without it
 * the digest is a JSON string, the form to read when a spliced digest does not parse. digest is
 * null when it must be rebuilt. Bytes, because one copy and one JSON parse on the Rust side are
 * several times cheaper than walking a hundred JS objects field by field, or than a string
 * crossing into wasm, which a fresh page copies one character at a time in its glue.
 */
export async function index(db, embed) {
  const tx = await transaction(db, [SESSIONS], 'readonly');
  const rows = await read(tx, tx.objectStore(SESSIONS).getAll());
  const text = embed ? `[${rows.map(embeddedRow).join(',')}]` : JSON.stringify(rows.map(indexShape));
  return new TextEncoder().encode(text);
}

function embeddedRow(row) {
  const { digest, ...rest } = indexShape(row);
  const head = JSON.stringify(rest);
  const body = typeof digest === 'string' ? digest : 'null';
  return `${head.slice(0, -1)},"digest":${body}}`;
}

function indexShape(row) {
  return {
    session: row.session,
    records: row.records,
    updated_at: row.updated_at,
    digest: row.digest ?? null,
    digest_schema: row.digest_schema ?? null,
    name: row.name ?? null,
  };
}

/** The sessions row of one session (or null), as `index` shapes it. */
export async function indexRow(db, session) {
  const tx = await transaction(db, [SESSIONS], 'readonly');
  const result = await read(tx, tx.objectStore(SESSIONS).get(session));
  return result === undefined ? null : indexShape(result);
}

/**
 * Names a session (`name` null: removes the name) in its sessions row. Rejects with an Error
 * named NotFoundError when the session has no row (nothing is written then).
 */
export async function renameSession(db, session, name) {
  const tx = await transaction(db, [SESSIONS], 'readwrite');
  const store = tx.objectStore(SESSIONS);
  const request = store.get(session);
  let failure = null;
  request.onsuccess = () => {
    const row = request.result;
    if (row === undefined) {
      failure = namedError('NotFoundError', `no session named ${session}`, {});
      tx.abort();
      return;
    }
    const { name: _old, ...rest } = row;
    store.put(typeof name === 'string' ? { ...rest, name } : rest);
  };
  await settle(tx, () => failure);
}

/**
 * Stores a rebuilt digest, if the log still has exactly `records` records (checked in the same
 * transaction). Resolves to whether it was stored.
 */
export async function putDigest(db, session, records, digest, schema) {
  const tx = await transaction(db, [SESSIONS], 'readwrite');
  const store = tx.objectStore(SESSIONS);
  const request = store.get(session);
  let stored = false;
  request.onsuccess = () => {
    const row = request.result;
    if (row === undefined || row.records !== records) return;
    store.put({ ...row, digest, digest_schema: schema });
    stored = true;
  };
  await settle(tx, () => null);
  return stored;
}

function sessionRange(session) {
  return IDBKeyRange.bound([session, -Infinity], [session, Infinity]);
}

/**
 * The fold snapshot of a session as {records, json, parts}, or null: `parts` are the stored
 * parts' texts from the first, up to the first gap.
 */
export async function snapshot(db, session) {
  const tx = await transaction(db, [SNAPSHOTS, SNAPSHOT_PARTS], 'readonly');
  const [head, rows] = await Promise.all([
    read(tx, tx.objectStore(SNAPSHOTS).get(session)),
    read(tx, tx.objectStore(SNAPSHOT_PARTS).getAll(sessionRange(session))),
  ]);
  if (head === undefined) return null;
  const parts = [];
  for (const row of rows) {
    if (row.part !== parts.length) break;
    parts.push(row.json);
  }
  return { records: head.records, json: head.json, parts };
}

/**
 * Replaces the snapshot head of a session and stores its new parts from index `firstPart`, in
 * one transaction (derived data: relaxed durability).
 */
export async function saveSnapshot(db, session, records, json, firstPart, parts) {
  const tx = await transaction(db, [SNAPSHOTS, SNAPSHOT_PARTS], 'readwrite', { durability: 'relaxed' });
  const partStore = tx.objectStore(SNAPSHOT_PARTS);
  parts.forEach((part, offset) => partStore.put({ session, part: firstPart + offset, json: part }));
  tx.objectStore(SNAPSHOTS).put({ session, records, json });
  await settle(tx, () => null);
}

/** Removes a session's records, its sessions row and its snapshot in one transaction. */
export async function deleteSession(db, session) {
  const tx = await transaction(db, [RECORDS, SESSIONS, SNAPSHOTS, SNAPSHOT_PARTS], 'readwrite');
  tx.objectStore(RECORDS).delete(sessionRange(session));
  tx.objectStore(SESSIONS).delete(session);
  tx.objectStore(SNAPSHOTS).delete(session);
  tx.objectStore(SNAPSHOT_PARTS).delete(sessionRange(session));
  await settle(tx, () => null);
}

/** Closes our connection and deletes the whole database (tests; the reset path). */
export async function deleteDatabase(name) {
  flushAppends(name);
  openDbs.delete(name);
  const cached = connections.get(name);
  connections.delete(name);
  if (cached !== undefined) {
    try {
      (await cached).close();
    } catch {
      // The open had failed; nothing to close.
    }
  }
  await new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error);
    request.onblocked = () => {
      // Another tab still has it open; it gets versionchange and should close, then success
      // fires. If it does not within a few seconds, say so instead of waiting forever.
      setTimeout(() => reject(namedError('BlockedError', `database ${name} is still open elsewhere; close other tabs and retry`)), 5000);
    };
  });
}

/**
 * TEST-ONLY hook: closes the cached connection of `name` without telling the cache, the way
 * WebKit loses its IndexedDB server; the next operation must reopen once and succeed.
 */
export async function __closeConnectionBehindOurBack(name) {
  const cached = connections.get(name);
  if (cached !== undefined) (await cached).close();
}
