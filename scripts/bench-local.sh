#!/usr/bin/env bash
# Local-model benchmark: in-tab (wllama in headless Chromium) beside native llama.cpp
# (llama-cpp-python, on as many threads as the tab chose) on the same GGUF files and workload.
# Prints figures; asserts
# nothing. Not part of CI: the native build takes ~10 minutes once (cached under
# ~/.cache/tabloop/llamacpp-venv).
#
#   scripts/bench-local.sh            the bundled model as Q4_1 (as shipped) and as Q8_0 (the default)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

VENV="$HOME/.cache/tabloop/llamacpp-venv"
LLAMA_CPP_PYTHON_VERSION="0.3.36"
if ! "$VENV/bin/python" -c "import llama_cpp, sys; sys.exit(llama_cpp.__version__ != '$LLAMA_CPP_PYTHON_VERSION')" 2>/dev/null; then
  echo "[bench] building llama-cpp-python $LLAMA_CPP_PYTHON_VERSION from PyPI (about 10 minutes, once)"
  python3 -m venv "$VENV"
  CMAKE_ARGS="-DGGML_NATIVE=OFF" nice -n 19 "$VENV/bin/pip" install -q "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION"
fi
bash scripts/fetch-model-assets.sh >/dev/null

workload="$(mktemp)"
trap 'rm -f "$workload"' EXIT
node benches/local_model/workload.mjs --json > "$workload"

results=()
for model in smollm2-135m-instruct-q4_1.gguf smollm2-135m-instruct-q8_0.gguf; do
  tab="$(flock /tmp/tabloop-browser.lock timeout -s KILL 600 node benches/local_model/tab.mjs "/models/$model")"
  # Native on the threads the tab's core probe chose, so the two compare like for like.
  threads="$(node -e 'process.stdout.write(String(JSON.parse(process.argv[1]).threads || 1))' "$tab")"
  native="$("$VENV/bin/python" benches/local_model/native.py "www/models/$model" "$workload" "$threads")"
  results+=("$model|$tab|$native")
done

node - "${results[@]}" <<'JS'
const rows = process.argv.slice(2).map((r) => { const [model, tab, native] = r.split('|'); return { model, tab: JSON.parse(tab), native: JSON.parse(native) }; });
const pct = (a, b) => (a && b ? `${Math.round((100 * a) / b)}%` : '-');
const f = (x) => (x == null ? '-' : Number(x).toFixed(1));
console.log('model                              | what                     |    tab | native (same threads) | tab/native');
for (const { model, tab, native } of rows) {
  for (const [what, key] of [['prefill tok/s', 'prefill_tok_s'], ['generation tok/s (free)', 'gen_free_tok_s'], ['generation tok/s (grammar)', 'gen_grammar_tok_s']]) {
    console.log(`${model.padEnd(34)} | ${what.padEnd(24)} | ${f(tab[key]).padStart(6)} | ${f(native[key]).padStart(21)} | ${pct(tab[key], native[key])}`);
  }
  console.log(`${model.padEnd(34)} | tab: threads ${tab.threads}, load ${tab.load_ms} ms, step 1 first token ${tab.step1_first_token_ms} ms, step 2 first token ${tab.step2_first_token_ms} ms (${tab.step2_cached_tokens} of ${tab.step2_cached_tokens + tab.step2_prompt_tokens} prompt tokens reused)`);
}
console.log(JSON.stringify({ local_model_bench: rows }));
JS
