// The append queue of tabloop's store: appends are written in the order they are called, a
// relaxed one at the end of the current task, a strict one at once together with those still
// waiting (one transaction, one commit), and each batch as rows of consecutive records. See the
// layout and the ordering rules at the top of idb_store.js.
//
// An append that continues the log exactly where our own last committed append left it writes
// blind: it adds its rows without reading the sessions row first (a read costs a round trip to
// the storage process before anything is written, on the path of every step that waits for its
// commit). `add` fails where a row already starts, and a log only grows by rows starting at its
// length, so an append by anyone else since, or another tab's rename or delete (each leaves a
// fence there), makes it fail; it is then written again reading the row, before anything of its
// session queued behind it. Nor does it write the sessions row, but for the first one after the
// row was written in full, which marks it `tail`: its last row carries the head of the log
// (time, digest), which readers take for the row's (`readRow`), until the writer rests
// (`restSession` in idb_store.js) and writes the row in full again. One write a step instead of
// two.

import {
  RECORDS,
  ROW_RECORDS,
  SESSIONS,
  connection,
  connections,
  forgetRow,
  knownRow,
  namedError,
  openDbs,
  readRow,
  rememberRow,
  rowsRange,
  settle,
} from './idb_connection.js';
import { nextTask } from '../next_task.js';

/**
 * Appends not written yet: database name -> [{session, records, durability, index, resolve,
 * reject, landed}] (`landed`: callbacks waiting for the entry to land, see `appendsLanded`).
 */
const waitingAppends = new Map();
/** Blind appends in flight: database name -> Map(session -> the entries it writes). */
const blindInFlight = new Map();
let flushQueued = false;
// Relaxed appends wait for the next task (a message to ourselves, shared with the driver's
// `soon`), or go out at once where there are no message channels.
const laterTask = typeof MessageChannel === 'function' ? nextTask : null;

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
    waiting.push({ session, records, durability, index, resolve, reject, landed: null });
    if (durability === 'strict' || laterTask === null) {
      flushAppends(db);
    } else if (!flushQueued) {
      flushQueued = true;
      laterTask().then(flushAllAppends);
    }
  });
}

/**
 * `append` with its records packed as the Rust side hands them over, with no object per
 * record to build across the boundary: `seqsAndAts` a Float64Array [seq, at, seq, at, …],
 * `jsons` the records' json joined by newlines (compact JSON never holds a raw newline),
 * `strict` whether the durability is 'strict' (else 'relaxed'), and the index as its three
 * parts (`indexDigest` null: none).
 */
export function appendPacked(db, session, seqsAndAts, jsons, strict, indexBase, indexDigest, indexSchema) {
  const texts = jsons.length === 0 ? [] : jsons.split('\n');
  if (texts.length * 2 !== seqsAndAts.length) {
    return Promise.reject(namedError('CorruptError', `${texts.length} records but ${seqsAndAts.length / 2} seqs`, {}));
  }
  const records = texts.map((json, i) => ({ seq: seqsAndAts[2 * i], at: seqsAndAts[2 * i + 1], json }));
  const index = indexDigest == null ? null : { base: indexBase, digest: indexDigest, schema: indexSchema };
  return append(db, session, records, strict ? 'strict' : 'relaxed', index);
}

// Writes the waiting appends of database `name`: one transaction per session, in the order the
// sessions first appear. Waits for the connection if it is not open yet (they stay queued, so
// later appends still go out behind them). Appends of a session with a blind append in flight
// stay queued until it settles: it may have to be written again, before them.
export function flushAppends(name, reopened = false) {
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
  const blind = blindInFlight.get(name);
  const held = [];
  const groups = new Map();
  for (const entry of waiting) {
    if (blind?.has(entry.session)) {
      held.push(entry);
      continue;
    }
    const group = groups.get(entry.session);
    if (group === undefined) groups.set(entry.session, [entry]);
    else group.push(entry);
  }
  if (held.length > 0) waitingAppends.set(name, held);
  else waitingAppends.delete(name);
  const order = [...groups.values()];
  for (let i = 0; i < order.length; i += 1) {
    const group = order[i];
    const durability = group.some((e) => e.durability === 'strict') ? 'strict' : 'relaxed';
    const plan = planGroup(db, group);
    let tx;
    try {
      // A blind append past a row marked `tail` writes records only: the narrower scope
      // commits faster (measured in the benchmark's storage floor).
      const scope = plan.continues && plan.known.tail ? [RECORDS] : [RECORDS, SESSIONS];
      tx = db.transaction(scope, 'readwrite', { durability });
    } catch (error) {
      if (error?.name !== 'InvalidStateError' || reopened) {
        land(group);
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
    writeGroup(name, db, tx, group, plan);
  }
}

// How `group` (appends of one session, in order) is written: its records and digest, what our
// last append left in the row, and whether it continues exactly from there (then blind).
function planGroup(db, group) {
  const records = group.length === 1 ? group[0].records : group.flatMap((entry) => entry.records);
  const index = group.length === 1 ? group[0].index : chainedIndex(group);
  const known = knownRow(db, group[0].session);
  return { records, index, known, continues: known !== undefined && continues(records, known.records) };
}

/**
 * Null when every append called so far on database `name` has landed (is in a transaction it
 * will not leave, or has failed); else a promise of that. A transaction opened after it sees
 * their records.
 */
export function appendsLanded(name) {
  const pending = [...(waitingAppends.get(name) ?? [])];
  for (const group of blindInFlight.get(name)?.values() ?? []) pending.push(...group);
  if (pending.length === 0) return null;
  return Promise.all(pending.map((entry) => new Promise((resolve) => (entry.landed ??= []).push(resolve))));
}

function land(entries) {
  for (const entry of entries) {
    const callbacks = entry.landed;
    entry.landed = null;
    callbacks?.forEach((callback) => callback());
  }
}

function rejectWaiting(name, error) {
  const waiting = waitingAppends.get(name) ?? [];
  waitingAppends.delete(name);
  land(waiting);
  for (const entry of waiting) entry.reject(error);
}

// Writes `group` in the read-write transaction `tx` of connection `db` as `plan` says: blind
// when it continues exactly from what our last append left in the row.
function writeGroup(name, db, tx, group, plan) {
  const { records, index, known } = plan;
  const session = group[0].session;
  if (!plan.continues) {
    land(group);
    writeReading(tx, session, records, index).then(
      ({ indexed, row }) => {
        if (row === null) forgetRow(name, session);
        else rememberRow(db, session, row.records, row.name, row.tail);
        group.forEach((entry) => entry.resolve(indexed));
      },
      (error) => {
        forgetRow(name, session);
        group.forEach((entry) => entry.reject(error));
      },
    );
    return;
  }
  let blind = blindInFlight.get(name);
  if (blind === undefined) {
    blind = new Map();
    blindInFlight.set(name, blind);
  }
  blind.set(session, group);
  // Settled in the transaction's own complete event, not a promise's turns later: a step
  // waiting on this commit goes on in the same turn.
  writeBlind(tx, session, records, index, known, (error, indexed) => {
    if (error === null) {
      rememberRow(db, session, known.records + records.length, known.name, true);
      settleBlind(name, session, group);
      group.forEach((entry) => entry.resolve(indexed));
    } else {
      forgetRow(name, session);
      if (error?.name === 'ConstraintError') {
        // Something else was written where the log was to continue: write it again reading
        // the row, ahead of what waited behind it.
        waitingAppends.set(name, [...group, ...(waitingAppends.get(name) ?? [])]);
        settleBlind(name, session, []);
        return;
      }
      settleBlind(name, session, group);
      group.forEach((entry) => entry.reject(error));
    }
  });
}

// The blind append of `session` settled: `landed` are its entries that are done, and what
// waited behind it goes out now.
function settleBlind(name, session, landed) {
  const blind = blindInFlight.get(name);
  blind?.delete(session);
  if (blind?.size === 0) blindInFlight.delete(name);
  land(landed);
  flushAppends(name);
}

// Whether `records` are consecutive and start at seq `from`.
function continues(records, from) {
  if (records.length === 0) return false;
  for (let i = 0; i < records.length; i += 1) {
    if (records[i].seq !== from + i) return false;
  }
  return true;
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

// The sessions row after an append: `records` counted, the digest when it was folded from
// exactly the records the row counted before (else cleared, rebuilt when listed), the name kept.
function sessionRow(session, records, updatedAt, index, name) {
  const named = typeof name === 'string' ? { name } : {};
  return {
    session,
    records,
    updated_at: updatedAt,
    digest: index === null ? null : index.digest,
    digest_schema: index === null ? null : index.schema,
    ...named,
  };
}

// Puts `records` (consecutive, from the log's end) as rows of up to ROW_RECORDS, the last
// carrying `head` if given; `add` fails where a row starts already, `put` replaces it. (The
// store's method is called by name, not looked up by a computed key: that call is on every
// step's path.)
function putRows(recordStore, session, records, method, head) {
  const add = method === 'add';
  for (let i = 0; i < records.length; i += ROW_RECORDS) {
    const end = Math.min(i + ROW_RECORDS, records.length);
    const json = [];
    for (let j = i; j < end; j += 1) json.push(records[j].json);
    const row = { session, seq: records[i].seq, json };
    if (head !== undefined && end === records.length) row.head = head;
    if (add) recordStore.add(row);
    else recordStore.put(row);
  }
}

// `records` (consecutive from `known.records`, where our last append left the log) without
// reading the sessions row: the rows are added, so the transaction aborts with ConstraintError
// if any row starts there already. The last row carries the log's head; the sessions row is
// written only when it is not marked `tail` yet. Calls `done(null, indexed)` once committed
// (`indexed`: whether the digest in `index` was stored), or `done(error)`.
function writeBlind(tx, session, records, index, known, done) {
  const current = index != null && index.base === known.records;
  let finished = false;
  const finish = (error) => {
    if (finished) return;
    finished = true;
    done(error, current);
  };
  tx.oncomplete = () => finish(null);
  tx.onabort = () => finish(tx.error ?? new DOMException('transaction aborted', 'AbortError'));
  try {
    const last = records[records.length - 1];
    const digest = current ? index : null;
    if (known.tail) {
      const head = {
        updated_at: last.at,
        digest: digest === null ? null : digest.digest,
        digest_schema: digest === null ? null : digest.schema,
      };
      putRows(tx.objectStore(RECORDS), session, records, 'add', head);
    } else {
      putRows(tx.objectStore(RECORDS), session, records, 'add');
      const row = sessionRow(session, known.records + records.length, last.at, digest, known.name);
      tx.objectStore(SESSIONS).put({ ...row, tail: true });
    }
    if (typeof tx.commit === 'function') tx.commit();
  } catch (error) {
    // Nothing of a batch that could not be put in full is committed.
    tx.onabort = () => finish(error);
    try {
      tx.abort();
    } catch {
      finish(error);
    }
  }
}

// The records of one session's appends in the read-write transaction `tx`, reading its
// sessions row first: each record is either stored already (compared) or continues the log.
// A row written here counts its log in full (no `tail`). Resolves to whether the digest in
// `index` was stored, and the row as it was left ({records, name, tail}; null when the session
// has no row).
async function writeReading(tx, session, records, index) {
  let failure = null;
  let indexed = false;
  let left = null;
  const done = settle(tx, () => failure);
  const fail = (error) => {
    if (failure !== null) return;
    failure = error;
    tx.abort();
  };
  const recordStore = tx.objectStore(RECORDS);
  const sessionStore = tx.objectStore(SESSIONS);
  readRow(tx, session, (row) => {
    const count = row === undefined ? 0 : row.records;
    if (row !== undefined) left = { records: count, name: row.name, tail: row.tail === true };
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
      // Put, not add: a fence may stand where the log continues.
      putRows(recordStore, session, fresh, 'put');
      if (fresh.length > 0) {
        const current = index != null && index.base === count;
        indexed = current;
        const last = fresh[fresh.length - 1];
        sessionStore.put(sessionRow(session, count + fresh.length, last.at, current ? index : null, row?.name));
        left = { records: count + fresh.length, name: row?.name, tail: false };
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
  });
  await done;
  return { indexed, row: left };
}
