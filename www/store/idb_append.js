// The append queue of tabloop's store: appends are written in the order they are called, a
// relaxed one at the end of the current task, a strict one at once together with those still
// waiting (one transaction, one commit), and each batch as rows of consecutive records. See the
// layout and the ordering rules at the top of idb_store.js.

import {
  RECORDS,
  ROW_RECORDS,
  SESSIONS,
  connection,
  connections,
  namedError,
  openDbs,
  rowsRange,
  settle,
} from './idb_connection.js';

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
