// Owns the form side of MCP elicitation (`elicitation/create`, mode "form"): reading the
// server's requested schema (flat properties of string, number, integer, boolean, single- and
// multi-select enums, titled or not) into fields a form can show, applying the schema's
// defaults to what the person left out (SEP-1034: a field shown with its default and left
// alone keeps it), and checking the answer against the schema before it is sent. Pure.

const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

/** The options of an enum property, as `[{value, label}]`, or undefined when it has none. */
function enumOptions(schema) {
  if (Array.isArray(schema.oneOf)) return schema.oneOf.map((o) => ({ value: String(o.const), label: String(o.title ?? o.const) }));
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((v, i) => ({ value: String(v), label: String(names[i] ?? v) }));
  }
  return undefined;
}

/**
 * The fields of a requested schema, in order, or an error naming what this client cannot show.
 * @returns {{fields: object[]} | {error: string}}
 */
export function formFields(requestedSchema) {
  if (!requestedSchema || requestedSchema.type !== 'object' || typeof requestedSchema.properties !== 'object') {
    return { error: 'the requested schema is not an object schema with properties' };
  }
  const required = new Set(Array.isArray(requestedSchema.required) ? requestedSchema.required : []);
  const fields = [];
  for (const [name, schema] of Object.entries(requestedSchema.properties)) {
    if (!schema || typeof schema !== 'object') return { error: `property ${name} has no schema` };
    const base = { name, title: String(schema.title ?? name), description: schema.description ?? '', required: required.has(name), default: schema.default };
    if (schema.type === 'array') {
      const options = enumOptions(schema.items?.anyOf ? { oneOf: schema.items.anyOf } : schema.items ?? {});
      if (!options) return { error: `property ${name} is an array without enum items` };
      fields.push({ ...base, kind: 'multi', options, minItems: schema.minItems, maxItems: schema.maxItems });
    } else if (schema.type === 'string') {
      const options = enumOptions(schema);
      if (options) fields.push({ ...base, kind: 'select', options });
      else fields.push({ ...base, kind: 'text', format: FORMATS.has(schema.format) ? schema.format : undefined, minLength: schema.minLength, maxLength: schema.maxLength });
    } else if (schema.type === 'number' || schema.type === 'integer') {
      fields.push({ ...base, kind: schema.type, minimum: schema.minimum, maximum: schema.maximum });
    } else if (schema.type === 'boolean') {
      fields.push({ ...base, kind: 'boolean' });
    } else {
      return { error: `property ${name} has type ${JSON.stringify(schema.type)}, which a form cannot ask for` };
    }
  }
  return { fields };
}

/** `content` with every property it lacks that has a default in the schema set to it. */
export function applyDefaults(requestedSchema, content) {
  const filled = { ...(content ?? {}) };
  for (const [name, schema] of Object.entries(requestedSchema?.properties ?? {})) {
    if (filled[name] === undefined && schema && schema.default !== undefined) filled[name] = structuredClone(schema.default);
  }
  return filled;
}

function checkText(field, value) {
  if (field.minLength !== undefined && value.length < field.minLength) return `${field.title} needs at least ${field.minLength} characters`;
  if (field.maxLength !== undefined && value.length > field.maxLength) return `${field.title} takes at most ${field.maxLength} characters`;
  if (field.format === 'email' && !/^[^\s@]+@[^\s@]+$/.test(value)) return `${field.title} is not an email address`;
  if (field.format === 'uri') {
    try {
      new URL(value);
    } catch {
      return `${field.title} is not a URL`;
    }
  }
  if (field.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${field.title} is not a date (YYYY-MM-DD)`;
  if (field.format === 'date-time' && Number.isNaN(Date.parse(value))) return `${field.title} is not a date and time`;
  return null;
}

function checkField(field, value) {
  switch (field.kind) {
    case 'text':
      return typeof value === 'string' ? checkText(field, value) : `${field.title} must be text`;
    case 'select':
      return field.options.some((o) => o.value === value) ? null : `${field.title} must be one of ${field.options.map((o) => o.value).join(', ')}`;
    case 'multi': {
      if (!Array.isArray(value) || !value.every((v) => field.options.some((o) => o.value === v))) return `${field.title} must be a list of ${field.options.map((o) => o.value).join(', ')}`;
      if (field.minItems !== undefined && value.length < field.minItems) return `${field.title} needs at least ${field.minItems} choices`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `${field.title} takes at most ${field.maxItems} choices`;
      return null;
    }
    case 'number':
    case 'integer': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${field.title} must be a number`;
      if (field.kind === 'integer' && !Number.isInteger(value)) return `${field.title} must be a whole number`;
      if (field.minimum !== undefined && value < field.minimum) return `${field.title} must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `${field.title} must be at most ${field.maximum}`;
      return null;
    }
    case 'boolean':
      return typeof value === 'boolean' ? null : `${field.title} must be true or false`;
    default:
      return `${field.title} cannot be checked`;
  }
}

/**
 * What is wrong with an accepted answer (defaults already applied): missing required fields,
 * wrong types, values out of range, fields the schema does not have. Empty when it is fine.
 * @returns {string[]}
 */
export function contentProblems(requestedSchema, content) {
  const read = formFields(requestedSchema);
  if (read.error) return [read.error];
  const problems = [];
  const names = new Set(read.fields.map((f) => f.name));
  for (const key of Object.keys(content ?? {})) if (!names.has(key)) problems.push(`${key} is not a field of the form`);
  for (const field of read.fields) {
    const value = content?.[field.name];
    if (value === undefined) {
      if (field.required) problems.push(`${field.title} is required`);
      continue;
    }
    const problem = checkField(field, value);
    if (problem) problems.push(problem);
  }
  return problems;
}
