// Owns the MCP client's own browser storage: an IndexedDB database ("tabloop-mcp"), apart from
// the sessions' event logs, with one object store per kind of record: OAuth tokens and client
// registrations (kept out of the logs and exports, like API keys), OAuth flows under way (so a
// reload mid-flow can finish it), the tool definitions a person accepted (to show what changed),
// and modern servers' pending input requests (so a pending elicitation survives a reload).
// Every call is one short transaction.

const DB_NAME = 'tabloop-mcp';
const DB_VERSION = 1;
export const STORES = ['tokens', 'clients', 'flows', 'accepted', 'pending'];

let opening;

function open() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const request = indexedDB.open(DB_NAME, DB_VERSION);
      request.onupgradeneeded = () => {
        for (const name of STORES) if (!request.result.objectStoreNames.contains(name)) request.result.createObjectStore(name);
      };
      request.onsuccess = () => {
        const db = request.result;
        // Another tab upgrading the database: let it, and open again next time.
        db.onversionchange = () => {
          db.close();
          opening = undefined;
        };
        resolve(db);
      };
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error('the MCP storage is blocked by another tab'));
    });
    opening.catch(() => {
      opening = undefined;
    });
  }
  return opening;
}

function run(store, mode, work) {
  return open().then((db) => new Promise((resolve, reject) => {
    const tx = db.transaction(store, mode);
    const request = work(tx.objectStore(store));
    tx.oncomplete = () => resolve(request?.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('the MCP storage transaction was aborted'));
  }));
}

/** The value under `key` in `store`, or undefined. */
export function kvGet(store, key) {
  return run(store, 'readonly', (s) => s.get(key));
}

/** Stores `value` under `key`. */
export function kvPut(store, key, value) {
  return run(store, 'readwrite', (s) => s.put(value, key)).then(() => undefined);
}

/** Removes `key`. */
export function kvDelete(store, key) {
  return run(store, 'readwrite', (s) => s.delete(key)).then(() => undefined);
}

/** Every `[key, value]` of `store`, read in one transaction. */
export async function kvEntries(store) {
  let keys;
  const values = await run(store, 'readonly', (s) => {
    keys = s.getAllKeys();
    return s.getAll();
  });
  return keys.result.map((key, i) => [key, values[i]]);
}
