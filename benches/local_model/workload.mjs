// The fixed workload both halves of the local-model benchmark run (tab.mjs in Chromium,
// native.py through llama-cpp-python), so their figures compare the same work.
// REPEAT_PREFILL=n makes the prompt-reading text n sentences long instead of 20 (about 800
// tokens in the synthetic Qwen3 vocabulary, 325 in SmolLM2's), for a longer context.
const repeat = Number(globalThis.process?.env?.REPEAT_PREFILL || 20);
export const PREFILL_TEXT = 'The quick brown fox jumps over the lazy dog near the quiet river bank. '.repeat(repeat) + 'Say ok.';
export const GEN_PROMPT = 'Write a short story about a cat.';
export const TOOL_SYSTEM = 'Reply with one JSON object only.\nTo call a tool: {"tool":"<name>","arguments":{...}}\nTo answer the user: {"tool":"answer","arguments":{"text":"<answer>"}}\nTools:\n- vfs: Virtual filesystem stored in the browser. Arguments: op* = read (path) | write (path, content) | list (path)\n(* = required)';
export const TOOL_TASK = 'Use the vfs tool to write the text hello into the file /notes.txt.';
// The grammar in the shape src/protocol/local_grammar.rs builds for local models: one call shape
// per operation (a write needs its content), no whitespace, keys in a fixed order.
export const TOOL_GRAMMAR = [
  'root ::= call0 | final',
  'final ::= "{\\"tool\\":\\"answer\\",\\"arguments\\":{\\"text\\":" string "}}"',
  'r0 ::= "{" "\\"op\\":" "\\"read\\"" "," "\\"path\\":" string "}"',
  'r1 ::= "{" "\\"op\\":" "\\"write\\"" "," "\\"path\\":" string "," "\\"content\\":" string "}"',
  'r2 ::= "{" "\\"op\\":" "\\"list\\"" "," "\\"path\\":" string "}"',
  'call0 ::= "{\\"tool\\":\\"vfs\\",\\"arguments\\":" (r0 | r1 | r2) "}"',
  'string ::= "\\"" char* "\\""',
  'char ::= [^"\\\\\\x7F\\x00-\\x1F] | "\\\\" ["\\\\bfnrt]',
].join('\n');
// What the app sends back after a write: the compact result.
export const TOOL_RESULT = 'Result of vfs:\n{"bytes":5,"created":true,"lines":1,"path":"/notes.txt"}';

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === '--json') {
  console.log(JSON.stringify({ PREFILL_TEXT, GEN_PROMPT, TOOL_SYSTEM, TOOL_TASK, TOOL_GRAMMAR, TOOL_RESULT }));
}
