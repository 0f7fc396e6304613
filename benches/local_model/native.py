"""Native half of the local-model benchmark: the same GGUF and workload through llama.cpp
(llama-cpp-python) on as many threads as asked, printing one JSON line. Figures only; nothing is asserted.

    python benches/local_model/native.py MODEL.gguf WORKLOAD.json [threads]

BEST=n: prefill and free generation are each the best of n runs (as benches/local_model/tab.mjs
takes them); SPEED_ONLY=1: those two alone, without the tool call under the grammar.
"""
import os
import json
import sys
import time

import jinja2.sandbox
import llama_cpp


def main():
    model_path, workload_path = sys.argv[1], sys.argv[2]
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    work = json.load(open(workload_path))
    llm = llama_cpp.Llama(model_path=model_path, n_ctx=4096, n_batch=512, n_threads=threads,
                          n_threads_batch=threads, verbose=False)

    # The file's own chat template, as the tab renders it (SmolLM2's default system message,
    # Qwen3 with thinking off, Gemma's turns); plain ChatML for a file without one.
    template = llm.metadata.get("tokenizer.chat_template")
    bos = llm.detokenize([llm.token_bos()], special=True).decode("utf8", "replace")
    add_bos = llm.metadata.get("tokenizer.ggml.add_bos_token") == "true"
    render = (jinja2.sandbox.ImmutableSandboxedEnvironment().from_string(template).render
              if template else None)

    def chat(messages):
        if render:
            text = render(messages=messages, add_generation_prompt=True, bos_token=bos,
                          eos_token="", enable_thinking=False)
            # the template writes the beginning-of-sequence token itself (Gemma's does)
            first = not text.startswith(bos) and add_bos
        else:
            text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
            text, first = text + "<|im_start|>assistant\n", False
        return llm.tokenize(text.encode(), add_bos=first, special=True)

    vocab = llama_cpp.llama_model_get_vocab(llm.model)

    best_of = max(1, int(os.environ.get("BEST") or 1))
    prefill = chat([{"role": "user", "content": "0.5 " + work["PREFILL_TEXT"]}])
    prefill_s = None
    for _ in range(best_of):
        llm.reset()
        started = time.perf_counter()
        llm.eval(prefill)
        took = time.perf_counter() - started
        prefill_s = took if prefill_s is None else min(prefill_s, took)

    def generate(tokens, n, grammar=None):
        llm.reset()
        llm.eval(tokens)
        started = time.perf_counter()
        out = []
        for _ in range(n):
            token = llm.sample(top_k=1, temp=0.0, grammar=grammar)
            if llama_cpp.llama_vocab_is_eog(vocab, token):
                break
            out.append(token)
            llm.eval([token])
        return len(out) / (time.perf_counter() - started), llm.detokenize(out).decode("utf8", "replace")

    free_prompt = chat([{"role": "user", "content": work["GEN_PROMPT"]}])
    free_tok_s = max(generate(free_prompt, 64)[0] for _ in range(best_of))
    if os.environ.get("SPEED_ONLY") == "1":
        print(json.dumps({
            "model": model_path, "threads": threads, "best_of": best_of,
            "prefill_tokens": len(prefill), "prefill_tok_s": round(len(prefill) / prefill_s, 1),
            "gen_free_tok_s": round(free_tok_s, 1),
        }))
        return
    grammar = llama_cpp.LlamaGrammar.from_string(work["TOOL_GRAMMAR"], verbose=False)
    tool_prompt = chat([{"role": "system", "content": work["TOOL_SYSTEM"]},
                        {"role": "user", "content": work["TOOL_TASK"]}])
    llm.reset()
    started = time.perf_counter()
    out = llm.create_completion(tool_prompt, max_tokens=96, temperature=0.0, grammar=grammar)
    total_s = time.perf_counter() - started
    # minus the prompt's share, at the prefill rate measured above
    gen_s = total_s - len(tool_prompt) * prefill_s / len(prefill)
    grammar_tok_s = out["usage"]["completion_tokens"] / gen_s
    grammar_text = out["choices"][0]["text"]
    print(json.dumps({
        "model": model_path, "threads": threads,
        "prefill_tokens": len(prefill), "prefill_tok_s": round(len(prefill) / prefill_s, 1),
        "gen_free_tok_s": round(free_tok_s, 1), "gen_grammar_tok_s": round(grammar_tok_s, 1),
        "grammar_output": grammar_text,
    }))


if __name__ == "__main__":
    main()
