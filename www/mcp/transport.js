// Owns the MCP Streamable HTTP transport on the client side, for both protocol eras: JSON-RPC
// messages POSTed to one endpoint, answered as JSON or as an event stream. In the legacy era
// (2025-03-26 to 2025-11-25) the `Mcp-Session-Id` the server assigns at initialisation is
// echoed on every later request with `MCP-Protocol-Version`, the server's own messages come on
// a standing GET stream, a stream that ends before its answer is resumed with a GET carrying
// `Last-Event-ID` after the `retry` time the server asked for, and DELETE ends the session. In
// the modern era (2026-07-28) there is no session and no GET: each request carries the
// `Mcp-Method` / `Mcp-Name` headers (and `Mcp-Param-*` for annotated tool arguments), and a
// broken stream loses its request. Every request has a deadline (progress can extend it), so
// a silent server is an error, never a hang; a 401/403 goes to the authorisation handler, and
// a request the browser blocks is diagnosed (which CORS header the server must send).

import { readSse } from './sse.js';
import { diagnoseFetchFailure } from './cors.js';
import { Deadline } from './deadline.js';
import { modernHeaders } from './headers.js';

/** An error talking to the server; `status` is the HTTP status when there was a response. */
export class McpTransportError extends Error {
  constructor(message, status, details = {}) {
    super(message);
    this.name = 'McpTransportError';
    this.status = status;
    Object.assign(this, details);
  }
}

const MAX_ERROR_BODY = 2000;

/**
 * Throws at once while the browser says it has no network: a request would only wait for its
 * deadline (or fail with a bare "Failed to fetch"); `offline: true` tells the caller why.
 */
function refuseOffline() {
  if (globalThis.navigator?.onLine === false) {
    throw new McpTransportError('offline: the browser has no network connection, so the MCP server cannot be reached', undefined, { offline: true });
  }
}
/** How often a legacy stream that ended before its answer is resumed before giving up. */
const MAX_RESUMPTIONS = 5;
/** The wait before resuming when the server gave no `retry` time. */
const DEFAULT_RETRY_MS = 1000;
/** How many 401/403 answers one request goes through the authorisation handler for. */
const MAX_CHALLENGES = 3;

export class StreamableHttpTransport {
  /**
   * @param {{url: string, headers?: Record<string, string>, timeoutMs: number,
   *   onMessage: (msg: object, related?: number|string) => void,
   *   auth?: {header: () => Promise<string|undefined>, challenge: Function}}} options
   *   `onMessage` receives every message that is not the answer to a request in progress
   *   (server requests and notifications), with the id of the request whose stream carried
   *   it; `auth` adds the Authorization header and handles 401/403 (see oauth/handler.js)
   */
  constructor({ url, headers, onMessage, timeoutMs, auth }) {
    this.url = new URL(url).href;
    this.extraHeaders = { ...(headers ?? {}) };
    this.onMessage = onMessage;
    this.timeoutMs = timeoutMs;
    this.auth = auth;
    /** 'legacy' (initialize, sessions) or 'modern' (stateless, 2026-07-28). */
    this.era = 'legacy';
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    this.standing = undefined;
    this.closed = false;
  }

  async headers(accept, message, options = {}) {
    const headers = { ...this.extraHeaders, accept };
    if (this.era === 'legacy') {
      if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
      // 2025-03-26 had no such header; later legacy revisions require it after initialisation.
      if (this.protocolVersion !== undefined && this.protocolVersion !== '2025-03-26') headers['mcp-protocol-version'] = this.protocolVersion;
    } else if (message) {
      Object.assign(headers, modernHeaders(message, this.protocolVersion, options.tool));
    }
    const authorization = await this.auth?.header();
    if (authorization) headers.authorization = authorization;
    return headers;
  }

  /**
   * POSTs one message. For a request, resolves with the response message carrying its id (read
   * from a JSON body or from the event stream; other messages on that stream go to
   * `onMessage`); for a notification or response, resolves with null once accepted.
   * @param {object} message a JSON-RPC message
   * @param {{signal?: AbortSignal, timeoutMs?: number, deadline?: Deadline, tool?: object,
   *   diagnose?: boolean}} [options] `deadline` lets the caller extend the wait (progress);
   *   `tool` is the definition of the tool a modern `tools/call` calls (its `x-mcp-header`
   *   arguments become headers); `diagnose: false` skips the CORS diagnosis of a failure
   */
  async post(message, options = {}) {
    if (this.closed) throw new McpTransportError('the MCP connection is closed');
    refuseOffline();
    const deadline = options.deadline ?? new Deadline(options.timeoutMs ?? this.timeoutMs, options.signal);
    const isRequest = message.id !== undefined && message.method !== undefined;
    try {
      for (let challenges = 0; ; challenges++) {
        const headers = { ...(await this.headers('application/json, text/event-stream', message, options)), 'content-type': 'application/json' };
        let response;
        try {
          response = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(message), signal: deadline.signal });
        } catch (error) {
          throw await this.failure(error, deadline, options.diagnose === false ? undefined : headers);
        }
        const sessionId = response.headers.get('mcp-session-id');
        if (sessionId && message.method === 'initialize') this.sessionId = sessionId;
        if ((response.status === 401 || response.status === 403) && this.auth && challenges < MAX_CHALLENGES) {
          // A person may be signing in: that is not the server being silent.
          deadline.pause();
          let again;
          try {
            again = await this.auth.challenge(response, { method: message.method, attempt: challenges, signal: deadline.signal });
          } finally {
            deadline.resume();
          }
          if (again) {
            response.body?.cancel().catch(() => {});
            continue;
          }
        }
        if (!response.ok) throw await httpError(response, this.sessionId);
        this.auth?.succeeded?.();
        if (!isRequest) {
          response.body?.cancel().catch(() => {});
          return null;
        }
        return await this.readAnswer(response, message.id, deadline);
      }
    } catch (error) {
      throw this.failureOf(error, deadline);
    } finally {
      if (!options.deadline) deadline.dispose();
    }
  }

  async readAnswer(response, id, deadline) {
    const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type === 'application/json') {
      const body = await response.json();
      const messages = Array.isArray(body) ? body : [body];
      let answer = null;
      for (const item of messages) {
        if (isResponseTo(item, id)) answer = item;
        else this.onMessage(item, id);
      }
      if (answer) return answer;
      throw new McpTransportError(`the MCP server's JSON answer did not answer request ${id}`);
    }
    if (type === 'text/event-stream') return this.awaitOnStream(response.body, id, deadline);
    response.body?.cancel().catch(() => {});
    throw new McpTransportError(`the MCP server answered with content type "${type}", not JSON or an event stream`);
  }

  /**
   * Reads a request's event stream until its answer. A legacy stream that ends (or breaks)
   * before the answer, after an event id, is resumed with GET and `Last-Event-ID` once the
   * server's `retry` time has passed; a modern one cannot be resumed.
   */
  async awaitOnStream(body, id, deadline) {
    const cursor = {};
    let stream = body;
    for (let resumed = 0; ; resumed++) {
      let broken;
      try {
        for await (const event of readSse(stream, cursor)) {
          const item = parse(event.data);
          if (item === undefined) continue;
          if (isResponseTo(item, id)) return item;
          this.onMessage(item, id);
        }
      } catch (error) {
        if (deadline.signal.aborted) throw error;
        broken = error;
      }
      const why = broken ? `the stream broke (${broken?.message ?? broken})` : 'the server closed the stream';
      if (this.era !== 'legacy' || cursor.lastEventId === undefined || resumed >= MAX_RESUMPTIONS) {
        throw new McpTransportError(`${why} before answering request ${id}`, undefined, { streamLost: true });
      }
      await deadline.sleep(cursor.retryMs ?? DEFAULT_RETRY_MS);
      stream = await this.resume(cursor.lastEventId, deadline, id);
    }
  }

  /** The GET that resumes a stream after `lastEventId`; its event-stream body. */
  async resume(lastEventId, deadline, id) {
    refuseOffline();
    const headers = { ...(await this.headers('text/event-stream')), 'last-event-id': lastEventId };
    let response;
    try {
      response = await fetch(this.url, { method: 'GET', headers, signal: deadline.signal });
    } catch (error) {
      throw await this.failure(error, deadline, headers);
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (!response.ok || type !== 'text/event-stream' || !response.body) {
      response.body?.cancel().catch(() => {});
      throw new McpTransportError(`the stream of request ${id} could not be resumed (HTTP ${response.status})`, response.status, { streamLost: true });
    }
    return response.body;
  }

  async failure(error, deadline, headers) {
    if (deadline.signal.aborted) return error;
    const diagnosis = headers ? await diagnoseFetchFailure(this.url, headers).catch(() => null) : null;
    return new McpTransportError(diagnosis ?? `the MCP server is unreachable: ${error?.message ?? error}`, undefined, { unreachable: true, cors: diagnosis !== null });
  }

  failureOf(error, deadline) {
    if (error instanceof McpTransportError) return error;
    if (deadline.signal.aborted) {
      if (deadline.timedOut) {
        return new McpTransportError('the MCP server did not answer in time', undefined, { timedOut: true });
      }
      return new DOMException('the MCP request was cancelled', 'AbortError');
    }
    return error instanceof Error ? error : new McpTransportError(String(error));
  }

  /**
   * Opens the legacy standing GET stream for server-initiated messages, and reopens it when it
   * ends while the connection is open (with the current session id, after the server's `retry`
   * time, resuming after the last event id). A server without one (405) is fine.
   */
  listen() {
    this.standing?.abort();
    // A new session gets a new loop; the old one stops at its next turn.
    const generation = (this.generation ?? 0) + 1;
    this.generation = generation;
    const run = async () => {
      let delay = 250;
      const cursor = {};
      while (!this.closed && this.generation === generation) {
        const controller = new AbortController();
        this.standing = controller;
        try {
          const headers = await this.headers('text/event-stream');
          if (cursor.lastEventId !== undefined) headers['last-event-id'] = cursor.lastEventId;
          const response = await fetch(this.url, { method: 'GET', headers, signal: controller.signal });
          if (response.status === 405) return;
          if (response.ok && response.body) {
            delay = 250;
            for await (const event of readSse(response.body, cursor)) {
              const item = parse(event.data);
              if (item !== undefined) this.onMessage(item, undefined);
            }
          }
        } catch {
          // A dropped stream is reopened below; requests report their own failures.
        }
        if (this.closed) return;
        await new Promise((resolve) => setTimeout(resolve, cursor.retryMs ?? delay));
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
      await fetch(this.url, { method: 'DELETE', headers: await this.headers('application/json'), signal: AbortSignal.timeout(5000) });
    } catch {
      // The server may already be gone; the session ends with it.
    }
  }
}

/** The error for a non-2xx answer, with the JSON-RPC error of its body when it has one. */
async function httpError(response, sessionId) {
  const body = await response.text().catch(() => '');
  const rpc = parse(body);
  const what = response.status === 404 && sessionId ? ' (the server no longer knows this session)' : '';
  return new McpTransportError(`the MCP server answered HTTP ${response.status}${what}: ${body.slice(0, MAX_ERROR_BODY)}`, response.status, {
    rpcError: rpc && typeof rpc.error === 'object' ? rpc.error : undefined,
  });
}

export function isResponseTo(item, id) {
  return item && typeof item === 'object' && item.id === id && item.method === undefined && ('result' in item || 'error' in item);
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
