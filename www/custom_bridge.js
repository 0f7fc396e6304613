// The bridge between the Rust custom-provider client and a page's `complete` function. It calls
// the function with a Chat Completions request and hands Rust one item at a time as JSON text:
// `{"chunk": ChatCompletionChunk}` for each chunk of an async iterable, `{"completion":
// ChatCompletion}` for a single object, and null at the end. The AbortSignal is passed to the
// page and also stops the iteration here, so a provider that ignores it cannot hold a cancelled
// run. wasm-bindgen copies this file alone into its snippets folder: it imports nothing.

function abortError(signal) {
  const reason = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('the model call was cancelled', 'AbortError');
}

/** Resolves with `promise`, or rejects with an AbortError as soon as `signal` aborts. */
function raceAbort(promise, signal) {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(promise).then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
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

function json(value) {
  try {
    return JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`the custom provider returned a value that is not JSON: ${error.message}`);
  }
}

/**
 * Calls the page's provider.
 * @param {Function} complete the page's `complete(request, { signal })`
 * @param {object} request the Chat Completions request (from customRequest)
 * @param {AbortSignal} signal aborted when the run is cancelled or the call is dropped
 * @returns {Promise<object>} an opaque handle for customNext
 */
export async function customOpen(complete, request, signal) {
  if (typeof complete !== 'function') {
    throw new TypeError('the custom provider has no complete(request, { signal }) function');
  }
  const result = await raceAbort(
    Promise.resolve().then(() => complete(request, { signal })),
    signal,
  );
  if (result != null && typeof result[Symbol.asyncIterator] === 'function') {
    const iterator = result[Symbol.asyncIterator]();
    signal.addEventListener('abort', () => iterator.return?.().catch(() => {}), { once: true });
    return { iterator, signal, done: false };
  }
  if (result != null && typeof result[Symbol.iterator] === 'function' && typeof result !== 'string' && !Array.isArray(result)) {
    return { iterator: result[Symbol.iterator](), signal, done: false };
  }
  return { completion: result, signal, done: false };
}

/**
 * The next item of a call as JSON text, or null when it ended.
 * @param {object} handle from customOpen
 * @returns {Promise<string|null>}
 */
export async function customNext(handle) {
  if (handle.done) return null;
  if (!handle.iterator) {
    handle.done = true;
    return json({ completion: handle.completion ?? null });
  }
  const step = await raceAbort(handle.iterator.next(), handle.signal);
  if (step.done) {
    handle.done = true;
    return null;
  }
  return json({ chunk: step.value ?? null });
}
