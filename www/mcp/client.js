// Owns an MCP client connection and its tools: it initialises a session over Streamable HTTP,
// lists the server's tools (following cursors) and registers each in the tool registry as
// `mcp__<server>__<tool>` with its input schema, keeps them current on
// `notifications/tools/list_changed`, and calls them with cancellation. A tool whose
// definition changed since the page accepted it (its fingerprint differs) runs only for a call
// a human approved; otherwise the call is refused as needing approval.

import { StreamableHttpTransport, McpTransportError } from './transport.js';
import { resultText, toolFingerprint } from './tool_result.js';

/** Protocol revisions this client speaks, newest first. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18'];
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,23}$/;
const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const MAX_PAGES = 100;

/** The registry name of `tool` on server `server`. */
export function registryName(server, tool) {
  return `mcp__${server}__${String(tool).replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

class McpConnection {
  constructor(options, registry) {
    this.name = options.name;
    this.registry = registry;
    this.permission = options.permission ?? 'ask';
    this.permissions = { ...(options.permissions ?? {}) };
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.nextId = 1;
    this.tools = new Map();
    this.skipped = [];
    this.listeners = [];
    this.refreshing = Promise.resolve();
    this.transport = new StreamableHttpTransport({
      url: options.url,
      headers: options.headers,
      timeoutMs: this.timeoutMs,
      onMessage: (message) => this.onServerMessage(message),
    });
  }

  async request(method, params, options = {}) {
    const id = this.nextId++;
    const message = { jsonrpc: '2.0', id, method, params };
    let response;
    try {
      response = await this.transport.post(message, options);
    } catch (error) {
      // The server forgot the session (restart, expiry): start a new one and send it once more.
      if (error?.status === 404 && this.transport.sessionId !== undefined && method !== 'initialize' && !options.retried) {
        await this.reinitialize();
        return this.request(method, params, { ...options, retried: true });
      }
      // The server may still be working on it: tell it to stop.
      if (error?.name === 'AbortError' || error?.timedOut) this.cancelRequest(id, error.message);
      throw error;
    }
    if (response.error) {
      const error = new Error(`MCP ${method} failed: ${response.error.message ?? 'error'} (code ${response.error.code})`);
      error.code = 'mcp_error';
      throw error;
    }
    return response.result;
  }

  notify(method, params) {
    return this.transport.post({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  cancelRequest(id, reason) {
    this.notify('notifications/cancelled', { requestId: id, reason }).catch(() => {});
  }

  onServerMessage(message) {
    if (message?.method === 'notifications/tools/list_changed') {
      this.refresh().catch(() => {});
      return;
    }
    if (message?.method !== undefined && message.id !== undefined) {
      // Requests from the server: answer ping; this client offers no other capability.
      const reply = message.method === 'ping'
        ? { jsonrpc: '2.0', id: message.id, result: {} }
        : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `method not supported: ${message.method}` } };
      this.transport.post(reply).catch(() => {});
    }
  }

  async reinitialize() {
    this.transport.sessionId = undefined;
    this.transport.protocolVersion = undefined;
    await this.initialize();
  }

  async initialize() {
    const result = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSIONS[0],
      capabilities: {},
      clientInfo: { name: 'tabloop', version: '0.1.0' },
    });
    if (!PROTOCOL_VERSIONS.includes(result?.protocolVersion)) {
      await this.transport.close();
      throw new McpTransportError(`the MCP server speaks protocol ${result?.protocolVersion}; this client speaks ${PROTOCOL_VERSIONS.join(', ')}`);
    }
    this.transport.protocolVersion = result.protocolVersion;
    this.protocolVersion = result.protocolVersion;
    this.serverInfo = result.serverInfo ?? null;
    this.instructions = typeof result.instructions === 'string' ? result.instructions : null;
    await this.notify('notifications/initialized');
    this.transport.listen();
  }

  /** Every tool of the server, following `nextCursor`. */
  async listTools() {
    const tools = [];
    let cursor;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.request('tools/list', cursor === undefined ? {} : { cursor });
      tools.push(...(Array.isArray(result?.tools) ? result.tools : []));
      cursor = result?.nextCursor;
      if (!cursor) return tools;
    }
    throw new McpTransportError(`the MCP server's tool list did not end after ${MAX_PAGES} pages`);
  }

  /** Re-lists the tools and updates the registry; resolves to what changed. */
  refresh() {
    this.refreshing = this.refreshing.then(() => this.sync(), () => this.sync());
    return this.refreshing;
  }

  async sync() {
    const listed = await this.listTools();
    const seen = new Set();
    const change = { added: [], removed: [], changed: [] };
    this.skipped = [];
    for (const tool of listed) {
      const name = registryName(this.name, tool?.name);
      if (!TOOL_NAME.test(name) || tool?.inputSchema?.type !== 'object') {
        this.skipped.push({ tool: tool?.name, reason: !TOOL_NAME.test(name) ? 'its name does not fit the registry (64 characters, letters, digits, _ and -)' : 'its input schema is not an object schema' });
        continue;
      }
      seen.add(name);
      const fingerprint = await toolFingerprint(tool);
      const known = this.tools.get(name);
      if (known && known.fingerprint === fingerprint) continue;
      const entry = known ?? { name, mcpName: tool.name, accepted: fingerprint };
      entry.fingerprint = fingerprint;
      entry.definition = tool;
      this.tools.set(name, entry);
      this.registry.registerTool(this.spec(entry), { replace: true });
      (known ? change.changed : change.added).push(name);
    }
    for (const name of [...this.tools.keys()]) {
      if (seen.has(name)) continue;
      this.tools.delete(name);
      this.registry.unregisterTool(name);
      change.removed.push(name);
    }
    if (change.added.length + change.removed.length + change.changed.length > 0) {
      for (const listener of this.listeners) {
        try {
          listener(change);
        } catch {
          // A page listener's failure must not stop the update.
        }
      }
    }
    return change;
  }

  spec(entry) {
    const tool = entry.definition;
    const label = tool.title && tool.title !== tool.name ? `${tool.title}: ` : '';
    return {
      name: entry.name,
      description: `${label}${tool.description || tool.name} (tool "${tool.name}" of MCP server "${this.name}")`,
      parameters: tool.inputSchema,
      permission: this.permissions[tool.name] ?? this.permissions[entry.name] ?? this.permission,
      idempotent: tool.annotations?.idempotentHint === true && tool.annotations?.readOnlyHint === true,
      parallelSafe: tool.annotations?.readOnlyHint === true,
      timeoutMs: this.timeoutMs,
      execute: (args, ctx) => this.call(entry, args, ctx),
    };
  }

  async call(entry, args, ctx) {
    if (this.tools.get(entry.name) !== entry) throw new Error(`MCP tool ${entry.mcpName} is no longer offered by server ${this.name}`);
    if (entry.fingerprint !== entry.accepted) {
      if (!ctx?.approved) {
        const error = new Error(`the definition of MCP tool "${entry.mcpName}" changed since it was allowed (description or schema); it must be approved again`);
        error.needsApproval = true;
        error.code = 'definition_changed';
        throw error;
      }
      // A human approved this call to the tool as it is now.
      entry.accepted = entry.fingerprint;
    }
    const result = await this.request('tools/call', { name: entry.mcpName, arguments: args }, { signal: ctx?.signal, timeoutMs: this.timeoutMs });
    const { text, isError } = resultText(result);
    if (isError) {
      const error = new Error(text || `MCP tool ${entry.mcpName} failed without a message`);
      error.name = 'McpToolError';
      throw error;
    }
    return text;
  }

  /** The public face of this connection. */
  handle() {
    const connection = this;
    return Object.freeze({
      name: connection.name,
      get serverInfo() {
        return connection.serverInfo;
      },
      get protocolVersion() {
        return connection.protocolVersion;
      },
      get instructions() {
        return connection.instructions;
      },
      tools: () => [...connection.tools.values()].map((t) => ({
        name: t.name,
        mcpName: t.mcpName,
        fingerprint: t.fingerprint,
        changedSinceAccepted: t.fingerprint !== t.accepted,
      })),
      skipped: () => connection.skipped.map((s) => ({ ...s })),
      refresh: () => connection.refresh(),
      accept: (name) => {
        for (const tool of connection.tools.values()) {
          if (name === undefined || name === tool.name || name === tool.mcpName) tool.accepted = tool.fingerprint;
        }
      },
      onToolsChanged: (callback) => {
        connection.listeners.push(callback);
      },
      close: async () => {
        for (const name of connection.tools.keys()) connection.registry.unregisterTool(name);
        connection.tools.clear();
        await connection.transport.close();
      },
    });
  }
}

/**
 * Connects to an MCP server and registers its tools.
 * @param {{name: string, url: string, headers?: Record<string, string>, permission?: string,
 *   permissions?: Record<string, string>, timeoutMs?: number}} options
 * @param {{registerTool: Function, unregisterTool: Function}} registry
 */
export async function connectMcp(options, registry) {
  if (!options || typeof options !== 'object') throw new TypeError('connectMcp needs { name, url }');
  if (typeof options.name !== 'string' || !SERVER_NAME.test(options.name)) {
    throw new TypeError(`MCP server name must match ${SERVER_NAME}: ${JSON.stringify(options.name)}`);
  }
  let url;
  try {
    url = new URL(options.url);
  } catch {
    throw new TypeError(`MCP server url is not an absolute URL: ${JSON.stringify(options.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('MCP server url must be http(s)');
  const connection = new McpConnection(options, registry);
  await connection.initialize();
  try {
    await connection.refresh();
  } catch (error) {
    await connection.transport.close();
    throw error;
  }
  return connection.handle();
}
