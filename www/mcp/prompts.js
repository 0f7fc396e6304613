// Owns an MCP connection's prompts: listing them (following cursors), getting one with its
// arguments (checked against the prompt's declared arguments first), completing an argument's
// value as it is typed (`completion/complete`), and turning a prompt's messages (text, images,
// embedded resources) into the text of a task: the playground's slash commands use it.

import { contentText } from './resources.js';

/** A prompt message's content as text: images and audio described, resources inlined. */
export function promptContentText(content) {
  switch (content?.type) {
    case 'text':
      return String(content.text ?? '');
    case 'image':
    case 'audio':
      return `[${content.type} ${content.mimeType ?? ''}, ${Math.floor(((content.data ?? '').length * 3) / 4)} bytes, not shown]`;
    case 'resource':
      return `[resource ${content.resource?.uri ?? ''}]\n${contentText(content.resource)}`;
    case 'resource_link':
      return `[resource link: ${content.uri ?? ''}${content.name ? ` (${content.name})` : ''}]`;
    default:
      return `[${String(content?.type ?? 'unknown')} content, not shown]`;
  }
}

/**
 * A `prompts/get` result as one task text: each message's text, a role line before each
 * assistant message (a task is the user's turn).
 */
export function promptAsTask(result) {
  const parts = [];
  for (const message of Array.isArray(result?.messages) ? result.messages : []) {
    const text = promptContentText(message.content);
    parts.push(message.role === 'assistant' ? `(assistant) ${text}` : text);
  }
  return parts.join('\n\n');
}

export class Prompts {
  constructor(connection) {
    this.connection = connection;
    this.cache = undefined;
  }

  async list() {
    this.cache = await this.connection.listAll('prompts/list', 'prompts');
    return this.cache;
  }

  /**
   * `prompts/get` with `args` (string values); a required argument that is missing is refused
   * here, with the prompt's own description of it.
   */
  async get(name, args = {}, options = {}) {
    const prompts = this.cache ?? (await this.list());
    const prompt = prompts.find((p) => p.name === name);
    if (!prompt) throw new Error(`MCP server "${this.connection.name}" has no prompt ${JSON.stringify(name)}`);
    const missing = (prompt.arguments ?? []).filter((a) => a.required && (args[a.name] === undefined || args[a.name] === ''));
    if (missing.length > 0) {
      throw new Error(`prompt ${name} needs ${missing.map((a) => `${a.name}${a.description ? ` (${a.description})` : ''}`).join(', ')}`);
    }
    const strings = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
    return this.connection.request('prompts/get', { name, arguments: strings }, { signal: options.signal });
  }

  /**
   * Suggested values for one argument of a prompt (`ref/prompt`) or a resource template
   * (`ref/resource`): `completion/complete`. Resolves `{values, total?, hasMore?}`.
   * @param {{type: 'ref/prompt', name: string} | {type: 'ref/resource', uri: string}} ref
   * @param {string} argument
   * @param {string} value what is typed so far
   * @param {Record<string, string>} [context] arguments already given
   */
  async complete(ref, argument, value, context) {
    const result = await this.connection.request('completion/complete', {
      ref,
      argument: { name: argument, value: String(value ?? '') },
      ...(context ? { context: { arguments: context } } : {}),
    });
    const completion = result?.completion ?? {};
    return { values: Array.isArray(completion.values) ? completion.values.map(String).slice(0, 100) : [], total: completion.total, hasMore: completion.hasMore };
  }
}
