// tabloop's event log in IndexedDB. Imported by src/web/idb_store.rs; the connections and what
// the store's parts share are in idb_connection.js, the append queue in idb_append.js (the Rust
// side imports from each, so wasm-bindgen copies all three into its snippets beside each other).
//
// Layout (schema version 3):
//   records        key [session, seq]   value {session, seq, json}       json = serialised Records
//                  seq, seq + 1, … (an array of at most ROW_RECORDS), or one Record (a string);
//                  an empty array is a fence (idb_connection.js `putFence`), read as no records
//   sessions       key session          value {session, records, updated_at, digest, digest_schema, name, tail}
//   snapshots      key session          value {session, records, json}   json = a fold snapshot's head
//   snapshot_parts key [session, part]  value {session, part, json}      json = transcript messages
// An append writes its records as rows of up to ROW_RECORDS (one put per row, not per record:
// fewer puts are most of a step's write cost) and the sessions row in ONE transaction, so the row counts the log
// (a `tail` row with the rows after it: see below). The row's digest (title, status, spend: a JSON string folded by the Rust side) is written
// in that same transaction, and only when it was folded from exactly the records the row counted
// before (`index.base`); otherwise it is cleared, and the next listing rebuilds it from the log.
// `name` is what the user named the session (absent: none); appends and rebuilt digests keep it.
// An append continuing from where this page's last one left the log writes without reading the
// row (idb_append.js); a rename or delete fences the log's end so that such an append fails and
// is written again reading the row. A deleted session leaves its fence (one empty row) behind.
// While a writer appends blind, its row is marked `tail` and does not count the rows added
// after it: the last of those carries the log's head ({updated_at, digest, digest_schema} in a
// `head` field), which every reader here takes for the row's (`readRow`), until the writer
// rests and writes the row in full.
// Snapshots are derived data: written on their own, checked against the log when read. A head
// replaces the last one; its new parts join the stored ones (each written once) in the same
// transaction, so a head never stands on parts that are not there.
//
// Appends are written in the order they are called. A relaxed append waits until the end of the
// current task (nothing awaits it but the caller), so a strict one called behind it in the same
// task goes out in the same transaction: one commit where an in-page model answers at once.
// Every other transaction first writes the appends still waiting (and waits for a blind one
// in flight to settle), so it sees them.
//
// Errors: every promise rejects with the DOMException IndexedDB raised (QuotaExceededError keeps
// its name), or with an Error named ConflictError {seq}, GapError {expected, found},
// CorruptError or BlockedError. The Rust side turns them into StoreError in src/web/js_error.rs.

import {
  RECORDS,
  SESSIONS,
  SNAPSHOTS,
  SNAPSHOT_PARTS,
  connection,
  connections,
  forgetRow,
  namedError,
  openDbs,
  putFence,
  read,
  readRow,
  readRowPromise,
  rowRecords,
  rowsRange,
  settle,
  withTails,
} from './idb_connection.js';
import { appendsLanded, flushAppends } from './idb_append.js';

// Opens a transaction behind every append called before it (so it sees their records),
// reopening the connection once if the cached one turned out to be closed without telling us
// (WebKit's "connection to Indexed Database server lost").
async function transaction(name, stores, mode, options) {
  flushAppends(name);
  const landed = appendsLanded(name);
  if (landed !== null) await landed;
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

/**
 * The whole log of a session: its records' json, ordered by seq, joined by newlines. A tab
 * that reads a log writes it next from what it read: our next append to it reads its row.
 */
export async function load(db, session) {
  forgetRow(db, session);
  const tx = await transaction(db, [RECORDS], 'readonly');
  const range = IDBKeyRange.bound([session, -Infinity], [session, Infinity]);
  const result = await read(tx, tx.objectStore(RECORDS).getAll(range));
  return rowRecords(result, 0, null).join('\n');
}

/** Records `from` (inclusive) to `to` (exclusive; null = the end): json joined by newlines. */
export async function loadRange(db, session, from, to) {
  forgetRow(db, session);
  const tx = await transaction(db, [RECORDS], 'readonly');
  const result = await read(tx, tx.objectStore(RECORDS).getAll(rowsRange(session, from, to)));
  return rowRecords(result, from, to).join('\n');
}

/** Every session as a JSON string: [{session, records, updated_at}], ordered by session id. */
export async function sessions(db) {
  const tx = await transaction(db, [RECORDS, SESSIONS], 'readonly');
  const result = await withTails(tx, await read(tx, tx.objectStore(SESSIONS).getAll()));
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
  const tx = await transaction(db, [RECORDS, SESSIONS], 'readonly');
  const rows = await withTails(tx, await read(tx, tx.objectStore(SESSIONS).getAll()));
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
  const tx = await transaction(db, [RECORDS, SESSIONS], 'readonly');
  const result = await readRowPromise(tx, session);
  return result === undefined ? null : indexShape(result);
}

/**
 * Names a session (`name` null: removes the name) in its sessions row, and fences the log's
 * end so that a tab writing it blind reads the new name. Rejects with an Error named
 * NotFoundError when the session has no row (nothing is written then).
 */
export async function renameSession(db, session, name) {
  forgetRow(db, session);
  const tx = await transaction(db, [RECORDS, SESSIONS], 'readwrite');
  let failure = null;
  // The row as it stands for the log (a tail row keeps its mark: its writer may go on).
  readRow(tx, session, (row) => {
    if (row === undefined) {
      failure = namedError('NotFoundError', `no session named ${session}`, {});
      tx.abort();
      return;
    }
    const { name: _old, ...rest } = row;
    tx.objectStore(SESSIONS).put(typeof name === 'string' ? { ...rest, name } : rest);
    putFence(tx.objectStore(RECORDS), session, row.records);
  });
  await settle(tx, () => failure);
}

/**
 * Stores a rebuilt digest, if the log still has exactly `records` records (checked in the same
 * transaction). Resolves to whether it was stored.
 */
export async function putDigest(db, session, records, digest, schema) {
  const tx = await transaction(db, [RECORDS, SESSIONS], 'readwrite');
  let stored = false;
  readRow(tx, session, (row) => {
    if (row === undefined || row.records !== records) return;
    tx.objectStore(SESSIONS).put({ ...row, digest, digest_schema: schema });
    stored = true;
  });
  await settle(tx, () => null);
  return stored;
}

/**
 * Called by a session's writer when its log rests (a run ended or waits for a person, or the
 * writer stops): a sessions row still marked `tail` is written in full again, counting the
 * rows its appends added blind, so readers no longer look past it.
 */
export async function restSession(db, session) {
  forgetRow(db, session);
  const tx = await transaction(db, [RECORDS, SESSIONS], 'readwrite');
  readRow(tx, session, (row) => {
    if (row === undefined || row.tail !== true) return;
    const { tail: _tail, ...full } = row;
    tx.objectStore(SESSIONS).put(full);
  });
  await settle(tx, () => null);
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

/**
 * Removes a session's records, its sessions row and its snapshot in one transaction. A fence
 * stays where its log ended, so a tab still writing it blind fails instead of writing a log
 * with its start missing (it then reads the row and finds the gap).
 */
export async function deleteSession(db, session) {
  forgetRow(db, session);
  const tx = await transaction(db, [RECORDS, SESSIONS, SNAPSHOTS, SNAPSHOT_PARTS], 'readwrite');
  // Where its log ends, rows written blind after a tail row's count included.
  readRow(tx, session, (row) => {
    const records = tx.objectStore(RECORDS);
    records.delete(sessionRange(session));
    tx.objectStore(SESSIONS).delete(session);
    tx.objectStore(SNAPSHOTS).delete(session);
    tx.objectStore(SNAPSHOT_PARTS).delete(sessionRange(session));
    if (typeof row?.records === 'number') putFence(records, session, row.records);
  });
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
