// A GBNF grammar for JSON matching a JSON Schema (response_format json_schema), written
// compactly: no whitespace, object keys in the schema's order. Reads the parts a grammar can
// follow (type, const, enum, oneOf/anyOf, properties/required, items); anything else admits
// any JSON value there.

const BASE = [
  'string ::= "\\"" char* "\\""',
  'char ::= [^"\\\\\\x7F\\x00-\\x1F] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F]{4})',
  'integer ::= "-"? ("0" | [1-9] [0-9]{0,15})',
  'number ::= integer ("." [0-9]+)? ([eE] [-+]? [0-9]+)?',
  'boolean ::= "true" | "false"',
  'null ::= "null"',
  'value ::= object | array | string | number | boolean | null',
  'object ::= "{" (string ":" value ("," string ":" value)*)? "}"',
  'array ::= "[" (value ("," value)*)? "]"',
];
const MAX_DEPTH = 16;

/** GBNF text for `value` as a literal in a grammar (JSON text of it, quoted). */
function literal(value) {
  return JSON.stringify(JSON.stringify(value));
}

/**
 * The grammar for JSON values matching `schema`, with `root` as its start.
 * @param {object} schema a JSON Schema
 * @returns {string}
 */
export function schemaGrammar(schema) {
  const rules = [];
  const expression = (node, depth) => {
    if (node == null || typeof node !== 'object' || depth > MAX_DEPTH) return 'value';
    if ('const' in node) return literal(node.const);
    if (Array.isArray(node.enum) && node.enum.length > 0) return `(${node.enum.map(literal).join(' | ')})`;
    const branches = node.oneOf ?? node.anyOf;
    if (Array.isArray(branches) && branches.length > 0) {
      const index = rules.length;
      const name = `alt${index}`;
      rules.push('');
      rules[index] = `${name} ::= ${branches.map((b) => expression(b, depth + 1)).join(' | ')}`;
      return name;
    }
    const type = Array.isArray(node.type) ? node.type[0] : node.type;
    switch (type) {
      case 'string':
        return 'string';
      case 'integer':
        return 'integer';
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return node.items ? `("[" (${expression(node.items, depth + 1)} ("," ${expression(node.items, depth + 1)})*)? "]")` : 'array';
      case 'object': {
        const properties = node.properties && typeof node.properties === 'object' ? node.properties : null;
        if (!properties) return 'object';
        const required = Array.isArray(node.required) ? node.required.filter((k) => k in properties) : [];
        const optional = Object.keys(properties).filter((k) => !required.includes(k));
        const member = (key) => `${literal(key)} ":" ${expression(properties[key], depth + 1)}`;
        if (required.length === 0 && optional.length === 0) return '"{}"';
        // required keys in order, then each optional key in order, each optional
        let body = required.map(member).join(' "," ');
        for (const key of optional) {
          body = body ? `${body} ("," ${member(key)})?` : `(${member(key)})?`;
        }
        return `("{" ${body} "}")`;
      }
      default:
        return 'value';
    }
  };
  const root = expression(schema, 0);
  return [`root ::= ${root}`, ...rules, ...BASE].join('\n');
}
