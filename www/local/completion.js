// What every local model's completion shares, whatever runs it: the request's messages as a
// chat template takes them, and the result's shape.

/** The request's messages as {role, content} with the roles a chat template knows. */
export function toChatMessages(messages) {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new TypeError('complete(): messages must be a non-empty array of {role, content}');
  }
  return messages.map((m, i) => {
    if (typeof m?.content !== 'string') throw new TypeError(`complete(): messages[${i}].content must be a string`);
    // The chat template knows system/user/assistant; anything else (e.g. tool results) is user text.
    const role = m.role === 'system' || m.role === 'assistant' ? m.role : 'user';
    return { role, content: m.content };
  });
}

/**
 * A completion's result: `{text, finish, usage, timings}`, timings measured from `started`
 * (a performance.now() time) unless given.
 */
export function completionResult(text, finish, usage, started, timings = {}) {
  return {
    text,
    finish,
    usage,
    timings: {
      first_token_ms: null,
      total_ms: Math.round(performance.now() - started),
      prompt_ms: null,
      generation_ms: null,
      tokens_per_s: null,
      ...timings,
    },
  };
}
