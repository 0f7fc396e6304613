// Jump-forward decoding and drafts from the context in the tab: one tool-call request (prompt
// messages and grammar, as `examples/local_request.rs`'s `qwen` op writes them) completed on
// the engine in headless Chromium with neither, jump-forward alone, and both, in turn (the
// order rotating each round), printing each run's bytes per second of generation and tokens,
// the medians, and the gain paired within each round (a round's three runs see the same load
// on a shared machine) with the range of its middle 80 %. Figures only; nothing is asserted.
//
//   node benches/local_model/jump_forward.mjs /models/FILE.gguf REQUEST.json [rounds] [threads] [build]
//
// build: 'simd128' runs the engine's build for browsers without relaxed SIMD (default: the
// one the page would pick).
// The reply must be the same text every way; a run that differs is reported and the exit
// status is 1.
import fs from 'node:fs';
import { onBenchPage, requireModel } from './bench_page.mjs';

const MODES = [
  { name: 'neither', jump_forward: false, drafts: false },
  { name: 'jump-forward', jump_forward: true, drafts: false },
  { name: 'jump-forward + drafts', jump_forward: true, drafts: true },
];

const [modelPath, requestPath, roundsArg = '3', threadsArg = '2', build] = process.argv.slice(2);
requireModel(modelPath);
const request = JSON.parse(fs.readFileSync(requestPath, 'utf8'));
const runs = await onBenchPage((page) =>
  page.evaluate(
    async ({ modelPath, request, rounds, threads, modes, build }) => {
      const model = await window.tabloopLocal.loadLocalModel({ url: modelPath, store: 'none', threads, engine: 'tabloop', ...(build ? { engineBuild: build } : {}) });
      const out = [];
      // a first completion reads the prompt; the others reuse it from the cache
      for (let i = 0; i < rounds; i += 1) {
        for (let k = 0; k < modes.length; k += 1) {
          const mode = modes[(i + k) % modes.length];
          const r = await model.complete({ messages: request.messages, grammar: request.grammar, max_tokens: request.max_tokens, temperature: 0, jump_forward: mode.jump_forward, drafts: mode.drafts });
          out.push({ mode: mode.name, text: r.text, bytes: new TextEncoder().encode(r.text).length, generation_ms: r.timings.generation_ms, tokens: r.usage.output_tokens });
        }
      }
      await model.unload();
      return out;
    },
    { modelPath, request, rounds: Number(roundsArg), threads: Number(threadsArg), modes: MODES, build },
  ),
);
const rate = (r) => r.bytes / (r.generation_ms / 1000);
for (const r of runs) {
  console.log(`${r.mode}: ${r.bytes} bytes, ${r.tokens} tokens in ${r.generation_ms} ms: ${rate(r).toFixed(1)} bytes/s`);
}
const texts = new Set(runs.map((r) => r.text));
console.log(texts.size === 1 ? `the same reply every run: ${JSON.stringify(runs[0].text)}` : `replies differ: ${JSON.stringify([...texts])}`);
// neither may change what greedy decoding writes
if (texts.size !== 1) process.exitCode = 1;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const medians = MODES.map((m) => median(runs.filter((r) => r.mode === m.name).map(rate)));
MODES.forEach((m, i) => console.log(`median bytes/s, ${m.name}: ${medians[i].toFixed(1)} (${(medians[i] / medians[0]).toFixed(2)}x)`));
// runs come in rounds of one run per mode
const rounds = runs.length / MODES.length;
const rateIn = (round, mode) => rate(runs.slice(round * MODES.length, (round + 1) * MODES.length).find((r) => r.mode === mode));
const middle = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length / 10);
  return [sorted[cut], sorted[sorted.length - 1 - cut]];
};
for (const m of MODES.slice(1)) {
  const gains = Array.from({ length: rounds }, (_, i) => rateIn(i, m.name) / rateIn(i, MODES[0].name));
  const [low, high] = middle(gains);
  console.log(`gain paired by round, ${m.name}: median ${median(gains).toFixed(2)}x (middle 80 %: ${low.toFixed(2)}–${high.toFixed(2)}, ${rounds} rounds)`);
}
