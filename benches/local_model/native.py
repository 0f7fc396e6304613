"""Native half of the local-model benchmark: the same GGUF and workload through llama.cpp
(llama-cpp-python) on one thread, printing one JSON line. Figures only; nothing is asserted.

    python benches/local_model/native.py MODEL.gguf WORKLOAD.json [threads]
"""
import json
import sys
import time

import llama_cpp


def main():
    model_path, workload_path = sys.argv[1], sys.argv[2]
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    work = json.load(open(workload_path))
    llm = llama_cpp.Llama(model_path=model_path, n_ctx=4096, n_batch=512, n_threads=threads,
                          n_threads_batch=threads, verbose=False)

    def chat(messages):
        # SmolLM2's ChatML template, as the tab renders it
        text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
        return llm.tokenize((text + "<|im_start|>assistant\n").encode(), add_bos=False, special=True)

    prefill = chat([{"role": "user", "content": "0.5 " + work["PREFILL_TEXT"]}])
    llm.reset()
    started = time.perf_counter()
    llm.eval(prefill)
    prefill_s = time.perf_counter() - started

    def generate(tokens, n, grammar=None):
        llm.reset()
        llm.eval(tokens)
        started = time.perf_counter()
        out = []
        for _ in range(n):
            token = llm.sample(top_k=1, temp=0.0, grammar=grammar)
            if llm.token_eos() == token or token in (1, 2):
                break
            out.append(token)
            llm.eval([token])
        return len(out) / (time.perf_counter() - started), llm.detokenize(out).decode("utf8", "replace")

    free_tok_s, _ = generate(chat([{"role": "user", "content": work["GEN_PROMPT"]}]), 64)
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
