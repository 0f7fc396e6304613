// Prompt reading by batch size: the engine reads a prompt `n_batch` tokens a forward pass, so a
// small batch times the passes a jump-forward or a draft makes (2 to 9 rows) on the same code.
// Each batch size gets its own load of the model and ROUNDS prompts (a new one each time, so
// nothing comes from the cache); prints each size's median prompt tokens/s and the runs.
// Figures only; nothing is asserted.
//   node benches/local_model/batch_prefill.mjs /models/FILE.gguf [batches, default 5,6,7,8,64] [rounds, default 5] [threads, default 2] [simd128]
// A fifth argument `simd128` runs the build for browsers without relaxed SIMD.
import { median } from '../compare/ab_support.mjs';
import { onBenchPage, requireModel } from './bench_page.mjs';

const [modelPath, batchesArg = '5,6,7,8,64', roundsArg = '5', threadsArg = '2', build] = process.argv.slice(2);
requireModel(modelPath);
const batches = batchesArg.split(',').map(Number);
// About 130 tokens: many passes at every batch size, few enough to run quickly.
const text = 'The quick brown fox jumps over the lazy dog while the farmer counts his sheep in the field. '.repeat(6);
const rates = await onBenchPage((page) =>
  page.evaluate(
    async ({ modelPath, batches, rounds, threads, text, build }) => {
      const out = {};
      for (const batch of batches) {
        const model = await window.tabloopLocal.loadLocalModel({ url: modelPath, store: 'none', threads, engine: 'tabloop', n_batch: batch, ...(build ? { engineBuild: build } : {}) });
        out[batch] = [];
        for (let i = 0; i < rounds; i += 1) {
          const prompt = `${batch}.${i}.${Math.random()}: ${text}`;
          const r = await model.complete({ messages: [{ role: 'user', content: prompt }], max_tokens: 1, temperature: 0 });
          out[batch].push(r.timings.prompt_tokens_per_s);
        }
        await model.unload();
      }
      return out;
    },
    { modelPath, batches, rounds: Number(roundsArg), threads: Number(threadsArg), text, build },
  ),
);
for (const batch of batches) {
  const runs = rates[batch];
  console.log(`batch ${batch}: prompt ${median(runs).toFixed(1)} tokens/s (median of ${runs.length}: ${runs.map((r) => r.toFixed(0)).join(', ')})`);
}
