// Owns answering what an MCP server asks of the client: elicitation (a form, or a URL the person
// opens), sampling (a completion from the session's model), roots and ping. Legacy servers ask
// with JSON-RPC requests; modern ones (2026-07-28) put the same requests in an
// InputRequiredResult; both come here. Each kind is answered by the page's function, or, in
// 'ask' mode, queued for a person: the queue is what the playground shows (a form, a sampling
// approval, a link to open), and `respond` answers an entry. Nothing is answered for the
// person: an elicitation waits until it is answered, dismissed, or the server gives up.

import { applyDefaults, contentProblems, formFields } from './elicitation.js';
import { Listeners } from './listeners.js';

/** A JSON-RPC error to send back to the server. */
export class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

const USER_REJECTED = -1;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

export class ServerRequests {
  /**
   * @param {{server: string, elicitation?: Function|'ask', sampling?: Function|'ask'|'allow',
   *   roots?: object[]|Function, openUrl?: (url: string) => void}} options
   */
  constructor(options) {
    this.server = options.server;
    this.elicitation = options.elicitation;
    this.sampling = options.sampling;
    this.roots = options.roots;
    this.openUrl = options.openUrl ?? ((url) => globalThis.open?.(url, '_blank', 'noopener,noreferrer'));
    this.pending = new Map();
    this.listeners = new Listeners();
    this.nextId = 1;
    /** URL elicitations accepted and not yet reported complete, by elicitationId. */
    this.urlWaits = new Map();
  }

  /** What the client declares it can answer, for `protocolVersion`. */
  capabilities(protocolVersion) {
    const capabilities = {};
    if (this.roots !== undefined) capabilities.roots = protocolVersion.startsWith('2026') ? {} : { listChanged: true };
    if (this.sampling !== undefined) capabilities.sampling = {};
    if (this.elicitation !== undefined) {
      capabilities.elicitation = protocolVersion === '2025-06-18' || protocolVersion === '2025-03-26' ? {} : { form: {}, url: {} };
    }
    return capabilities;
  }

  /**
   * The result for one server request.
   * @param {string} method
   * @param {object} params
   * @param {{tool?: string, callId?: string, session?: string, sample?: Function, signal?: AbortSignal}} info
   *   what the request relates to: the tool call whose stream or result carried it
   */
  async answer(method, params, info = {}) {
    switch (method) {
      case 'ping':
        return {};
      case 'roots/list':
        return this.listRoots();
      case 'elicitation/create':
        return this.elicit(params ?? {}, info);
      case 'sampling/createMessage':
        return this.sample(params ?? {}, info);
      default:
        throw new RpcError(METHOD_NOT_FOUND, `method not supported: ${method}`);
    }
  }

  async listRoots() {
    if (this.roots === undefined) throw new RpcError(METHOD_NOT_FOUND, 'this client offers no roots');
    const roots = typeof this.roots === 'function' ? await this.roots() : this.roots;
    return { roots: (Array.isArray(roots) ? roots : []).map((r) => ({ uri: String(r.uri), ...(r.name ? { name: String(r.name) } : {}) })) };
  }

  async elicit(params, info) {
    if (this.elicitation === undefined) throw new RpcError(METHOD_NOT_FOUND, 'this client does not take elicitation requests');
    const mode = params.mode ?? 'form';
    if (mode === 'url') {
      let url;
      try {
        url = new URL(params.url);
      } catch {
        throw new RpcError(INVALID_PARAMS, `the elicitation URL is not a URL: ${JSON.stringify(params.url)}`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new RpcError(INVALID_PARAMS, 'the elicitation URL must be http(s)');
      const answer = await this.ask('url', { message: String(params.message ?? ''), url: url.href, host: url.host, elicitationId: params.elicitationId }, info);
      if (answer.action === 'accept' && params.elicitationId !== undefined) this.urlWaits.set(params.elicitationId, { url: url.href });
      return { action: answer.action };
    }
    if (mode !== 'form') throw new RpcError(INVALID_PARAMS, `unknown elicitation mode ${JSON.stringify(mode)}`);
    const read = formFields(params.requestedSchema);
    if (read.error) throw new RpcError(INVALID_PARAMS, `this client cannot show the requested form: ${read.error}`);
    const answer = await this.ask('form', { message: String(params.message ?? ''), requestedSchema: params.requestedSchema, fields: read.fields }, info);
    if (answer.action !== 'accept') return { action: answer.action };
    return { action: 'accept', content: answer.content };
  }

  async sample(params, info) {
    if (this.sampling === undefined) throw new RpcError(METHOD_NOT_FOUND, 'this client does not take sampling requests');
    if (!Array.isArray(params.messages) || params.messages.length === 0) throw new RpcError(INVALID_PARAMS, 'sampling needs messages');
    if (typeof this.sampling === 'function') return checkSample(await this.sampling(params, info));
    if (this.sampling === 'ask') {
      const decision = await this.ask('sampling', { params }, info);
      if (decision.action !== 'accept') throw new RpcError(USER_REJECTED, 'the person declined the sampling request');
    }
    if (typeof info.sample !== 'function') {
      throw new RpcError(INVALID_PARAMS, 'no model can answer here: sampling is answered by the model of the session whose tool call the request belongs to');
    }
    return checkSample(await info.sample(params));
  }

  /**
   * Gets an answer for a request of `kind`: from the page's function, or from a person
   * through the queue. Resolves `{action, content?}`.
   */
  async ask(kind, request, info) {
    const handler = kind === 'sampling' ? this.sampling : this.elicitation;
    if (typeof handler === 'function' && kind !== 'sampling') {
      const answer = await handler(kind === 'url' ? { mode: 'url', ...request } : { mode: 'form', message: request.message, requestedSchema: request.requestedSchema }, info);
      return this.settle(kind, request, answer);
    }
    return new Promise((resolve, reject) => {
      const id = `r${this.nextId++}`;
      const entry = { id, kind, server: this.server, ...request, tool: info.tool, callId: info.callId, session: info.session, serverRequestId: info.serverRequestId, created: Date.now(), resolve, reject };
      this.pending.set(id, entry);
      info.signal?.addEventListener('abort', () => this.drop(id, 'the request was cancelled'), { once: true });
      this.listeners.emit({ type: 'request', request: this.view(entry) });
    });
  }

  /** Checks and completes an answer; throws a message fit to show the person when it is wrong. */
  settle(kind, request, answer) {
    const action = answer?.action;
    if (action !== 'accept' && action !== 'decline' && action !== 'cancel') throw new Error('an answer needs action "accept", "decline" or "cancel"');
    if (kind !== 'form' || action !== 'accept') return { action };
    const content = applyDefaults(request.requestedSchema, answer.content);
    const problems = contentProblems(request.requestedSchema, content);
    if (problems.length > 0) throw new Error(problems.join('; '));
    return { action, content };
  }

  /**
   * Answers a queued request: `{action: 'accept', content}` for a form, `{action: 'accept'}`
   * to open a URL (opened here, from the person's click) or to let the model answer a sampling
   * request, `{action: 'decline'}` or `{action: 'cancel'}` otherwise. Throws when the answer
   * does not fit the form (the entry stays queued).
   */
  respond(id, answer) {
    const entry = this.pending.get(id);
    if (!entry) throw new Error(`no pending request ${id}`);
    const settled = this.settle(entry.kind, entry, answer);
    this.pending.delete(id);
    if (entry.kind === 'url' && settled.action === 'accept') this.openUrl(entry.url);
    entry.resolve(settled);
    this.listeners.emit({ type: 'answered', id, action: settled.action });
  }

  /** Removes a queued request the server or the caller gave up on. */
  drop(id, reason) {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    entry.reject(new RpcError(USER_REJECTED, reason));
    this.listeners.emit({ type: 'dropped', id, reason });
  }

  /** The server cancelled its request `serverRequestId` (legacy `notifications/cancelled`). */
  dropServerRequest(serverRequestId, reason) {
    for (const entry of [...this.pending.values()]) {
      if (serverRequestId !== undefined && entry.serverRequestId === serverRequestId) this.drop(entry.id, reason);
    }
  }

  /** `notifications/elicitation/complete`: a URL interaction finished. */
  completed(elicitationId) {
    const wait = this.urlWaits.get(elicitationId);
    this.urlWaits.delete(elicitationId);
    this.listeners.emit({ type: 'elicitation_complete', elicitationId, url: wait?.url });
  }

  view(entry) {
    const { resolve, reject, ...shown } = entry;
    return structuredClone(shown);
  }

  list() {
    return [...this.pending.values()].map((e) => this.view(e));
  }
}

/** A sampling result as the spec shapes it, from what a handler or model returned. */
function checkSample(result) {
  if (!result || typeof result !== 'object') throw new RpcError(-32603, 'the sampling answer is empty');
  const content = typeof result.content === 'string' ? { type: 'text', text: result.content } : result.content;
  if (!content || typeof content !== 'object') throw new RpcError(-32603, 'the sampling answer has no content');
  return { role: 'assistant', content, model: String(result.model ?? 'unknown'), ...(result.stopReason ? { stopReason: result.stopReason } : {}) };
}
