#!/usr/bin/env node
// Rewrites the "## Fuzzing" section of RELIABILITY.md from target/fuzz/figures.json (what
// scripts/fuzz.sh measured, summed over its runs) and the regression inputs kept in
// fuzz/regressions/. The drills' table above it is left as it is.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const figures = JSON.parse(fs.readFileSync(path.join(repo, 'target/fuzz/figures.json'), 'utf8'));
const WHAT = {
  gguf: 'GGUF reader and tensor loader (whole and streamed), then a prompt through the model',
  tokenizer: 'tokenizer loading (vocabulary, merges, types, scores, special ids) and encoding',
  grammar: 'GBNF compiler and matcher (accepts, advance, forced bytes)',
  sse_providers: 'SSE parser; OpenAI, Anthropic and custom-provider stream and reply JSON; error bodies',
  mcp_sampling: "MCP sampling/createMessage parameters into a model request and back",
  markdown: 'markdown renderer, output checked for any tag, attribute or URL that could run',
  mcp_js: "MCP client (JavaScript): SSE reader, responses, tool results and definitions, prompts, resources, elicitation schemas, header annotations; guided by V8 block coverage (edges: blocks)",
};
const regressions = (t) => {
  const dir = path.join(repo, 'fuzz/regressions', t);
  return fs.existsSync(dir) ? fs.readdirSync(dir).length : 0;
};
const n = (x) => x.toLocaleString('en-US');
const rows = Object.keys(WHAT).filter((t) => figures[t]).map((t) => {
  const f = figures[t];
  return `| \`${t}\`: ${WHAT[t]} | ${n(f.executions)} | ${Math.round(f.wall_s / 60 * 10) / 10} min | ${n(f.edges)} | ${f.crashes} | ${regressions(t)} |`;
});
const core = ['gguf', 'tokenizer', 'grammar'].reduce((s, t) => s + (figures[t]?.executions ?? 0), 0);
const section = `## Fuzzing

Coverage-guided fuzzing of every parser of outside input: cargo-fuzz (libFuzzer) for the Rust
ones, and for the MCP client's JavaScript a Node fuzzer guided by V8's block coverage.
\`scripts/fuzz.sh SECONDS [TARGET...]\` runs each target (fuzz/fuzz_targets/ and fuzz/js/, the
checks in fuzz/src/checks.rs) for that long under \`nice\`, and this table is written from what
it measured, summed over its runs (\`node scripts/fuzz-table.mjs\`). Not part of CI;
\`tests/fuzz_regressions.rs\` replays the seed corpora (fuzz/corpus/) and every input that ever
failed a check (fuzz/regressions/, whose README says what each found and what changed: two were
engine bugs, a 3.8 TB allocation and a panic in the forward pass) in \`cargo test\`. Edges:
libFuzzer's coverage counter at the end of the last run; crashes: inputs failing at the end (0
is the goal); regressions: inputs kept. Executions over the GGUF, tokenizer and grammar targets:
${n(core)}. Measured on 2 cores shared with other work (load 9-13), built without a sanitizer
(the first short passes used AddressSanitizer).

| target | executions | wall time | edges | crashes | regressions |
|---|---|---|---|---|---|
${rows.join('\n')}
`;
const file = path.join(repo, 'RELIABILITY.md');
const text = fs.readFileSync(file, 'utf8');
const start = text.indexOf('\n## Fuzzing');
let out;
if (start < 0) {
  // Right after the drills' table: before the first other section, if any.
  const other = text.indexOf('\n## ');
  out = other < 0 ? `${text.trimEnd()}\n\n${section}` : `${text.slice(0, other)}\n\n${section}${text.slice(other)}`;
} else {
  const next = text.indexOf('\n## ', start + 1);
  out = `${text.slice(0, start)}\n${section}${next >= 0 ? text.slice(next) : ''}`;
}
fs.writeFileSync(file, out.replace(/\n{3,}/g, '\n\n'));
console.log(`RELIABILITY.md: ## Fuzzing written (${rows.length} targets, ${n(core)} core executions)`);
