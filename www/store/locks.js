// Exclusive Web Locks for src/web/locks.rs: one writer per session across the tabs of an origin.
// wasm-bindgen copies this file on its own, so it must stay self-contained (no imports).
//
// A lock is held for as long as the promise its callback returns is pending; release(token)
// resolves that promise. The browser releases every lock of a tab that closes or crashes, so a
// waiting tab takes over from a dead writer.

/** token -> {controller, release, granted, done}: release is set once the lock is granted. */
const entries = new Map();
let nextToken = 1;

/**
 * Starts a request for the exclusive lock `name` and returns its token at once.
 * With `ifAvailable` the request is refused instead of queued when another holder has it.
 * Throws when the Web Locks API is missing (for example outside a secure context).
 */
export function requestLock(name, ifAvailable) {
  if (typeof navigator === 'undefined' || navigator.locks === undefined) {
    throw new DOMException('the Web Locks API is unavailable', 'NotSupportedError');
  }
  const token = nextToken;
  nextToken += 1;
  const controller = new AbortController();
  const entry = { controller, release: null, granted: null, done: null };
  const options = ifAvailable
    ? { mode: 'exclusive', ifAvailable: true }
    : { mode: 'exclusive', signal: controller.signal };
  entry.granted = new Promise((resolveGranted, rejectGranted) => {
    entry.done = navigator.locks
      .request(name, options, (lock) => {
        if (lock === null || !entries.has(token)) {
          entries.delete(token);
          resolveGranted(false);
          return undefined;
        }
        return new Promise((release) => {
          entry.release = release;
          resolveGranted(true);
        });
      })
      .catch((error) => {
        // A request withdrawn by release() rejects with AbortError: that is not a failure.
        const withdrawn = !entries.has(token);
        entries.delete(token);
        if (withdrawn) resolveGranted(false);
        else rejectGranted(error);
      });
  });
  entries.set(token, entry);
  return token;
}

/** Resolves true once the lock of `token` is held, false when it was not available. */
export function granted(token) {
  const entry = entries.get(token);
  if (entry === undefined) return Promise.resolve(false);
  return entry.granted;
}

/**
 * Releases a held lock, or withdraws a request still waiting in the queue. Never throws.
 * The returned promise resolves once the browser has actually freed the lock (a request made
 * before that, even by this tab, still finds it held); it never rejects.
 */
export function release(token) {
  const entry = entries.get(token);
  if (entry === undefined) return Promise.resolve();
  entries.delete(token);
  if (entry.release !== null) {
    entry.release();
  } else {
    entry.controller.abort();
  }
  return entry.done.then(
    () => undefined,
    () => undefined,
  );
}
