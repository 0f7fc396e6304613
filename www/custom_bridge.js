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
 * @param {string} requestJson the Chat Completions request as JSON text
 * @param {AbortSignal} signal aborted when the run is cancelled or the call is dropped
 * @returns {Promise<object>} an opaque handle for customNext
 */
export async function customOpen(complete, requestJson, signal) {
  if (typeof complete !== 'function') {
    throw new TypeError('the custom provider has no complete(request, { signal }) function');
  }
  const request = JSON.parse(requestJson);
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
