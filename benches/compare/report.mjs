// Turns the JSON of benches/compare/run.mjs into the Markdown of BENCHMARKS.md: the machine,
// then each figure beside the AI SDK's where there is one, its ratio, and its goal.
//   node benches/compare/report.mjs RESULT.json OUT.md
import fs from 'node:fs';

const [input, output] = process.argv.slice(2);
const r = JSON.parse(fs.readFileSync(input, 'utf8'));
const ms = (x, digits = 2) => (x == null ? '–' : `${x.toFixed(digits)} ms`);
const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;
const ratio = (a, b) => (a == null || b == null ? '–' : (a / b).toFixed(2));
const mark = (ok) => (ok ? '✓' : '✗');
const lines = [];
const add = (...xs) => lines.push(...xs);

add('# Benchmarks', '');
add('Written by `scripts/bench.sh` (figures of one run; nothing here is asserted by a test). tabloop is its');
add('library package (`pkg/`, the build an embedding page imports) and the AI SDK is npm `ai` +');
add('`@ai-sdk/openai` (versions pinned in package.json), both in **one headless Chromium page**, run');
add('alternately, so machine noise falls on both; ratios are tabloop / AI SDK (below 1 = tabloop faster).');
add('Every tabloop step is durable: each record is in IndexedDB before the run resolves, and a');
add('non-idempotent tool runs only after its start record is committed.', '');
const m = r.machine;
m.load_after ??= m.load_before;
add(`Machine: ${m.cpu} × ${m.cores} cores, ${(m.memory_bytes / 2 ** 30).toFixed(0)} GiB, ${m.os}; load average ${m.load_before.map((x) => x.toFixed(1)).join(' / ')} at the start and ${m.load_after.map((x) => x.toFixed(1)).join(' / ')} at the end (1/5/15 min; the machine was shared)${m.guest_halt_poll_ns == null ? '' : `; an idle core polls ${m.guest_halt_poll_ns.toLocaleString('en')} ns before it halts (Linux's haltpoll, default 200,000: at 0 a thread woken after a wait first wakes a halted core)`}. Chromium ${r.browser.version}; node ${m.node}. Run ${r.when}${r.smoke ? ' (**smoke run**: tiny sizes, figures meaningless)' : ''}.`, '');

add('## Per step, harness only (instant in-page model, one no-op tool)', '');
add('tabloop: the whole runtime (driver, JS tool bridge, IndexedDB) through the public custom-provider API.');
add('AI SDK: `streamText` with `MockLanguageModelV4` and the same tool. Median of the repetitions.', '');
add('| steps | tabloop, tool not idempotent | tabloop, idempotent tool | AI SDK | ratio | ratio (idempotent) |', '|---|---|---|---|---|---|');
// A loop whose page crashed at that size (out of memory) shows "page crashed".
const perStep = (h, x) => (x == null && h.crashed?.length ? 'page crashed' : ms(x, 3));
for (const h of r.harness) {
  add(`| ${h.steps.toLocaleString('en')} | ${perStep(h, h.tabloop_ms_per_step)} | ${perStep(h, h.tabloop_idempotent_ms_per_step)} | ${perStep(h, h.aisdk_ms_per_step)} | ${ratio(h.tabloop_ms_per_step, h.aisdk_ms_per_step)} | ${ratio(h.tabloop_idempotent_ms_per_step, h.aisdk_ms_per_step)} |`);
}
const at1000 = r.harness.find((h) => h.steps === 1000);
// Per-repetition ratios (each tabloop run over the AI SDK run beside it): their spread says how
// far one run's ratio can be trusted on this machine.
const spread = (xs) => {
  if (!xs?.length) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  return `${sorted[0].toFixed(2)} / ${sorted[Math.floor(sorted.length / 2)].toFixed(2)} / ${sorted.at(-1).toFixed(2)}`;
};
if (at1000?.paired_ratios?.length > 1) add('', `At 1,000 steps, each of the ${at1000.paired_ratios.length} repetitions' tabloop run over the AI SDK run beside it (tool not idempotent), lowest / median / highest: ${spread(at1000.paired_ratios)}.`);
if (r.commit_floor) {
  add('', `The storage floor, measured in the same page: one small record committed in its own transaction and awaited costs ${ms(r.commit_floor.strict_ms)} with \`durability: 'strict'\` (what a step waits for before a tool that is not idempotent runs) and ${ms(r.commit_floor.relaxed_ms)} relaxed.`);
  if (at1000) add(`Half the AI SDK's step at 1,000 steps is ${ms(0.5 * at1000.aisdk_ms_per_step)}: the strict commit alone is ${(r.commit_floor.strict_ms / (0.5 * at1000.aisdk_ms_per_step)).toFixed(2)}× that.`);
  if (r.commit_floor.step_strict_ms != null) {
    add(`The commit a step actually waits for (one row of a step's records, ${r.commit_floor.step_row_bytes} B, added in a strict transaction over the records store, as tabloop writes it) costs ${ms(r.commit_floor.step_strict_ms)}.`);
  }
}
// A step whose tool is not idempotent does the idempotent step's work and also waits for one
// strict commit (its records and those of the step before, in one transaction and one row),
// measured in each repetition right after its runs.
// (At 1,000 steps in a full run; at the smoke run's size in a smoke run.)
const floored = r.harness.find((h) => h.floor?.ratios?.length);
if (floored) {
  const f = floored.floor;
  add(`In each repetition at ${floored.steps.toLocaleString('en')} steps that commit was measured again right after the runs (${f.step_commit_ms.map((x) => x.toFixed(2)).join(' / ')} ms). The idempotent step plus that one commit is what a step whose tool is not idempotent costs at best, its storage floor: over the AI SDK's step beside it, lowest / median / highest ${spread(f.ratios)}, against ${spread(floored.paired_ratios)} measured.`);
  const w = floored.wait_floor;
  if (w?.ratios?.length) {
    add('', `A step that waits for anything outside the page's thread pays more than the wait: its work runs slower after the thread idled. Measured beside each repetition: the idempotent step whose tool first waits for a worker that answers at once (about as cheap a wait as there is) costs ${w.waiting_ms_per_step.map((x) => x.toFixed(3)).join(' / ')} ms a step, with an echo that costs ${w.echo_ms.map((x) => x.toFixed(3)).join(' / ')} ms on its own. With the commit's own time in the echo's place, that is the floor of a step that waits for its commit, the cost of waiting included: over the AI SDK's step beside it, lowest / median / highest ${spread(w.ratios)}.`);
  }
}
if (at1000) add('', `Goal ≤ 0.5× the AI SDK at 1,000 steps: ${ratio(at1000.tabloop_ms_per_step, at1000.aisdk_ms_per_step)} (tool not idempotent) ${mark(at1000.tabloop_ms_per_step <= 0.5 * at1000.aisdk_ms_per_step)}, ${ratio(at1000.tabloop_idempotent_ms_per_step, at1000.aisdk_ms_per_step)} (idempotent) ${mark(at1000.tabloop_idempotent_ms_per_step <= 0.5 * at1000.aisdk_ms_per_step)}.`);

if (r.disk) {
  const d = r.disk;
  const f = d.commit_floor;
  add('', `### On a profile on disk (what a person's browser has)`, '');
  add(`The page above runs in a fresh browser context, whose IndexedDB lives in memory. Here the same harness at ${d.steps.toLocaleString('en')} steps ran in a browser started on a profile directory on this machine's disk, where a strict commit is flushed to the disk and a relaxed one is handed to the operating system (it survives a killed tab or browser, not a power cut). Median of ${d.samples.aisdk.length} repetitions.`, '');
  add('| steps | tabloop, tool not idempotent | tabloop, idempotent tool | AI SDK | ratio | ratio (idempotent) |', '|---|---|---|---|---|---|');
  add(`| ${d.steps.toLocaleString('en')} | ${ms(d.tabloop_ms_per_step, 3)} | ${ms(d.tabloop_idempotent_ms_per_step, 3)} | ${ms(d.aisdk_ms_per_step, 3)} | ${ratio(d.tabloop_ms_per_step, d.aisdk_ms_per_step)} | ${ratio(d.tabloop_idempotent_ms_per_step, d.aisdk_ms_per_step)} |`);
  add('', `Each repetition's tabloop run over the AI SDK run beside it (tool not idempotent), lowest / median / highest: ${spread(d.paired_ratios)}. One awaited commit on disk: ${ms(f.strict_ms)} strict, ${ms(f.relaxed_ms)} relaxed${f.step_strict_ms == null ? '' : `, a step's row (${f.step_row_bytes} B) strict ${ms(f.step_strict_ms)}`}. A step whose tool is not idempotent waits for one strict commit, so its floor on disk is that commit plus the idempotent step: ${ratio((f.step_strict_ms ?? f.strict_ms) + d.tabloop_idempotent_ms_per_step, d.aisdk_ms_per_step)}× the AI SDK's step here.`);
}

add('', '## End to end over loopback HTTP (the same streaming mock server for both)', '');
add(`A bare \`fetch\` round trip to that server costs ${ms(r.fetch_floor_ms)} in this browser (median): the floor under every step.`, '');
add('| steps | tabloop, tool not idempotent | tabloop, idempotent tool | AI SDK | ratio | ratio (idempotent) |', '|---|---|---|---|---|---|');
for (const l of r.loopback) {
  add(`| ${l.steps.toLocaleString('en')} | ${ms(l.tabloop_ms_per_step)} | ${ms(l.tabloop_idempotent_ms_per_step)} | ${ms(l.aisdk_ms_per_step)} | ${ratio(l.tabloop_ms_per_step, l.aisdk_ms_per_step)} | ${ratio(l.tabloop_idempotent_ms_per_step, l.aisdk_ms_per_step)} |`);
}
const e1000 = r.loopback.find((l) => l.steps === 1000) ?? r.loopback.at(-1);
if (e1000) add('', `Goal ≤ 0.9× at ${e1000.steps.toLocaleString('en')} steps: ${ratio(e1000.tabloop_ms_per_step, e1000.aisdk_ms_per_step)} ${mark(e1000.tabloop_ms_per_step <= 0.9 * e1000.aisdk_ms_per_step)}${e1000.paired_ratios?.length > 1 ? ` (each repetition's run over the AI SDK's beside it, lowest / median / highest: ${spread(e1000.paired_ratios)})` : ''}.`);

add('', '## What reaches IndexedDB per step as the log grows', '');
add('Counted in the page around `IDBObjectStore.put`/`add` and `IDBDatabase.transaction` (bytes = JSON length of');
add('the values written: records, the sessions row with its digest, fold snapshots), tabloop harness run with');
add('the non-idempotent tool, mean per step over each window of 10 steps (max = the largest single step).', '');
add('| run | steps | bytes/step | max bytes in a step | puts/step | transactions/step | of them read-write |', '|---|---|---|---|---|---|---|');
for (const h of r.harness) {
  if (!h.idb) continue;
  for (const w of [...h.idb.windows, { ...h.idb.whole, label: 'whole run' }]) {
    add(`| ${h.steps.toLocaleString('en')} | ${w.label ?? `${w.from}–${w.to}`} | ${w.bytes.toFixed(0)} | ${w.max_bytes} | ${w.puts.toFixed(2)} | ${w.transactions.toFixed(2)} | ${w.writes.toFixed(2)} |`);
  }
}

add('', '## Resume and list (sessions bench, `benches/browser/sessions.mjs`)', '');
r.sessions ??= { open: [], list: [] };
add('| session | open (`createAgent` resolved) | open, next task recorded |', '|---|---|---|');
for (const o of r.sessions.open) add(`| ${o.events.toLocaleString('en')} events | ${ms(o.created_ms, 1)} | ${ms(o.ready_ms, 1)} |`);
add('', '| sessions stored | `listSessions` first call on a page | second call | first call in init\'s own task (before the idle warm-up) |', '|---|---|---|---|');
for (const l of r.sessions.list) add(`| ${l.sessions} | ${ms(l.first_ms, 1)} | ${ms(l.again_ms, 1)} | ${ms(l.at_once_ms, 1)} |`);

add('', '## Parsing: SSE + Chat Completions chunk assembly', '');
add('A synthetic 400-delta reply with one streamed tool call (`src/runtime/synthetic_stream.rs`), fed in');
add('network-sized pieces. MB/s = 10^6 bytes per second.', '');
add('| where | piece | MB/s |', '|---|---|---|');
if (r.native?.measured) {
  // A piece size ends the id of the streaming benches; `parse/records_10k` reads a stored log
  // of 10,000 records as JSON lines, whole.
  const piece = (id) => (/^\d+$/.test(id.split('/').at(-1)) ? `${id.split('/').at(-1)} B` : 'a 10,000-record log, whole');
  for (const b of r.native.benches) add(`| native, criterion \`${b.id}\` | ${piece(b.id)} | ${b.mb_s.toFixed(0)} |`);
  if (r.native.cpu) add(`| native, per CPU-second (process CPU time, load-independent) | ${r.native.cpu.piece} B | ${r.native.cpu.mb_per_cpu_s.toFixed(0)} |`);
  if (r.native.floor) add(`| floor: serde_json alone reading each chunk into \`IgnoredAny\`, per CPU-second | ${r.native.floor.piece} B | ${r.native.floor.mb_per_cpu_s.toFixed(0)} |`);
} else {
  add('| native | – | not measured in this run |');
}
for (const p of r.parse.wasm_mb_s) add(`| wasm, in the page (the site build's \`benchParseStream\`) | ${p.piece} B | ${p.mb_s.toFixed(0)} |`);
const best = r.native?.measured ? Math.max(...r.native.benches.filter((b) => b.id.includes('sse_and_chunks')).map((b) => b.mb_s)) : null;
add('', `Goal ≥ 500 MB/s natively: ${best == null ? 'not measured' : `${best.toFixed(0)} MB/s ${mark(best >= 500)}`}.`);

add('', '## Bundle (gzip -9)', '');
const b = r.bundle;
add('| what | raw | gzipped |', '|---|---|---|');
add(`| library wasm (\`pkg/tabloop_bg.wasm\`) | ${kb(b.library_wasm.raw)} | ${kb(b.library_wasm.gzip)} |`);
add(`| library JS glue (index.js, tabloop.js, snippets: ${b.library_glue_js.files} files) | ${kb(b.library_glue_js.raw)} | ${kb(b.library_glue_js.gzip)} |`);
add(`| **library wasm + glue** | | **${kb(b.library_wasm_plus_glue_gzip)}** |`);
add(`| all of the package's JS (tools, sandbox, store, MCP client loaded on demand: ${b.library_all_js.files} files) | ${kb(b.library_all_js.raw)} | ${kb(b.library_all_js.gzip)} |`);
if (b.site_wasm) add(`| site wasm with the playground UI (\`dist/\`) | ${kb(b.site_wasm.raw)} | ${kb(b.site_wasm.gzip)} |`);
add(`| AI SDK + OpenAI provider, minified by Vite (\`benches/compare/aisdk_app.js\`) | ${kb(b.aisdk_bundle.raw)} | ${kb(b.aisdk_bundle.gzip)} |`);
add('', `Goal ≤ 300 KB gzipped for the library an embedding page imports: ${kb(b.library_wasm_plus_glue_gzip)} ${mark(b.library_wasm_plus_glue_gzip <= 300_000)}.`);

add('', '## Time to interactive (loopback, fresh browser context each time)', '');
if (r.tti) add(`- Playground (\`dist/index.html\`): navigation start until the task form accepts input: **${ms(r.tti.playground_ms, 0)}** (median of ${r.tti.playground_samples.length}).`);
if (r.tti) add(`- Library package on an embedding page: \`import\` + \`init()\`: **${ms(r.tti.library_init_ms, 0)}** (median of ${r.tti.library_init_samples.length}).`);

add('', '## Local model (in the tab, beside native llama.cpp)', '');
if (r.local?.length) {
  add('From `scripts/bench-local.sh` (run by `scripts/bench.sh --local`, or its saved output): tabloop\'s engine');
  add('(what the app runs), wllama, and native llama.cpp, all on the threads the engine took.', '');
  add('| model | threads | prefill tok/s: engine | wllama | native | engine/native | generation tok/s under the tool grammar: engine | wllama | native | second step\'s first token: engine | wllama |', '|---|---|---|---|---|---|---|---|---|---|---|');
  const f = (x) => (x == null ? '–' : Number(x).toFixed(1));
  const pct = (a, b) => (a && b ? `${Math.round((100 * a) / b)}%` : '–');
  const first = (t) => (t?.step2_first_token_ms == null ? '–' : `${t.step2_first_token_ms} ms`);
  for (const row of r.local) {
    const w = row.wllama ?? {};
    add(`| ${row.model} | ${row.tab.threads ?? '–'} | ${f(row.tab.prefill_tok_s)} | ${f(w.prefill_tok_s)} | ${f(row.native.prefill_tok_s)} | ${pct(row.tab.prefill_tok_s, row.native.prefill_tok_s)} | ${f(row.tab.gen_grammar_tok_s)} | ${f(w.gen_grammar_tok_s)} | ${f(row.native.gen_grammar_tok_s)} | ${first(row.tab)} | ${first(row.wllama)} |`);
  }
} else {
  add('Not measured in this run: `scripts/bench.sh --local` runs `scripts/bench-local.sh` (slow: it loads the');
  add('model in the tab and builds llama.cpp natively once).');
}
// Figures of the engine on other families, measured by hand with their own commands (too slow
// for every run of this script): kept in a file of their own and carried over.
const families = new URL('../local_model/families.md', import.meta.url);
if (fs.existsSync(families)) add('', fs.readFileSync(families, 'utf8').trimEnd());
fs.writeFileSync(output, `${lines.join('\n')}\n`);
console.log(`[bench] wrote ${output}`);
