// Two activation encodings of the engine timed against each other in one tab: both loaded at
// once (a worker each, with the same threads), then prefill and free generation run on one and
// the other in turn, so a shared machine's changing load falls on both alike. Prints each
// figure with the load average when it was taken, then one JSON line. Figures only.
//
//   node benches/local_model/activations.mjs [/models/FILE.gguf] [threads] [rounds]
//
// ENCODINGS='7-bit,8-bit sign-magnitude' (the default): the encodings' names as the engine
// reports them; one its kernels are not exact with on this CPU fails to load.
import fs from 'node:fs';
import { onBenchPage, requireModel } from './bench_page.mjs';
import { PREFILL_TEXT, GEN_PROMPT } from './workload.mjs';

const [modelPath = '/models/smollm2-135m-instruct-q8_0.gguf', threadsArg = '2', roundsArg = '6'] = process.argv.slice(2);
requireModel(modelPath);
const encodings = (process.env.ENCODINGS ?? '7-bit,8-bit sign-magnitude').split(',');
const rounds = Math.max(1, Number(roundsArg) || 6);
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const rows = await onBenchPage(async (page) => {
  const infos = await page.evaluate(
    async ({ modelPath, threads, encodings }) => {
      const L = window.tabloopLocal;
      window.models = [];
      for (const activations of encodings) {
        window.models.push(await L.loadLocalModel({ url: modelPath, store: 'none', threads, engine: 'tabloop', engineActivations: activations }));
      }
      return window.models.map((m) => ({ activations: m.info.activations, kernels: m.info.kernels, threads: m.info.threads }));
    },
    { modelPath, threads: Number(threadsArg), encodings },
  );
  console.error(JSON.stringify({ loaded: infos }));
  const out = [];
  for (let round = 1; round <= rounds; round += 1) {
    // the order turns each round, so neither always runs first
    const order = round % 2 ? [0, 1] : [1, 0];
    for (const which of order.filter((i) => i < encodings.length)) {
      const before = load();
      const figures = await page.evaluate(
        async ({ which, PREFILL_TEXT, GEN_PROMPT }) => {
          const model = window.models[which];
          const run = (request) => model.complete({ temperature: 0, ...request });
          // a fresh number in front makes the prompt unlike any cached one
          const prefill = await run({ messages: [{ role: 'user', content: `${Math.random()} ${PREFILL_TEXT}` }], max_tokens: 1 });
          const free = await run({ messages: [{ role: 'user', content: GEN_PROMPT }], max_tokens: 64 });
          return { prefill_tokens: prefill.timings.prompt_tokens, prefill_tok_s: prefill.timings.prompt_tokens_per_s, gen_tokens: free.usage.output_tokens, gen_tok_s: free.timings.tokens_per_s, text: free.text };
        },
        { which, PREFILL_TEXT, GEN_PROMPT },
      );
      const row = { round, activations: infos[which].activations, load_before: before, load_after: load(), ...figures };
      console.error(JSON.stringify({ ...row, text: undefined }));
      out.push(row);
    }
  }
  await page.evaluate(() => Promise.all(window.models.map((m) => m.unload())));
  return out;
});

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const summary = encodings.map((name) => {
  const mine = rows.filter((r) => r.activations === name);
  return { activations: name, prefill_tok_s_mean: mean(mine.map((r) => r.prefill_tok_s)), gen_tok_s_mean: mean(mine.map((r) => r.gen_tok_s)), texts_alike: new Set(mine.map((r) => r.text)).size === 1 };
});
console.log(JSON.stringify({ activations_bench: { model: modelPath, threads: Number(threadsArg), rows: rows.map((r) => ({ ...r, text: undefined })), summary } }));
