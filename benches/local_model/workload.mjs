// The fixed workload both halves of the local-model benchmark run (tab.mjs in Chromium,
// native.py through llama-cpp-python), so their figures compare the same work.
export const PREFILL_TEXT = 'The quick brown fox jumps over the lazy dog near the quiet river bank. '.repeat(20) + 'Say ok.';
export const GEN_PROMPT = 'Write a short story about a cat.';
export const TOOL_SYSTEM = 'Reply with one JSON object only.\nTo call a tool: {"tool":"<name>","arguments":{...}}\nTo answer the user: {"final":"<answer>"}\nTools:\n- vfs: Virtual filesystem stored in the browser. Arguments: op* (read|write|list), path, content\n(* = required)';
export const TOOL_TASK = 'Use the vfs tool to write the text hello into the file /notes.txt.';
export const TOOL_SCHEMA = {
  oneOf: [
    {
      type: 'object',
      properties: {
        tool: { const: 'vfs' },
        arguments: {
          type: 'object',
          properties: { op: { type: 'string', enum: ['read', 'write', 'list'] }, path: { type: 'string' }, content: { type: 'string' } },
          required: ['op'],
          additionalProperties: false,
        },
      },
      required: ['tool', 'arguments'],
      additionalProperties: false,
    },
    { type: 'object', properties: { final: { type: 'string' } }, required: ['final'], additionalProperties: false },
  ],
};

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === '--json') {
  console.log(JSON.stringify({ PREFILL_TEXT, GEN_PROMPT, TOOL_SYSTEM, TOOL_TASK, TOOL_SCHEMA }));
}
