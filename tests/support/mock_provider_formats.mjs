// Wire formats for mock_provider.mjs: SSE writers for OpenAI Chat Completions and Anthropic
// Messages, and each provider's JSON error body. The figures the browser tests expect (usage,
// tool-call arguments) are fixed here.

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

// Tool calls both providers stream, with arguments cut into fragments.
export const TOOL_CALLS = [
  { id: 'call_read', name: 'read_file', fragments: ['{"pa', 'th": "no', 'tes.txt"}'] },
  { id: 'call_list', name: 'list_dir', fragments: ['{"dir"', ': "/"}'] },
];

function openSse(res, cors) {
  if (res.headersSent) return;
  res.writeHead(200, { ...cors, ...SSE_HEADERS });
  res.flushHeaders();
}

/** Writes OpenAI `chat.completion.chunk` events. Usage: prompt 12 (2 cached), completion 5. */
export function openAiWriter(cors) {
  const chunk = (res, choices, extra = {}) =>
    res.write(`data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', model: 'mock-gpt', choices, ...extra })}\n\n`);
  const w = {
    provider: 'openai',
    open: (res) => openSse(res, cors),
    preamble: (res) => chunk(res, [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]),
    delta: (res, text) => chunk(res, [{ index: 0, delta: { content: text }, finish_reason: null }]),
    finish: (res, reason = 'stop') => {
      chunk(res, [{ index: 0, delta: {}, finish_reason: reason }]);
      chunk(res, [], { usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: { cached_tokens: 2 } } });
      res.write('data: [DONE]\n\n');
      res.end();
    },
    text: (res, pieces, { opened = false, preambled = false } = {}) => {
      if (!opened) w.open(res);
      if (!preambled) w.preamble(res);
      for (const piece of pieces) w.delta(res, piece);
      w.finish(res);
    },
    tools: (res) => {
      w.open(res);
      w.preamble(res);
      // both calls start, then their argument fragments interleave
      TOOL_CALLS.forEach((call, index) =>
        chunk(res, [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] } }]));
      const longest = Math.max(...TOOL_CALLS.map((c) => c.fragments.length));
      for (let i = 0; i < longest; i += 1) {
        TOOL_CALLS.forEach((call, index) => {
          if (i < call.fragments.length) {
            chunk(res, [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: call.fragments[i] } }] } }]);
          }
        });
      }
      w.finish(res, 'tool_calls');
    },
    sseError: (res, pieces) => {
      w.open(res);
      w.preamble(res);
      res.write(': keep-alive\n\n');
      for (const piece of pieces) w.delta(res, piece);
      res.write(`data: ${JSON.stringify({ error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`);
      res.end();
    },
  };
  return w;
}

/** Writes Anthropic Messages events. Usage: input 12, output 5, cache read 2. */
export function anthropicWriter(cors) {
  const event = (res, type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  let nextBlock = 0;
  let textBlock = null;
  const ensureText = (res) => {
    if (textBlock != null) return;
    textBlock = nextBlock++;
    event(res, 'content_block_start', { index: textBlock, content_block: { type: 'text', text: '' } });
  };
  const closeText = (res) => {
    if (textBlock == null) return;
    event(res, 'content_block_stop', { index: textBlock });
    textBlock = null;
  };
  const w = {
    provider: 'anthropic',
    open: (res) => openSse(res, cors),
    preamble: (res) =>
      event(res, 'message_start', {
        message: {
          id: 'msg_mock', type: 'message', role: 'assistant', model: 'mock-claude', content: [],
          stop_reason: null, stop_sequence: null,
          usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 2, cache_creation_input_tokens: 0 },
        },
      }),
    delta: (res, text) => {
      ensureText(res);
      event(res, 'content_block_delta', { index: textBlock, delta: { type: 'text_delta', text } });
    },
    finish: (res, reason = 'end_turn') => {
      closeText(res);
      event(res, 'message_delta', { delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: 5 } });
      event(res, 'message_stop', {});
      res.end();
    },
    text: (res, pieces, { opened = false, preambled = false } = {}) => {
      if (!opened) w.open(res);
      if (!preambled) w.preamble(res);
      event(res, 'ping', {});
      for (const piece of pieces) w.delta(res, piece);
      w.finish(res);
    },
    tools: (res) => {
      w.open(res);
      w.preamble(res);
      w.delta(res, 'Let me look.');
      closeText(res);
      for (const call of TOOL_CALLS) {
        const index = nextBlock++;
        event(res, 'content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
        for (const partial_json of call.fragments) {
          event(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
        }
        event(res, 'content_block_stop', { index });
      }
      w.finish(res, 'tool_use');
    },
    sseError: (res, pieces) => {
      w.open(res);
      w.preamble(res);
      event(res, 'ping', {});
      for (const piece of pieces) w.delta(res, piece);
      event(res, 'error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
      res.end();
    },
  };
  return w;
}

const ANTHROPIC_TYPES = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  408: 'timeout_error', 409: 'conflict_error', 413: 'request_too_large', 422: 'invalid_request_error',
  429: 'rate_limit_error', 529: 'overloaded_error',
};

/** The provider's JSON error body for a status. */
export function errorBody(provider, status, message = `mock error ${status}`) {
  if (provider === 'anthropic') {
    return { type: 'error', error: { type: ANTHROPIC_TYPES[status] ?? 'api_error', message } };
  }
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type, param: null, code: null } };
}
