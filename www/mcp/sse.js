// Owns reading a text/event-stream response body into events ({event, data, id}), for the MCP
// transport: both a POST's streamed answer and the server's standing GET stream use it.

/**
 * Yields each complete event of a `ReadableStream` of bytes. A partial event at the end of the
 * stream is dropped, as the EventSource standard does.
 * @param {ReadableStream<Uint8Array>} body
 * @returns {AsyncGenerator<{event: string, data: string, id: string|undefined}>}
 */
export async function* readSse(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = { event: '', data: [], id: undefined };
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
          if (event.data.length) yield { event: event.event || 'message', data: event.data.join('\n'), id: event.id };
          event = { event: '', data: [], id: event.id };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let text = colon === -1 ? '' : line.slice(colon + 1);
        if (text.startsWith(' ')) text = text.slice(1);
        if (field === 'data') event.data.push(text);
        else if (field === 'event') event.event = text;
        else if (field === 'id') event.id = text;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
