// Jump-forward decoding in the tab: one tool-call request (prompt messages and grammar, as
// `examples/local_request.rs`'s `qwen` op writes them) completed on the engine in headless
// Chromium with jump-forward on and off, alternately, printing each run's bytes per second of
// generation and forward passes. Figures only; nothing is asserted.
//
//   node benches/local_model/jump_forward.mjs /models/FILE.gguf REQUEST.json [pairs] [threads]
//
// The reply must be the same text either way; a run that differs is reported and the exit
// status is 1.
import fs from 'node:fs';
import { onBenchPage, requireModel } from './bench_page.mjs';

const [modelPath, requestPath, pairsArg = '3', threadsArg = '2'] = process.argv.slice(2);
requireModel(modelPath);
const request = JSON.parse(fs.readFileSync(requestPath, 'utf8'));
const runs = await onBenchPage((page) =>
  page.evaluate(
    async ({ modelPath, request, pairs, threads }) => {
      const model = await window.tabloopLocal.loadLocalModel({ url: modelPath, store: 'none', threads, engine: 'tabloop' });
      const out = [];
      // a first completion reads the prompt; the others reuse it from the cache
      for (let i = 0; i < pairs; i += 1) {
        for (const jump of i % 2 ? [false, true] : [true, false]) {
          const r = await model.complete({ messages: request.messages, grammar: request.grammar, max_tokens: request.max_tokens, temperature: 0, jump_forward: jump });
          out.push({ jump, text: r.text, bytes: new TextEncoder().encode(r.text).length, generation_ms: r.timings.generation_ms, tokens: r.usage.output_tokens });
        }
      }
      await model.unload();
      return out;
    },
    { modelPath, request, pairs: Number(pairsArg), threads: Number(threadsArg) },
  ),
);
for (const r of runs) {
  console.log(`jump_forward=${r.jump ? 1 : 0}: ${r.bytes} bytes, ${r.tokens} tokens in ${r.generation_ms} ms: ${(r.bytes / (r.generation_ms / 1000)).toFixed(1)} bytes/s`);
}
const texts = new Set(runs.map((r) => r.text));
console.log(texts.size === 1 ? `the same reply every run: ${JSON.stringify(runs[0].text)}` : `replies differ: ${JSON.stringify([...texts])}`);
// jump-forward must not change what greedy decoding writes
if (texts.size !== 1) process.exitCode = 1;
const rate = (jump) => runs.filter((r) => r.jump === jump).map((r) => r.bytes / (r.generation_ms / 1000));
const best = (xs) => Math.max(...xs);
console.log(`best bytes/s: ${best(rate(true)).toFixed(1)} with jump-forward, ${best(rate(false)).toFixed(1)} without (${(best(rate(true)) / best(rate(false))).toFixed(2)}x)`);
