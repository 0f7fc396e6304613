// Owns an MCP connection's resources: listing them and their templates (following cursors),
// reading one (text or binary contents), subscribing to a resource's updates (legacy
// `resources/subscribe`, or the modern `subscriptions/listen` filter), and turning what was
// read into something the agent can use: text for a task's context, or files in a session's
// virtual filesystem (binary contents as base64 text, said so in the name).

import { createVfs } from '../tools/vfs.js';
import { Listeners } from './listeners.js';

const MAX_CONTEXT_CHARS = 100_000;

/** A file name for a resource URI: its last path segment, made safe, or "resource". */
function fileNameOf(uri) {
  let name = '';
  try {
    const url = new URL(uri);
    name = decodeURIComponent(url.pathname.split('/').filter(Boolean).pop() ?? '') || url.hostname;
  } catch {
    name = String(uri).split(/[/:]/).filter(Boolean).pop() ?? '';
  }
  name = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '');
  return name || 'resource';
}

/** One content item of a read as text for the model: text as is, binary described. */
export function contentText(item) {
  if (typeof item?.text === 'string') return item.text;
  const bytes = Math.floor(((item?.blob ?? '').length * 3) / 4);
  return `[binary ${item?.mimeType ?? 'data'}, ${bytes} bytes, not shown]`;
}

export class Resources {
  constructor(connection) {
    this.connection = connection;
    /** Update listeners by URI. */
    this.watchers = new Map();
    this.listeners = new Listeners();
    this.vfs = undefined;
  }

  list() {
    return this.connection.listAll('resources/list', 'resources');
  }

  templates() {
    return this.connection.listAll('resources/templates/list', 'resourceTemplates');
  }

  /** `resources/read`: resolves `{contents: [{uri, mimeType?, text | blob}]}`. */
  async read(uri, options = {}) {
    const result = await this.connection.request('resources/read', { uri: String(uri) }, { signal: options.signal });
    if (!Array.isArray(result?.contents)) throw new Error(`the MCP server's read of ${uri} has no contents`);
    return { contents: result.contents };
  }

  /**
   * Calls `callback(uri)` whenever the server says the resource changed; resolves once the
   * server has the subscription. Returns a function that unsubscribes.
   */
  async subscribe(uri, callback) {
    const key = String(uri);
    const first = !this.watchers.has(key);
    if (first) this.watchers.set(key, new Set());
    this.watchers.get(key).add(callback);
    if (first) {
      try {
        await this.connection.subscribeResource(key);
      } catch (error) {
        this.watchers.delete(key);
        throw error;
      }
    }
    return () => this.unsubscribe(key, callback);
  }

  /** Stops `callback` (or every callback) for `uri`; the server is told when none are left. */
  async unsubscribe(uri, callback) {
    const key = String(uri);
    const set = this.watchers.get(key);
    if (!set) return;
    if (callback) set.delete(callback);
    else set.clear();
    if (set.size > 0) return;
    this.watchers.delete(key);
    await this.connection.unsubscribeResource(key);
  }

  /** URIs with at least one watcher (a modern server's listen filter). */
  subscribed() {
    return [...this.watchers.keys()];
  }

  /** `notifications/resources/updated`. */
  updated(uri) {
    for (const [key, callbacks] of this.watchers) {
      // The server may report a sub-resource of the one subscribed.
      if (uri !== key && !String(uri).startsWith(key)) continue;
      for (const callback of callbacks) {
        try {
          callback(uri);
        } catch {
          // One watcher's failure must not stop the others.
        }
      }
    }
    this.listeners.emit({ type: 'updated', uri });
  }

  /** The contents of `uri` as text a task can carry, headed by the URI. */
  async asContext(uri, options = {}) {
    const { contents } = await this.read(uri, options);
    let text = contents.map((item) => `--- ${item.uri ?? uri}${item.mimeType ? ` (${item.mimeType})` : ''}\n${contentText(item)}`).join('\n');
    if (text.length > MAX_CONTEXT_CHARS) text = `${text.slice(0, MAX_CONTEXT_CHARS)}… [truncated]`;
    return `Resource ${uri} from MCP server "${this.connection.name}":\n${text}`;
  }

  /**
   * Writes `uri`'s contents into a session's files (`volume` "session", or "shared"); each
   * content item is one file under `dir`. Resolves the paths written.
   * @param {string} uri
   * @param {{session?: string, volume?: 'session'|'shared', dir?: string, signal?: AbortSignal}} options
   */
  async toVfs(uri, options = {}) {
    const volume = options.volume ?? 'session';
    if (volume === 'session' && !options.session) throw new TypeError('toVfs into the session volume needs { session }');
    const { contents } = await this.read(uri, options);
    this.vfs ??= createVfs();
    const dir = (options.dir ?? '/mcp').replace(/\/+$/, '');
    const written = [];
    for (const [index, item] of contents.entries()) {
      let name = fileNameOf(item.uri ?? uri);
      if (contents.length > 1 && written.some((p) => p.endsWith(`/${name}`))) name = `${index}-${name}`;
      const binary = typeof item.text !== 'string';
      const path = `${dir}/${name}${binary ? '.base64' : ''}`;
      const result = await this.vfs.run({ op: 'write', volume, path, content: binary ? String(item.blob ?? '') : item.text }, { session: options.session });
      written.push(result?.path ?? path);
    }
    return written;
  }
}
