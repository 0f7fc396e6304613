// Owns one MCP client connection: choosing the protocol era (a modern `server/discover` first,
// falling back to the legacy `initialize` handshake), sending requests (per-request `_meta`
// and multi round-trip input in the modern era, a new session after a forgotten one in the
// legacy era), progress and cancellation, and routing what the server sends: its requests to
// ServerRequests, list changes to the tools, prompts and resources, log messages and progress
// to listeners. The public handle is built in client.js.

import { StreamableHttpTransport, McpTransportError } from './transport.js';
import { Deadline } from './deadline.js';
import { ServerRequests, RpcError } from './server_requests.js';
import { ToolSet } from './tools.js';
import { Resources } from './resources.js';
import { Prompts } from './prompts.js';
import { chooseEra, rememberEra, MODERN_VERSIONS, LEGACY_VERSIONS } from './era.js';
import { Listeners } from './listeners.js';
import { kvGet, kvPut, kvDelete } from './kv.js';
import { canonicalJson } from './tool_result.js';

export const CLIENT_INFO = { name: 'tabloop', version: '0.1.0' };
const MAX_PAGES = 100;
const MAX_INPUT_ROUNDS = 8;
const MAX_LOGS = 200;
const URL_ELICITATION_REQUIRED = -32042;
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** A JSON-RPC error the server answered with. */
export class McpError extends Error {
  constructor(method, error) {
    super(`MCP ${method} failed: ${error?.message ?? 'error'} (code ${error?.code})`);
    this.name = 'McpError';
    this.code = 'mcp_error';
    this.rpcError = error;
  }
}

export class McpConnection {
  constructor(options, registry) {
    this.name = options.name;
    this.url = new URL(options.url).href;
    this.protocol = options.protocol ?? 'auto';
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.nextId = 1;
    this.inflight = new Map();
    this.listeners = new Map();
    this.logs = [];
    this.logLevel = undefined;
    this.requests = new ServerRequests({ server: this.name, elicitation: options.elicitation, sampling: options.sampling, roots: options.roots, openUrl: options.openUrl });
    this.requests.listeners.add((event) => this.emit(event.type === 'request' ? 'request' : 'requests', event));
    this.tools = new ToolSet(this, registry, options);
    this.resources = new Resources(this);
    this.prompts = new Prompts(this);
    this.tools.listeners.add((change) => this.emit('tools', change));
    this.resources.listeners.add((event) => this.emit('resources', event));
    this.transport = new StreamableHttpTransport({
      url: options.url,
      headers: options.headers,
      timeoutMs: this.timeoutMs,
      auth: options.auth,
      onMessage: (message, related) => this.onServerMessage(message, related),
    });
  }

  get era() {
    return this.transport.era;
  }

  /** Opens the connection in the era the server speaks; lists its tools. */
  async connect() {
    const era = await chooseEra(this);
    if (era === 'legacy') await this.initialize();
    rememberEra(this.url, era);
    if (this.capabilities?.tools !== undefined || this.era === 'legacy') await this.tools.refresh();
    if (this.era === 'modern') this.listen();
  }

  async initialize() {
    this.transport.era = 'legacy';
    this.transport.protocolVersion = undefined;
    this.transport.sessionId = undefined;
    const result = await this.request('initialize', {
      protocolVersion: LEGACY_VERSIONS[0],
      capabilities: this.requests.capabilities(LEGACY_VERSIONS[0]),
      clientInfo: CLIENT_INFO,
    });
    if (!LEGACY_VERSIONS.includes(result?.protocolVersion)) {
      await this.transport.close();
      throw new McpTransportError(`the MCP server speaks protocol ${result?.protocolVersion}; this client speaks ${[...MODERN_VERSIONS, ...LEGACY_VERSIONS].join(', ')}`);
    }
    this.transport.protocolVersion = result.protocolVersion;
    this.protocolVersion = result.protocolVersion;
    this.serverInfo = result.serverInfo ?? null;
    this.capabilities = result.capabilities ?? {};
    this.instructions = typeof result.instructions === 'string' ? result.instructions : null;
    await this.notify('notifications/initialized');
    this.transport.listen();
    if (this.logLevel !== undefined && this.capabilities.logging !== undefined) await this.request('logging/setLevel', { level: this.logLevel });
  }

  /** Adopts a modern server's `server/discover` result. */
  adoptDiscovery(version, result) {
    this.transport.era = 'modern';
    this.transport.protocolVersion = version;
    this.protocolVersion = version;
    this.serverInfo = result?._meta?.['io.modelcontextprotocol/serverInfo'] ?? null;
    this.capabilities = result?.capabilities ?? {};
    this.instructions = typeof result?.instructions === 'string' ? result.instructions : null;
  }

  /** The modern `_meta` every request carries. */
  requestMeta() {
    return {
      'io.modelcontextprotocol/protocolVersion': this.transport.protocolVersion,
      'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
      'io.modelcontextprotocol/clientCapabilities': this.requests.capabilities(this.transport.protocolVersion),
      ...(this.logLevel !== undefined ? { 'io.modelcontextprotocol/logLevel': this.logLevel } : {}),
    };
  }

  /**
   * Sends a request and resolves its result. Modern servers may ask for input first
   * (InputRequiredResult): it is gathered (`info` says what the request belongs to) and the
   * request is sent again with the answers, a new id each time. With `persistKey`, an input
   * request waiting for its answers is kept in the MCP store under that key until the request
   * ends, so a reload does not lose it; `resume` (such a kept record) starts from it instead of
   * asking the server again.
   * @param {{signal?: AbortSignal, timeoutMs?: number, info?: object, tool?: object,
   *   onProgress?: Function, diagnose?: boolean, persistKey?: string, resume?: object}} [options]
   */
  async request(method, params, options = {}) {
    let extra = {};
    let kept = false;
    try {
      for (let round = 0; ; round++) {
        const result = round === 0 && options.resume ? options.resume.result : await this.send(method, { ...(params ?? {}), ...extra }, options);
        if (result?.resultType !== 'input_required') return result;
        if (round >= MAX_INPUT_ROUNDS) throw new McpTransportError(`the MCP server asked for input ${round} times for one ${method}; giving up`);
        if (options.persistKey) {
          await kvPut('pending', options.persistKey, { server: this.url, method, params: canonicalJson(params ?? {}), result, created: Date.now() }).catch(() => {});
          kept = true;
        }
        const responses = {};
        for (const [key, asked] of Object.entries(result.inputRequests ?? {})) {
          try {
            responses[key] = await this.requests.answer(asked?.method, asked?.params, { ...(options.info ?? {}), signal: options.signal });
          } catch (error) {
            if (!(error instanceof RpcError)) throw error;
            // The server asked for something this client cannot give: it says so on the retry.
            responses[key] = { error: { code: error.code, message: error.message } };
          }
        }
        extra = {
          ...(result.inputRequests ? { inputResponses: responses } : {}),
          ...(result.requestState !== undefined ? { requestState: result.requestState } : {}),
        };
      }
    } finally {
      if (kept || options.resume) await kvDelete('pending', options.persistKey).catch(() => {});
    }
  }

  /** The input request kept for `persistKey` when it belongs to this very request, else undefined. */
  async pendingInput(persistKey, method, params) {
    if (!persistKey) return undefined;
    const kept = await kvGet('pending', persistKey).catch(() => undefined);
    if (!kept || kept.server !== this.url || kept.method !== method || kept.params !== canonicalJson(params ?? {})) return undefined;
    return kept;
  }

  async send(method, params, options = {}) {
    const id = this.nextId++;
    const deadline = new Deadline(options.timeoutMs ?? this.timeoutMs, options.signal);
    const full = { ...params };
    if (this.era === 'modern' || options.onProgress) full._meta = { ...(full._meta ?? {}) };
    if (this.era === 'modern' && method !== 'initialize') Object.assign(full._meta, this.requestMeta());
    if (options.onProgress) full._meta.progressToken = id;
    const message = { jsonrpc: '2.0', id, method, params: full };
    this.inflight.set(id, { method, info: options.info ?? {}, onProgress: options.onProgress, deadline });
    let response;
    try {
      response = await this.transport.post(message, { deadline, tool: options.tool, diagnose: options.diagnose });
    } catch (error) {
      // The server forgot the session (restart, expiry): start a new one and send it once more.
      if (error?.status === 404 && this.era === 'legacy' && this.transport.sessionId !== undefined && method !== 'initialize' && !options.retried) {
        await this.initialize();
        return this.send(method, params, { ...options, retried: true });
      }
      // The server may still be working on it: a legacy server is told to stop (a modern one
      // takes the closed stream as the cancellation).
      if ((error?.name === 'AbortError' || error?.timedOut) && this.era === 'legacy') this.cancelRequest(id, error.message);
      throw error;
    } finally {
      this.inflight.delete(id);
      deadline.dispose();
    }
    if (response.error) throw new McpError(method, response.error);
    return response.result;
  }

  notify(method, params) {
    return this.transport.post({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  cancelRequest(id, reason) {
    this.notify('notifications/cancelled', { requestId: id, reason }).catch(() => {});
  }

  /** Every item of a paginated list (`tools/list`, …), following `nextCursor`. */
  async listAll(method, key) {
    const items = [];
    let cursor;
    for (let page = 0; page < MAX_PAGES; page++) {
      let result;
      try {
        result = await this.request(method, cursor === undefined ? {} : { cursor });
      } catch (error) {
        // A server without this feature answers "method not found": it has none.
        if (error?.rpcError?.code === -32601 && page === 0) return [];
        throw error;
      }
      items.push(...(Array.isArray(result?.[key]) ? result[key] : []));
      cursor = result?.nextCursor;
      if (!cursor) return items;
    }
    throw new McpTransportError(`the MCP server's ${method} did not end after ${MAX_PAGES} pages`);
  }

  /**
   * `tools/call`. A stream that broke before the answer (the answer is lost; the server may or
   * may not have run the call) is re-asked once, with a new id, when `resendSafe`; a server
   * that first needs the person to visit a URL (-32042) has it offered, and is asked again once.
   */
  async callTool(name, args, { ctx, tool, resendSafe, timeoutMs } = {}) {
    const info = { tool: name, callId: ctx?.callId, session: ctx?.session, sample: ctx?.sample };
    const options = {
      signal: ctx?.signal,
      timeoutMs,
      info,
      tool,
      onProgress: (progress) => this.emit('progress', { tool: name, callId: ctx?.callId, session: ctx?.session, ...progress }),
    };
    const params = { name, arguments: args ?? {} };
    // A call re-run after a reload picks up the input request its first run was waiting on.
    if (this.era === 'modern' && ctx?.idempotencyKey) {
      options.persistKey = `${ctx.idempotencyKey}\u0000${this.url}`;
      options.resume = await this.pendingInput(options.persistKey, 'tools/call', params);
    }
    try {
      return await this.request('tools/call', params, options);
    } catch (error) {
      options.resume = undefined;
      if (error?.streamLost && resendSafe && !ctx?.signal?.aborted) return this.request('tools/call', params, options);
      if (error?.rpcError?.code === URL_ELICITATION_REQUIRED && this.era === 'legacy') {
        await this.offerUrlElicitations(error.rpcError.data?.elicitations, info);
        return this.request('tools/call', params, options);
      }
      throw error;
    }
  }

  async offerUrlElicitations(elicitations, info) {
    for (const elicitation of Array.isArray(elicitations) ? elicitations : []) {
      const answer = await this.requests.answer('elicitation/create', { mode: 'url', ...elicitation }, info);
      if (answer.action !== 'accept') throw new Error(`the MCP server needs a visit to ${elicitation.url}, which was ${answer.action === 'decline' ? 'declined' : 'cancelled'}`);
    }
  }

  onServerMessage(message, related) {
    if (!message || typeof message !== 'object') return;
    if (message.method !== undefined && message.id !== undefined) {
      this.answerServerRequest(message, related);
      return;
    }
    const params = message.params ?? {};
    switch (message.method) {
      case 'notifications/tools/list_changed':
        this.tools.refresh().catch(() => {});
        return;
      case 'notifications/prompts/list_changed':
        this.prompts.cache = undefined;
        this.emit('prompts', { type: 'list_changed' });
        return;
      case 'notifications/resources/list_changed':
        this.emit('resources', { type: 'list_changed' });
        return;
      case 'notifications/resources/updated':
        this.resources.updated(params.uri);
        return;
      case 'notifications/message':
        this.log(params);
        return;
      case 'notifications/progress': {
        const flight = this.inflight.get(params.progressToken);
        if (!flight) return;
        flight.deadline.extend();
        flight.onProgress?.({ progress: params.progress, total: params.total, message: params.message });
        return;
      }
      case 'notifications/cancelled':
        this.requests.dropServerRequest(params.requestId, params.reason ?? 'the server cancelled its request');
        return;
      case 'notifications/elicitation/complete':
        this.requests.completed(params.elicitationId);
        return;
      case 'notifications/subscriptions/acknowledged':
        this.acknowledged = params.notifications ?? {};
        return;
      default:
    }
  }

  /** Answers a legacy server's request (elicitation, sampling, roots, ping) on the session. */
  async answerServerRequest(message, related) {
    const flight = related === undefined ? undefined : this.inflight.get(related);
    const info = { ...(flight?.info ?? {}), serverRequestId: message.id };
    let reply;
    try {
      const result = await this.requests.answer(message.method, message.params, info);
      reply = { jsonrpc: '2.0', id: message.id, result };
    } catch (error) {
      const code = Number.isInteger(error?.code) ? error.code : -32603;
      reply = { jsonrpc: '2.0', id: message.id, error: { code, message: String(error?.message ?? error) } };
    }
    this.transport.post(reply).catch(() => {});
  }

  log(params) {
    const entry = { level: params.level, logger: params.logger, data: params.data, time: Date.now() };
    this.logs.push(entry);
    if (this.logs.length > MAX_LOGS) this.logs.shift();
    this.emit('log', entry);
  }

  /** Asks the server for log messages at `level` and above (`logging/setLevel`, or per request). */
  async setLogLevel(level) {
    if (!LOG_LEVELS.includes(level)) throw new TypeError(`log level must be one of ${LOG_LEVELS.join(', ')}`);
    this.logLevel = level;
    if (this.era === 'legacy') await this.request('logging/setLevel', { level });
  }

  async subscribeResource(uri) {
    if (this.era === 'legacy') await this.request('resources/subscribe', { uri });
    else this.listen();
  }

  async unsubscribeResource(uri) {
    if (this.era === 'legacy') await this.request('resources/unsubscribe', { uri });
    else this.listen();
  }

  /** Tells a legacy server the roots changed (a modern one asks for them each time). */
  async setRoots(roots) {
    this.requests.roots = roots;
    if (this.era === 'legacy' && this.transport.sessionId !== undefined) await this.notify('notifications/roots/list_changed');
  }

  /**
   * (Re)opens the modern `subscriptions/listen` stream with what the client wants to hear:
   * list changes the server can send, and the resources subscribed to. It stays open; a
   * stream that drops is opened again, a little later each time.
   */
  listen() {
    this.listening?.abort();
    const controller = new AbortController();
    this.listening = controller;
    const caps = this.capabilities ?? {};
    const filter = {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(this.resources.subscribed().length ? { resourceSubscriptions: this.resources.subscribed() } : {}),
    };
    if (Object.keys(filter).length === 0) return;
    (async () => {
      let delay = 500;
      while (!controller.signal.aborted && !this.transport.closed) {
        try {
          await this.send('subscriptions/listen', { notifications: filter }, { signal: controller.signal, timeoutMs: Infinity });
          delay = 500;
        } catch {
          // A dropped stream is opened again below.
        }
        if (controller.signal.aborted || this.transport.closed) return;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 30_000);
      }
    })();
  }

  on(type, listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Listeners());
    return this.listeners.get(type).add(listener);
  }

  emit(type, event) {
    this.listeners.get(type)?.emit(event);
  }

  async close() {
    this.listening?.abort();
    this.tools.unregisterAll();
    for (const entry of this.requests.list()) this.requests.drop(entry.id, 'the MCP connection closed');
    await this.transport.close();
  }
}
