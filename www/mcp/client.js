// Owns `connectMcp`, the MCP client's public face: it checks the options, opens a connection
// (connection.js) with an OAuth handler when the server needs one, and hands the page a frozen
// handle over the server's tools (registered in the tool registry as `mcp__<server>__<tool>`),
// resources, prompts, completion, logging, the requests the server makes of the client
// (elicitation, sampling, roots) and its events. Open connections are listed here too, for the
// playground.

import { McpConnection } from './connection.js';
import { forgetEra } from './era.js';
import { createOAuthHandler } from './oauth/handler.js';
import { promptAsTask } from './prompts.js';

export { registryName } from './tools.js';
export { listTokens, revokeTokens } from './oauth/tokens.js';
export { MODERN_VERSIONS, LEGACY_VERSIONS } from './era.js';

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,23}$/;
const open = new Map();

/** The public face of a connection. */
function handle(connection) {
  const tools = connection.tools;
  return Object.freeze({
    name: connection.name,
    url: connection.url,
    get serverInfo() {
      return connection.serverInfo;
    },
    get protocolVersion() {
      return connection.protocolVersion;
    },
    get era() {
      return connection.era;
    },
    get instructions() {
      return connection.instructions;
    },
    get capabilities() {
      return structuredClone(connection.capabilities ?? {});
    },
    tools: () => tools.view(),
    skipped: () => tools.skipped.map((s) => ({ ...s })),
    refresh: () => tools.refresh(),
    accept: (name) => tools.acceptNamed(name),
    onToolsChanged: (callback) => connection.on('tools', callback),
    callTool: (name, args, options = {}) => connection.callTool(name, args, {
      ctx: { signal: options.signal },
      tool: tools.find(name)?.definition,
      resendSafe: Boolean(tools.find(name)?.definition?.annotations?.readOnlyHint || tools.find(name)?.definition?.annotations?.idempotentHint),
      timeoutMs: options.timeoutMs,
    }),
    resources: Object.freeze({
      list: () => connection.resources.list(),
      templates: () => connection.resources.templates(),
      read: (uri, options) => connection.resources.read(uri, options),
      subscribe: (uri, callback) => connection.resources.subscribe(uri, callback),
      unsubscribe: (uri, callback) => connection.resources.unsubscribe(uri, callback),
      asContext: (uri, options) => connection.resources.asContext(uri, options),
      toVfs: (uri, options) => connection.resources.toVfs(uri, options),
    }),
    prompts: Object.freeze({
      list: () => connection.prompts.list(),
      get: (name, args, options) => connection.prompts.get(name, args, options),
      asTask: async (name, args, options) => promptAsTask(await connection.prompts.get(name, args, options)),
      complete: (name, argument, value, context) => connection.prompts.complete({ type: 'ref/prompt', name }, argument, value, context),
    }),
    complete: (ref, argument, value, context) => connection.prompts.complete(ref, argument, value, context),
    setLogLevel: (level) => connection.setLogLevel(level),
    logs: () => connection.logs.map((entry) => structuredClone(entry)),
    requests: () => connection.requests.list(),
    respond: (id, answer) => connection.requests.respond(id, answer),
    dismiss: (id) => connection.requests.drop(id, 'dismissed'),
    setRoots: (roots) => connection.setRoots(roots),
    on: (type, callback) => connection.on(type, callback),
    close: async () => {
      open.delete(connection.name);
      await connection.close();
    },
  });
}

/**
 * Connects to an MCP server, registers its tools, and resolves to the connection's handle.
 * @param {{name: string, url: string, headers?: Record<string, string>, permission?: string,
 *   permissions?: Record<string, string>, timeoutMs?: number, protocol?: 'auto'|'legacy'|'modern',
 *   oauth?: object|false, elicitation?: Function|'ask', sampling?: Function|'ask'|'allow',
 *   roots?: object[]|Function}} options
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
  for (const kind of ['elicitation', 'sampling']) {
    const value = options[kind];
    if (value !== undefined && typeof value !== 'function' && value !== 'ask' && !(kind === 'sampling' && value === 'allow')) {
      throw new TypeError(`${kind} must be a function or 'ask'${kind === 'sampling' ? " or 'allow'" : ''}`);
    }
  }
  const auth = options.oauth === false || options.headers?.authorization || options.headers?.Authorization
    ? undefined
    : createOAuthHandler({ ...(options.oauth ?? {}), serverUrl: url.href });
  const connection = new McpConnection({ ...options, auth }, registry);
  try {
    await connection.connect();
  } catch (error) {
    forgetEra(url.href);
    await connection.close().catch(() => {});
    throw error;
  }
  const previous = open.get(connection.name);
  open.set(connection.name, connection);
  if (previous && previous !== connection) previous.close().catch(() => {});
  return handle(connection);
}

/** The connections open in this page, as the playground lists them. */
export function openConnections() {
  return [...open.values()].map((c) => ({ name: c.name, url: c.url, era: c.era, protocolVersion: c.protocolVersion, serverInfo: c.serverInfo }));
}

/** The open connection named `name`'s handle, or undefined. */
export function connection(name) {
  const found = open.get(name);
  return found ? handle(found) : undefined;
}

/**
 * What changed in the definition of the MCP tool registered as `registryName` since a person
 * accepted it, for an approval card: `{server, tool, diff}`, or null when nothing did.
 */
export function toolChange(registryToolName) {
  for (const c of open.values()) {
    const entry = c.tools.tools.get(registryToolName);
    if (entry) {
      const diff = c.tools.diff(entry);
      return diff ? { server: c.name, tool: entry.mcpName, diff } : null;
    }
  }
  return null;
}
