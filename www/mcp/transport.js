// Owns the MCP Streamable HTTP transport on the client side: JSON-RPC messages POSTed to one
// endpoint, answered as JSON or as an event stream; the `Mcp-Session-Id` the server assigns at
// initialisation echoed on every later request with `MCP-Protocol-Version`; the standing GET
// stream for messages the server starts; and DELETE to end the session. Every request has a
// deadline, so a silent server is an error, never a hang.

import { readSse } from './sse.js';

/** An error talking to the server; `status` is the HTTP status when there was a response. */
export class McpTransportError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'McpTransportError';
    this.status = status;
  }
}

const MAX_ERROR_BODY = 2000;

export class StreamableHttpTransport {
  /**
   * @param {{url: string, headers?: Record<string, string>, onMessage: (msg: object) => void,
   *   timeoutMs: number}} options `onMessage` receives every message that is not the answer
   *   to a POST in progress (server requests and notifications)
   */
  constructor({ url, headers, onMessage, timeoutMs }) {
    this.url = new URL(url).href;
    this.extraHeaders = { ...(headers ?? {}) };
    this.onMessage = onMessage;
    this.timeoutMs = timeoutMs;
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    this.standing = undefined;
    this.closed = false;
  }

  headers(accept) {
    const headers = { ...this.extraHeaders, accept };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    return headers;
  }

  signal(outer, timeoutMs) {
    const signals = [AbortSignal.timeout(timeoutMs ?? this.timeoutMs)];
    if (outer) signals.push(outer);
    return AbortSignal.any(signals);
  }

  /**
   * POSTs one message. For a request, resolves with the response message carrying its id (read
   * from a JSON body or from the event stream; other messages on that stream go to
   * `onMessage`); for a notification or response, resolves with null once accepted.
   * @param {object} message a JSON-RPC message
   * @param {{signal?: AbortSignal, timeoutMs?: number}} [options]
   */
  async post(message, options = {}) {
    if (this.closed) throw new McpTransportError('the MCP connection is closed');
    const signal = this.signal(options.signal, options.timeoutMs);
    let response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { ...this.headers('application/json, text/event-stream'), 'content-type': 'application/json' },
        body: JSON.stringify(message),
        signal,
      });
    } catch (error) {
      throw this.failure(error, signal);
    }
    const sessionId = response.headers.get('mcp-session-id');
    if (sessionId && message.method === 'initialize') this.sessionId = sessionId;
    if (!response.ok) {
      const body = await response.text().catch(() => '');
      const what = response.status === 404 && this.sessionId ? ' (the server no longer knows this session)' : '';
      throw new McpTransportError(`the MCP server answered HTTP ${response.status}${what}: ${body.slice(0, MAX_ERROR_BODY)}`, response.status);
    }
    if (message.id === undefined || message.method === undefined) {
      response.body?.cancel().catch(() => {});
      return null;
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    try {
      if (type === 'text/event-stream') return await this.awaitOnStream(response.body, message.id);
      if (type === 'application/json') {
        const body = await response.json();
        const messages = Array.isArray(body) ? body : [body];
        let answer = null;
        for (const item of messages) {
          if (isResponseTo(item, message.id)) answer = item;
          else this.onMessage(item);
        }
        if (answer) return answer;
        throw new McpTransportError(`the MCP server's JSON answer did not answer request ${message.id}`);
      }
    } catch (error) {
      throw this.failure(error, signal);
    }
    throw new McpTransportError(`the MCP server answered with content type "${type}", not JSON or an event stream`);
  }

  async awaitOnStream(body, id) {
    for await (const event of readSse(body)) {
      const item = parse(event.data);
      if (item === undefined) continue;
      if (isResponseTo(item, id)) return item;
      this.onMessage(item);
    }
    throw new McpTransportError(`the MCP server closed the stream before answering request ${id}`);
  }

  failure(error, signal) {
    if (error instanceof McpTransportError) return error;
    if (signal.aborted) {
      const reason = signal.reason;
      if (reason?.name === 'TimeoutError') {
        const timeout = new McpTransportError('the MCP server did not answer in time');
        timeout.timedOut = true;
        return timeout;
      }
      return new DOMException('the MCP request was cancelled', 'AbortError');
    }
    return new McpTransportError(`the MCP server is unreachable: ${error?.message ?? error}`);
  }

  /**
   * Opens the standing GET stream for server-initiated messages, and reopens it when it ends
   * while the connection is open (with the current session id, so after a re-initialisation
   * too). A server without one (405) is fine.
   */
  listen() {
    this.standing?.abort();
    // A new session gets a new loop; the old one stops at its next turn.
    const generation = (this.generation ?? 0) + 1;
    this.generation = generation;
    const run = async () => {
      let delay = 250;
      while (!this.closed && this.generation === generation) {
        const controller = new AbortController();
        this.standing = controller;
        try {
          const response = await fetch(this.url, { method: 'GET', headers: this.headers('text/event-stream'), signal: controller.signal });
          if (response.status === 405) return;
          if (response.ok && response.body) {
            delay = 250;
            for await (const event of readSse(response.body)) {
              const item = parse(event.data);
              if (item !== undefined) this.onMessage(item);
            }
          }
        } catch {
          // A dropped stream is reopened below; requests report their own failures.
        }
        if (this.closed) return;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 5000);
      }
    };
    run();
  }

  /** Ends the session on the server (DELETE) and stops the standing stream. */
  async close() {
    if (this.closed) return;
    this.closed = true;
    this.standing?.abort();
    if (this.sessionId === undefined) return;
    try {
      await fetch(this.url, { method: 'DELETE', headers: this.headers('application/json'), signal: AbortSignal.timeout(5000) });
    } catch {
      // The server may already be gone; the session ends with it.
    }
  }
}

function isResponseTo(item, id) {
  return item && typeof item === 'object' && item.id === id && item.method === undefined && ('result' in item || 'error' in item);
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
