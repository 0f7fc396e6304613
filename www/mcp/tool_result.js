// Owns two pure mappings of the MCP client: a `tools/call` result to the text the model sees
// (server output is untrusted text like any tool's: binary parts are described, never
// inlined), and a tool definition to its fingerprint (SHA-256 of canonical JSON), which tells a
// changed definition from an unchanged one.

const MAX_TEXT = 100_000;

/** One content part as text. */
function partText(part) {
  switch (part?.type) {
    case 'text':
      return String(part.text ?? '');
    case 'image':
    case 'audio':
      return `[${part.type} ${part.mimeType ?? ''}, ${Math.floor(((part.data ?? '').length * 3) / 4)} bytes, not shown]`;
    case 'resource_link':
      return `[resource link: ${part.uri ?? ''}${part.name ? ` (${part.name})` : ''}]`;
    case 'resource': {
      const resource = part.resource ?? {};
      if (typeof resource.text === 'string') return resource.text;
      return `[resource ${resource.uri ?? ''}: ${resource.mimeType ?? 'binary'}, not shown]`;
    }
    default:
      return `[${String(part?.type ?? 'unknown')} content, not shown]`;
  }
}

/**
 * The text of a `tools/call` result and whether the server flagged it as an error.
 * @param {{content?: object[], structuredContent?: object, isError?: boolean}} result
 * @returns {{text: string, isError: boolean}}
 */
export function resultText(result) {
  const parts = Array.isArray(result?.content) ? result.content : [];
  let text = parts.map(partText).join('\n');
  if (text === '' && result?.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (text.length > MAX_TEXT) text = `${text.slice(0, MAX_TEXT)}… [truncated]`;
  return { text, isError: result?.isError === true };
}

/** JSON with object keys sorted at every level, so equal definitions give equal text. */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The fingerprint of what a human relies on when allowing a tool: its name, title,
 * description, input and output schemas, and annotations.
 * @param {object} tool a `tools/list` entry
 * @returns {Promise<string>} hex SHA-256
 */
export async function toolFingerprint(tool) {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  const text = canonicalJson({ name, title, description, inputSchema, outputSchema, annotations });
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
