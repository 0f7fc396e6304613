// Where the engine's forward pass spends its time, by phase (quantized matrix products,
// attention over the cache, the rest), for reading a prompt and for writing tokens after it:
// the one-thread relaxed-SIMD build in Node's own V8, the model read from disk as the engine
// asks for it. With two builds (ENGINES=a.wasm,b.wasm) they take turns, round by round.
// Figures only; nothing is asserted.
//
//   node --experimental-wasm-relaxed-simd benches/local_model/phases.mjs MODEL.gguf [rounds]
//
// The prompt is the workload's (workload.mjs; REPEAT_PREFILL=n for a longer one); GEN=n tokens
// are written after it (default 16).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PREFILL_TEXT } from './workload.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [modelPath, roundsArg = '2'] = process.argv.slice(2);
if (!modelPath) {
  console.error('usage: phases.mjs MODEL.gguf [rounds]');
  process.exit(2);
}
const engines = (process.env.ENGINES ?? path.join(REPO, 'www/local/engine/engine.wasm')).split(',');
const generate = Number(process.env.GEN ?? 16);

/** An engine instance with the model loaded, reading the file in the pieces it asks for. */
async function load(wasmPath) {
  const fd = fs.openSync(modelPath, 'r');
  let e;
  const read = (offset, len, dst) => {
    const view = new Uint8Array(e.memory.buffer, dst, len);
    for (let got = 0; got < len; ) {
      const n = fs.readSync(fd, view, got, len - got, offset + got);
      if (n <= 0) return 0;
      got += n;
    }
    return 1;
  };
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasmPath), {
    env: { tl_now: () => performance.now(), tl_read: read },
  });
  e = instance.exports;
  const output = () => new TextDecoder().decode(new Uint8Array(e.memory.buffer, e.tl_output_ptr(), e.tl_output_len()));
  if (e.tl_load_reading(fs.fstatSync(fd).size, 4096, 1) !== 0) throw new Error(output());
  return { e, output };
}

/** Reads a fresh prompt and writes `generate` tokens, each part timed by phase. */
function run({ e, output }, round) {
  const text = new TextEncoder().encode(`${round} ${Math.random()} ${PREFILL_TEXT}`);
  const at = e.tl_alloc(text.length);
  new Uint8Array(e.memory.buffer, at, text.length).set(text);
  if (e.tl_begin(at, text.length, 0, 0, generate, 0) !== 0) throw new Error(output());
  const plan = JSON.parse(output());
  const timed = (work) => {
    e.tl_profile(1);
    const started = performance.now();
    const count = work();
    const ms = performance.now() - started;
    e.tl_phases();
    return { count, ms: Math.round(ms), phases: JSON.parse(output()) };
  };
  const prompt = timed(() => {
    while (e.tl_feed(64) > 0);
    return plan.total - plan.reused;
  });
  const written = timed(() => {
    let n = 0;
    while (e.tl_next(0.5) === 0) n += 1;
    return n;
  });
  const rate = (part) => +((part.count / part.ms) * 1000).toFixed(2);
  return { prompt_tokens: prompt.count, prefill_tok_s: rate(prompt), prefill_ms: prompt.phases, gen_tokens: written.count, gen_tok_s: rate(written), gen_ms: written.phases };
}

const loaded = [];
for (const wasm of engines) loaded.push(await load(wasm));
for (let round = 1; round <= Number(roundsArg); round += 1) {
  const order = round % 2 ? loaded.keys() : [...loaded.keys()].reverse();
  for (const i of order) {
    const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(JSON.stringify({ round, engine: engines[i], load, ...run(loaded[i], round) }));
  }
}
