// The bridge between the Rust custom-provider client and a page's `complete` function. It calls
// the function with a Chat Completions request and hands Rust the items that are ready, as text
// of one item a line: `chunk:` and a ChatCompletionChunk's JSON for each chunk of an async
// iterable, `completion:` and a ChatCompletion's JSON for a single object, and `end` at the end
// (compact JSON never holds a raw newline). Rust reads each chunk's JSON once, where it is
// parsed; it never builds a tree of the item to write it out again. The AbortSignal is passed
// to the page and also stops the iteration here, so a provider that ignores it cannot hold a
// cancelled run. wasm-bindgen copies this file alone into its snippets folder: it imports
// nothing.

function abortError(signal) {
  const reason = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('the model call was cancelled', 'AbortError');
}

/** Freezes `value` and everything in it: messages and tools are shared by later requests. */
function deepFreeze(value) {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}

/** A client's copy of the messages and tools it last sent (see customRequest). */
export function customTranscript() {
  return { messages: [], tools: undefined };
}

/**
 * The whole Chat Completions request, from the last one and a delta over it: the first `keep`
 * messages of the last request, then the delta's; its tools, or the last ones when `sameTools`.
 * Rust sends only what changed, so a long run does not re-send its whole history every step.
 * Messages and tools are frozen (they are shared with later requests); `messages` itself is a
 * fresh array each call.
 * @param {{messages: object[], tools: object[]|undefined}} transcript from customTranscript
 * @param {string} deltaJson the request with only the new messages (and tools)
 * @param {number} keep how many messages of the last request open this one
 * @param {boolean} sameTools the tools are the last request's
 * @returns {object} the request
 */
export function customRequest(transcript, deltaJson, keep, sameTools) {
  const request = JSON.parse(deltaJson);
  if (keep > transcript.messages.length) {
    throw new RangeError(`the request keeps ${keep} messages of ${transcript.messages.length}`);
  }
  transcript.messages.length = keep;
  for (const message of request.messages) transcript.messages.push(deepFreeze(message));
  request.messages = transcript.messages.slice();
  if (sameTools) request.tools = transcript.tools;
  else transcript.tools = request.tools === undefined ? undefined : deepFreeze(request.tools);
  return request;
}

/** One item's line: `kind:` and the JSON of `value` (a value JSON cannot hold is `null`). */
function itemLine(kind, value) {
  let text;
  try {
    text = JSON.stringify(value ?? null);
  } catch (error) {
    throw new TypeError(`the custom provider returned a value that is not JSON: ${error.message}`);
  }
  return `${kind}:${text ?? 'null'}`;
}

/** Most items one `customNext` hands over (a provider that never waits is still read in parts). */
const MOST_ITEMS = 256;
/** How many microtask turns an item may take to count as ready at once (an async generator
 * over data in hand takes two or three). */
const READY_TURNS = 8;

/**
 * Calls the page's provider. Returns at once an opaque handle for customNext; a provider that
 * fails to start fails the first customNext.
 * @param {Function} complete the page's `complete(request, { signal })`
 * @param {object} request the Chat Completions request (from customRequest)
 * @param {AbortSignal} signal aborted when the run is cancelled or the call is dropped
 * @returns {object} the handle
 */
export function customOpen(complete, request, signal) {
  if (typeof complete !== 'function') {
    throw new TypeError('the custom provider has no complete(request, { signal }) function');
  }
  const handle = { opening: null, aborted: null, iterator: null, closes: false, completion: undefined, signal, pending: null, failure: null, done: false };
  // One listener for the whole call: it fails whatever the call is waiting on, and closes the
  // provider's async iterator.
  handle.aborted = new Promise((_, reject) => {
    const onAbort = () => {
      reject(abortError(signal));
      if (handle.closes) {
        try {
          Promise.resolve(handle.iterator.return?.()).catch(() => {});
        } catch {
          // An iterator whose return throws is closed as far as it can be.
        }
      }
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  handle.aborted.catch(() => {});
  const called = Promise.resolve().then(() => complete(request, { signal }));
  handle.opening = Promise.race([called, handle.aborted]).then((result) => {
    if (result != null && typeof result[Symbol.asyncIterator] === 'function') {
      handle.iterator = result[Symbol.asyncIterator]();
      handle.closes = true;
    } else if (result != null && typeof result[Symbol.iterator] === 'function' && typeof result !== 'string' && !Array.isArray(result)) {
      handle.iterator = result[Symbol.iterator]();
    } else {
      handle.completion = result;
    }
  });
  // Its failure is met by the first customNext; a call dropped before that leaves no
  // unhandled rejection behind.
  handle.opening.catch(() => {});
  return handle;
}

/**
 * The items of a call that are ready, one a line (`chunk:…`, `completion:…`, and `end` where the
 * call ended). It waits as long as it takes for the first item, then takes every item that
 * follows at once (a provider that answers from data in hand is read in one hop, not one per
 * chunk); an item that keeps it waiting, or fails, is left for the next call. Null once the
 * call has ended.
 * @param {object} handle from customOpen
 * @returns {Promise<string|null>}
 */
export async function customNext(handle) {
  if (handle.opening !== null) {
    const opening = handle.opening;
    handle.opening = null;
    await opening;
  }
  if (handle.done) return null;
  if (!handle.iterator) {
    handle.done = true;
    return `${itemLine('completion', handle.completion)}\nend`;
  }
  if (handle.failure !== null) throw handle.failure;
  const lines = [];
  let step = await Promise.race([takePending(handle), handle.aborted]);
  for (;;) {
    if (step.done) {
      handle.done = true;
      lines.push('end');
      break;
    }
    try {
      lines.push(itemLine('chunk', step.value));
    } catch (error) {
      // The chunks before it still go over; the next call fails.
      if (lines.length === 0) throw error;
      handle.failure = error;
      break;
    }
    if (lines.length >= MOST_ITEMS) break;
    const next = handle.iterator.next();
    const ready = await readyAtOnce(next);
    if (handle.signal.aborted) throw abortError(handle.signal);
    if (ready === null) {
      handle.pending = next;
      break;
    }
    step = ready.step;
  }
  return lines.join('\n');
}

/** The item asked for and left waiting by the last call, else the iterator's next. */
function takePending(handle) {
  const pending = handle.pending ?? handle.iterator.next();
  handle.pending = null;
  return pending;
}

/** `{step}` if `promise` fulfils within READY_TURNS microtask turns, else null (it failed, or
 * is still pending: the caller keeps it). Stops counting turns as soon as it settles. */
async function readyAtOnce(promise) {
  let ready = null;
  let settled = false;
  Promise.resolve(promise).then(
    (step) => {
      ready = { step };
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let turn = 0; turn < READY_TURNS && !settled; turn += 1) await null;
  return ready;
}
