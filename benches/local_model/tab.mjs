// In-tab half of the local-model benchmark: loads a GGUF with www/local/local_model.js (the
// module the app uses) in headless Chromium on a cross-origin isolated page and prints one JSON
// line of figures: prompt reading (prefill) and generation tokens/s, free and under a tool-call
// grammar, and a second step's prompt reuse. Figures only; nothing is asserted.
//
//   node benches/local_model/tab.mjs /models/smollm2-135m-instruct-q8_0.gguf [threads] [engine]
//
// engine: 'tabloop', 'tabloop-simd128' (the engine's build for browsers without relaxed SIMD)
// or 'wllama' (default: what the app would choose). BEST=n: prefill and free generation are
// each the best of n completions (a shared machine's load falls on some of them); SPEED_ONLY=1:
// those two alone, without the tool-call steps. ACTIVATIONS=name: the engine computes with that
// activation encoding ('7-bit', '8-bit sign-magnitude', …) instead of the one probed for this
// CPU, to time one against another. STORE=cache: the file goes through the Cache API as the
// app's default does, instead of being held in the page's memory ('none', the default here).
// REPEAT_PREFILL=n: a longer prompt to read (workload.mjs).
import { onBenchPage, requireModel } from './bench_page.mjs';
import { PREFILL_TEXT, GEN_PROMPT, TOOL_GRAMMAR, TOOL_RESULT, TOOL_SYSTEM, TOOL_TASK } from './workload.mjs';

const [modelPath = '/models/smollm2-135m-instruct-q8_0.gguf', threadsArg, engineArg] = process.argv.slice(2);
requireModel(modelPath);
const figures = await onBenchPage((page) =>
  page.evaluate(
    async ({ store, modelPath, threads, engine, activations, best_of, speed_only, PREFILL_TEXT, GEN_PROMPT, TOOL_GRAMMAR, TOOL_RESULT, TOOL_SYSTEM, TOOL_TASK }) => {
      const L = window.tabloopLocal;
      const simd128 = engine === 'tabloop-simd128';
      const model = await L.loadLocalModel({
        url: modelPath,
        store,
        ...(threads ? { threads } : {}),
        ...(engine ? { engine: simd128 ? 'tabloop' : engine } : {}),
        ...(simd128 ? { engineBuild: 'simd128' } : {}),
        ...(activations ? { engineActivations: activations } : {}),
      });
      const run = (request) => model.complete({ temperature: 0, ...request });
      const bestOf = async (request, rate) => {
        let best = null;
        for (let i = 0; i < best_of; i += 1) {
          const r = await run(request());
          if (!best || rate(r.timings) > rate(best.timings)) best = r;
        }
        return best;
      };
      // A fresh number in front makes the prompt unlike any cached one.
      const prefill = await bestOf(() => ({ messages: [{ role: 'user', content: `${Math.random()} ${PREFILL_TEXT}` }], max_tokens: 1 }), (t) => t.prompt_tokens_per_s);
      // one token a pass, as llama.cpp decodes (no drafts from the context): the kernels' speed
      const free = await bestOf(() => ({ messages: [{ role: 'user', content: GEN_PROMPT }], max_tokens: 64, drafts: false }), (t) => t.tokens_per_s);
      const t = (r) => r.timings;
      // What every run reports: the model, where it runs, and its speed.
      const speed = {
        model: modelPath,
        runtime: model.info.runtime,
        kernels: model.info.kernels ?? null,
        activations: model.info.activations ?? null,
        threads: model.info.threads,
        threads_reason: model.info.threads_reason,
        load_ms: model.info.load_ms,
        memory_bytes: model.info.memory_bytes ?? null,
        file_bytes: model.info.bytes ?? null,
        best_of,
        prefill_tokens: t(prefill).prompt_tokens,
        prefill_tok_s: t(prefill).prompt_tokens_per_s,
        gen_free_tokens: free.usage.output_tokens,
        gen_free_tok_s: t(free).tokens_per_s,
      };
      if (speed_only) {
        await model.unload();
        return speed;
      }
      const messages = [{ role: 'system', content: TOOL_SYSTEM }, { role: 'user', content: TOOL_TASK }];
      let call;
      try {
        call = await run({ messages, grammar: TOOL_GRAMMAR, max_tokens: 96 });
      } catch (err) {
        // The speed figures stand; the call's are missing, and why is printed with them.
        await model.unload();
        return { ...speed, grammar_error: String(err?.message ?? err) };
      }
      // the same call with every token sampled (the engine's jump-forward and drafts off)
      const stepped = model.info.runtime === 'tabloop' ? await run({ messages, grammar: TOOL_GRAMMAR, max_tokens: 96, jump_forward: false, drafts: false }) : null;
      // The next step: same prefix, plus the call (the app renders it back as the very text the
      // grammar had the model write) and its result.
      const next = await run({
        messages: [...messages, { role: 'assistant', content: call.text }, { role: 'user', content: TOOL_RESULT }],
        grammar: TOOL_GRAMMAR,
        max_tokens: 96,
      });
      const out = {
        ...speed,
        gen_grammar_tok_s: t(call).tokens_per_s,
        // effective: the call's characters per second of generation, with and without jump-forward
        gen_grammar_chars_s: call.text.length / (t(call).generation_ms / 1000),
        gen_grammar_stepped_tok_s: stepped ? t(stepped).tokens_per_s : null,
        gen_grammar_stepped_chars_s: stepped ? stepped.text.length / (t(stepped).generation_ms / 1000) : null,
        stepped_output: stepped?.text ?? null,
        grammar_output: call.text,
        step1_first_token_ms: t(call).first_token_ms,
        step2_prompt_tokens: t(next).prompt_tokens,
        step2_cached_tokens: t(next).cached_tokens,
        step2_first_token_ms: t(next).first_token_ms,
      };
      await model.unload();
      return out;
    },
    { store: process.env.STORE || 'none', modelPath, threads: Number(threadsArg) || 0, engine: engineArg || null, activations: process.env.ACTIVATIONS || null, best_of: Math.max(1, Number(process.env.BEST) || 1), speed_only: process.env.SPEED_ONLY === '1', PREFILL_TEXT, GEN_PROMPT, TOOL_GRAMMAR, TOOL_RESULT, TOOL_SYSTEM, TOOL_TASK },
  ),
);
console.log(JSON.stringify(figures));
