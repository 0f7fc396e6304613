// Two activation encodings (or two builds) of the engine timed against each other by CPU
// time, which a shared machine's load disturbs far less than wall time: the one-thread
// relaxed-SIMD build (www/local/engine/engine.wasm) in Node's own V8, both loaded at once,
// prefill of the workload's prompt and 64 greedy tokens on one and the other in turn. Node 20
// has relaxed SIMD behind a flag (its lowering of the dot product on x86 without AVX-VNNI is
// pmaddubsw, as Chromium's is); figures only: its baseline compiler has been seen to compute
// the relaxed dot product wrongly, so correctness is checked in Chromium, not here.
//
//   node --experimental-wasm-relaxed-simd benches/local_model/activations_cpu.mjs [rounds]
//
// ENGINES=a.wasm,b.wasm times two builds of the engine instead (each with the first of
// ENCODINGS, 7-bit by default), e.g. a kernel change against the build before it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PREFILL_TEXT as PREFILL } from './workload.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const enginePaths = (process.env.ENGINES ?? path.join(REPO, 'www/local/engine/engine.wasm')).split(',');
const model = fs.readFileSync(path.join(REPO, 'www/models/smollm2-135m-instruct-q8_0.gguf'));
async function make(activations, wasmPath) {
  const wasm = fs.readFileSync(wasmPath);
  const { instance } = await WebAssembly.instantiate(wasm, { env: { tl_now: () => performance.now(), tl_read: () => 0 } });
  const e = instance.exports;
  const output = () => new TextDecoder().decode(new Uint8Array(e.memory.buffer, e.tl_output_ptr(), e.tl_output_len()));
  const put = (bytes) => { const p = e.tl_alloc(bytes.length); new Uint8Array(e.memory.buffer, p, bytes.length).set(bytes); return p; };
  const name = new TextEncoder().encode(activations);
  if (e.tl_choose_activations(put(name), name.length) !== 0) throw new Error(output());
  if (e.tl_load(put(model), model.length, 2048, 1) !== 0) throw new Error(output());
  e.tl_info();
  return { e, output, put, info: JSON.parse(output()) };
}
function cpu(f) { const a = process.cpuUsage(); const t = performance.now(); f(); const b = process.cpuUsage(a); return { cpu_ms: (b.user + b.system) / 1000, wall_ms: performance.now() - t }; }
function run(m, round) {
  const text = new TextEncoder().encode(`${round} ${Math.random()} ${PREFILL}`);
  const p = m.put(text);
  if (m.e.tl_begin(p, text.length, 0, 0, 64, 0) !== 0) throw new Error(m.output());
  const plan = JSON.parse(m.output());
  const pre = cpu(() => { while (m.e.tl_feed(512) > 0); });
  let n = 0;
  const gen = cpu(() => { for (;;) { const s = m.e.tl_next(0.5); if (s !== 0) break; n = m.e.tl_generated(); } });
  return { prompt: plan.total - plan.reused, pre, gen_tokens: n, gen };
}
const encodings = (process.env.ENCODINGS ?? '7-bit,8-bit sign-magnitude').split(',');
const byEngine = enginePaths.length > 1;
const names = byEngine ? enginePaths : encodings;
const models = [];
for (const n of names) models.push(byEngine ? await make(encodings[0], n) : await make(n, enginePaths[0]));
console.log(JSON.stringify(models.map((m) => m.info.activations)));
const rounds = Number(process.argv[2] || 6);
const acc = names.map(() => ({ pre_cpu: [], gen_cpu: [] }));
for (let r = 1; r <= rounds; r++) {
  const order = (r % 2 ? [0, 1] : [1, 0]).filter((i) => i < names.length);
  for (const i of order) {
    const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const x = run(models[i], r);
    const pre = x.prompt / (x.pre.cpu_ms / 1000), preWall = x.prompt / (x.pre.wall_ms / 1000);
    const gen = x.gen_tokens / (x.gen.cpu_ms / 1000), genWall = x.gen_tokens / (x.gen.wall_ms / 1000);
    acc[i].pre_cpu.push(pre); acc[i].gen_cpu.push(gen);
    console.log(JSON.stringify({ round: r, [byEngine ? "engine" : "activations"]: names[i], load, prompt: x.prompt, prefill_tok_per_cpu_s: +pre.toFixed(1), prefill_tok_per_wall_s: +preWall.toFixed(1), gen_tokens: x.gen_tokens, gen_tok_per_cpu_s: +gen.toFixed(1), gen_tok_per_wall_s: +genWall.toFixed(1) }));
  }
}
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
names.forEach((n, i) => console.log(JSON.stringify({ [byEngine ? "engine" : "activations"]: n, prefill_cpu_mean: +mean(acc[i].pre_cpu).toFixed(1), prefill_cpu_median: +med(acc[i].pre_cpu).toFixed(1), gen_cpu_mean: +mean(acc[i].gen_cpu).toFixed(1), gen_cpu_median: +med(acc[i].gen_cpu).toFixed(1) })));
