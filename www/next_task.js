// The browser's next task, for the driver's `Clock::soon` and the store's relaxed appends
// (store/idb_append.js): a message to ourselves, which neither setTimeout's clamping nor a
// hidden tab's timer throttling delays. One message serves every caller waiting at the time.
// wasm-bindgen copies this file alone into its snippets folder: it imports nothing.

let channel = null;
let waiting = [];

/** Resolves at the start of a later task. */
export function nextTask() {
  return new Promise((resolve) => {
    if (channel === null) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const due = waiting;
        waiting = [];
        for (const wake of due) wake();
      };
      // Where ports keep a process alive (Node), this one must not.
      channel.port1.unref?.();
    }
    waiting.push(resolve);
    if (waiting.length === 1) channel.port2.postMessage(null);
  });
}
