// Owns one MCP connection's tools in the page's tool registry: it lists the server's tools
// (following cursors), registers each as `mcp__<server>__<tool>` with its input schema, keeps
// them current on `notifications/tools/list_changed`, and calls them. Safety: the definition a
// person accepted is kept (in the MCP store, across reloads); a tool whose definition differs
// runs only for a call a person approved, and what changed is shown as a diff; an answer lost
// with a broken stream is re-asked by itself only for a tool annotated read-only or
// idempotent, else only once a person approves sending the same call again.

import { resultText, toolFingerprint, canonicalJson } from './tool_result.js';
import { definitionDiff } from './diff.js';
import { toolHeaderParams } from './headers.js';
import { kvGet, kvPut } from './kv.js';
import { Listeners } from './listeners.js';

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** The registry name of `tool` on server `server`. */
export function registryName(server, tool) {
  return `mcp__${server}__${String(tool).replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** The parts of a definition a person relies on when allowing a tool. */
function relied(tool) {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  return { name, title, description, inputSchema, outputSchema, annotations };
}

/** A call's identity (tool and arguments) for the lost-answer ledger. */
function callKey(tool, args) {
  return `${tool}\u0000${canonicalJson(args ?? {})}`;
}

export class ToolSet {
  constructor(connection, registry, options) {
    this.connection = connection;
    this.registry = registry;
    this.permission = options.permission ?? 'ask';
    this.permissions = { ...(options.permissions ?? {}) };
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.tools = new Map();
    this.skipped = [];
    this.listeners = new Listeners();
    /** Calls whose answer a broken stream lost, by callKey: re-sent only once approved. */
    this.lost = new Map();
    this.refreshing = Promise.resolve();
  }

  acceptedKey(mcpName) {
    return `${this.connection.url}\u0000${mcpName}`;
  }

  /** Re-lists the tools and updates the registry; resolves to what changed. */
  refresh() {
    this.refreshing = this.refreshing.then(() => this.sync(), () => this.sync());
    return this.refreshing;
  }

  async sync() {
    const listed = await this.connection.listAll('tools/list', 'tools');
    const seen = new Set();
    const change = { added: [], removed: [], changed: [] };
    this.skipped = [];
    for (const tool of listed) {
      const name = registryName(this.connection.name, tool?.name);
      const reason = this.refusal(tool, name);
      if (reason) {
        this.skipped.push({ tool: tool?.name, reason });
        continue;
      }
      seen.add(name);
      const fingerprint = await toolFingerprint(tool);
      const known = this.tools.get(name);
      if (known && known.fingerprint === fingerprint) continue;
      const entry = known ?? { name, mcpName: tool.name, ...(await this.acceptedDefinition(tool)) };
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
    if (change.added.length + change.removed.length + change.changed.length > 0) this.listeners.emit(change);
    return change;
  }

  /** Why a listed tool cannot be offered, or null. */
  refusal(tool, name) {
    if (!TOOL_NAME.test(name)) return 'its name does not fit the registry (64 characters, letters, digits, _ and -)';
    if (tool?.inputSchema?.type !== 'object') return 'its input schema is not an object schema';
    if (this.connection.era === 'modern') {
      const headers = toolHeaderParams(tool.inputSchema);
      if (headers.error) return `its x-mcp-header annotations are invalid: ${headers.error}`;
    }
    return null;
  }

  /** The definition a person accepted before (stored), else this one, accepted now. */
  async acceptedDefinition(tool) {
    const stored = await kvGet('accepted', this.acceptedKey(tool.name)).catch(() => undefined);
    if (stored?.fingerprint) return { accepted: stored.fingerprint, acceptedDefinition: stored.definition };
    const fingerprint = await toolFingerprint(tool);
    await kvPut('accepted', this.acceptedKey(tool.name), { fingerprint, definition: relied(tool) }).catch(() => {});
    return { accepted: fingerprint, acceptedDefinition: relied(tool) };
  }

  /** A person accepted the tool's current definition. */
  accept(entry) {
    entry.accepted = entry.fingerprint;
    entry.acceptedDefinition = relied(entry.definition);
    return kvPut('accepted', this.acceptedKey(entry.mcpName), { fingerprint: entry.fingerprint, definition: entry.acceptedDefinition }).catch(() => {});
  }

  /** What changed since the definition was accepted ("" when nothing). */
  diff(entry) {
    return entry.fingerprint === entry.accepted ? '' : definitionDiff(entry.acceptedDefinition, relied(entry.definition));
  }

  spec(entry) {
    const tool = entry.definition;
    const label = tool.title && tool.title !== tool.name ? `${tool.title}: ` : '';
    return {
      name: entry.name,
      description: `${label}${tool.description || tool.name} (tool "${tool.name}" of MCP server "${this.connection.name}")`,
      parameters: tool.inputSchema,
      permission: this.permissions[tool.name] ?? this.permissions[entry.name] ?? this.permission,
      idempotent: tool.annotations?.idempotentHint === true && tool.annotations?.readOnlyHint === true,
      parallelSafe: tool.annotations?.readOnlyHint === true,
      timeoutMs: this.timeoutMs,
      execute: (args, ctx) => this.call(entry, args, ctx),
    };
  }

  async call(entry, args, ctx) {
    if (this.tools.get(entry.name) !== entry) throw new Error(`MCP tool ${entry.mcpName} is no longer offered by server ${this.connection.name}`);
    if (entry.fingerprint !== entry.accepted) {
      if (!ctx?.approved) {
        const error = new Error(`the definition of MCP tool "${entry.mcpName}" changed since it was allowed (description or schema); it must be approved again. What changed:\n${this.diff(entry)}`);
        error.needsApproval = true;
        error.code = 'definition_changed';
        throw error;
      }
      // A person approved this call to the tool as it is now.
      await this.accept(entry);
    }
    const key = callKey(entry.mcpName, args);
    if (this.lost.has(key) && !ctx?.approved) {
      const error = new Error(`the answer to an earlier identical call of "${entry.mcpName}" was lost (${this.lost.get(key)}), so the server may already have done it; it is sent again only once a person approves`);
      error.needsApproval = true;
      error.code = 'answer_lost';
      throw error;
    }
    this.lost.delete(key);
    const annotations = entry.definition.annotations ?? {};
    const resendSafe = annotations.readOnlyHint === true || annotations.idempotentHint === true;
    let result;
    try {
      result = await this.connection.callTool(entry.mcpName, args, { ctx, tool: entry.definition, resendSafe, timeoutMs: this.timeoutMs });
    } catch (error) {
      if (error?.streamLost && !resendSafe) this.lost.set(key, error.message);
      throw error;
    }
    const { text, isError } = resultText(result);
    if (isError) {
      const error = new Error(text || `MCP tool ${entry.mcpName} failed without a message`);
      error.name = 'McpToolError';
      throw error;
    }
    return text;
  }

  /** The tools as the public API shows them. */
  view() {
    return [...this.tools.values()].map((t) => ({
      name: t.name,
      mcpName: t.mcpName,
      fingerprint: t.fingerprint,
      changedSinceAccepted: t.fingerprint !== t.accepted,
      diff: this.diff(t),
      title: t.definition.title,
      description: t.definition.description,
      inputSchema: structuredClone(t.definition.inputSchema),
      annotations: structuredClone(t.definition.annotations ?? {}),
    }));
  }

  find(name) {
    for (const tool of this.tools.values()) if (name === tool.name || name === tool.mcpName) return tool;
    return undefined;
  }

  /** Accepts `name`'s current definition, or every tool's when `name` is undefined. */
  async acceptNamed(name) {
    for (const tool of this.tools.values()) {
      if (name === undefined || name === tool.name || name === tool.mcpName) await this.accept(tool);
    }
  }

  unregisterAll() {
    for (const name of this.tools.keys()) this.registry.unregisterTool(name);
    this.tools.clear();
  }
}
