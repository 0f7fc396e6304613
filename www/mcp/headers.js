// Owns the request metadata headers of the modern Streamable HTTP transport (2026-07-28):
// `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` (for tools/call, resources/read and
// prompts/get) and `Mcp-Param-{name}` for tool arguments the tool's input schema marks with
// `x-mcp-header`; values that are not plain visible ASCII are sent as `=?base64?…?=`. It also
// checks a tool's `x-mcp-header` annotations, which a client must refuse when malformed.

const NAMED_METHODS = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Visible ASCII and space; a tab is sent encoded too (the spec allows it inside a value, but
// intermediaries and the conformance suite treat it as unsafe).
const SAFE = /^[\x20-\x7e]*$/;
const SENTINEL = /^=\?base64\?.*\?=$/s;
/** Schema keywords whose values are data, not schemas. */
const DATA = ['default', 'examples', 'const', 'enum'];

/** `text` as a header value: itself when safe, else the Base64 sentinel form of its UTF-8. */
export function encodeHeaderValue(text) {
  if (SAFE.test(text) && text.trim() === text && !SENTINEL.test(text)) return text;
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/**
 * The `x-mcp-header` annotations of an input schema as `[{header, path}]`, or a reason the
 * tool must be refused.
 * @returns {{headers: {header: string, path: string[]}[]} | {error: string}}
 */
export function toolHeaderParams(inputSchema) {
  const headers = [];
  const seen = new Set();
  const problems = [];
  const visit = (schema, path, reachable) => {
    if (!schema || typeof schema !== 'object') return;
    if (Array.isArray(schema)) {
      for (const item of schema) visit(item, path, false);
      return;
    }
    if ('x-mcp-header' in schema) {
      const name = schema['x-mcp-header'];
      const where = path.join('.') || '(root)';
      if (!reachable || path.length === 0) problems.push(`x-mcp-header on ${where} is not reachable through properties alone`);
      else if (typeof name !== 'string' || !TOKEN.test(name)) problems.push(`x-mcp-header ${JSON.stringify(name)} on ${where} is not an HTTP token`);
      else if (seen.has(name.toLowerCase())) problems.push(`x-mcp-header ${name} is used twice`);
      else if (!['string', 'integer', 'boolean'].includes(schema.type)) problems.push(`x-mcp-header on ${where} needs type string, integer or boolean, not ${JSON.stringify(schema.type)}`);
      else {
        seen.add(name.toLowerCase());
        headers.push({ header: name, path });
      }
    }
    for (const [key, value] of Object.entries(schema)) {
      if (!value || typeof value !== 'object' || DATA.includes(key)) continue;
      if (key === 'properties' && !Array.isArray(value)) {
        for (const [property, sub] of Object.entries(value)) visit(sub, [...path, property], reachable);
      } else {
        // items, oneOf, $defs, if/then/else, …: an annotation under these is not reachable.
        visit(value, [...path, key], false);
      }
    }
  };
  visit(inputSchema, [], true);
  return problems.length ? { error: problems.join('; ') } : { headers };
}

/** A value from the call's arguments as the header's text; undefined to omit the header. */
function headerText(value) {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : undefined;
  if (typeof value === 'string') return value;
  return undefined;
}

/**
 * The modern transport's headers for one message.
 * @param {object} message the JSON-RPC request
 * @param {string} version the protocol version in use
 * @param {object} [tool] for tools/call: the tool's definition
 */
export function modernHeaders(message, version, tool) {
  const headers = { 'mcp-protocol-version': version, 'mcp-method': message.method };
  const field = NAMED_METHODS[message.method];
  const name = field ? message.params?.[field] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  if (message.method === 'tools/call' && tool?.inputSchema) {
    const found = toolHeaderParams(tool.inputSchema);
    for (const { header, path } of found.headers ?? []) {
      let value = message.params?.arguments;
      for (const key of path) value = value && typeof value === 'object' ? value[key] : undefined;
      const text = headerText(value);
      if (text !== undefined) headers[`mcp-param-${header.toLowerCase()}`] = encodeHeaderValue(text);
    }
  }
  return headers;
}
