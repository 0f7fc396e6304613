// Owns reading a text/event-stream response body into events ({event, data, id}), for the MCP
// transport: a POST's streamed answer, the server's standing GET stream and a modern
// `subscriptions/listen` stream all use it. It also keeps what a reconnection needs: the last
// event id seen and the reconnection time the server asked for (`retry`).

/**
 * Yields each complete event of a `ReadableStream` of bytes, as the EventSource standard
 * dispatches them: an event with no data is not dispatched (a server's "priming" event carries
 * only an id and a retry time), and a partial event at the end of the stream is dropped.
 * `cursor.lastEventId` and `cursor.retryMs` are updated as the fields arrive, dispatched or not.
 * @param {ReadableStream<Uint8Array>} body
 * @param {{lastEventId?: string, retryMs?: number}} [cursor]
 * @returns {AsyncGenerator<{event: string, data: string, id: string|undefined}>}
 */
export async function* readSse(body, cursor = {}) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = { event: '', data: [] };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.search(/\r\n|\r|\n/)) !== -1) {
        const line = buffer.slice(0, newline);
        const width = buffer.startsWith('\r\n', newline) ? 2 : 1;
        // A lone '\r' at the buffer's end may be the first half of '\r\n': wait for more.
        if (buffer[newline] === '\r' && newline + 1 === buffer.length) break;
        buffer = buffer.slice(newline + width);
        if (line === '') {
          const data = event.data.join('\n');
          if (data !== '') yield { event: event.event || 'message', data, id: cursor.lastEventId };
          event = { event: '', data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let text = colon === -1 ? '' : line.slice(colon + 1);
        if (text.startsWith(' ')) text = text.slice(1);
        if (field === 'data') event.data.push(text);
        else if (field === 'event') event.event = text;
        else if (field === 'id' && !text.includes('\0')) cursor.lastEventId = text;
        else if (field === 'retry' && /^\d+$/.test(text)) cursor.retryMs = Number(text);
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
