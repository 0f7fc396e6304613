#!/usr/bin/env bash
# Local-model benchmark: in-tab (tabloop's engine, and wllama, in headless Chromium) beside
# native llama.cpp (llama-cpp-python, on as many threads as the tab's engine took) on the same
# GGUF files and workload. Prints figures; asserts nothing. Not part of CI: the native build
# takes ~10 minutes once (cached under ~/.cache/tabloop/llamacpp-venv).
#
#   scripts/bench-local.sh            the bundled model as Q4_1 (as shipped) and as Q8_0 (the default)
#   scripts/bench-local.sh --synthetic-qwen3
#                                     a 0.6B-shaped synthetic Qwen3 file (Q8_0, 637 MB, random
#                                     weights: scripts/synthetic-models.sh writes it, not kept in
#                                     git), measured the same way
#   scripts/bench-local.sh --side-by-side
#                                     one file per family and quantization, Q8_0 and Q4_K_M as
#                                     llama.cpp's quantizer writes them (benches/local_model/
#                                     quantize.py): the bundled SmolLM2-135M (its Q4_K_M requantized
#                                     from the published Q4_1) and the "small" synthetic qwen2,
#                                     qwen3 and gemma3 files (each family's real layer shapes, six
#                                     layers, a 1,300-token vocabulary); prints a Markdown table per
#                                     family and quantization. Prefill and free generation only,
#                                     each the best of BEST (default 3) completions per load
#   scripts/bench-local.sh FILE.gguf  any GGUF under www/models/
#   REPEAT=n                          each model n times, engine / wllama / native interleaved
#   SIMD128=1                         also the engine's build for browsers without relaxed SIMD
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

# IN OUT KIND: OUT under www/models/ (not in git), written again when IN is newer
quantize() {
  if [ ! -s "www/models/$2" ] || [ "$1" -nt "www/models/$2" ]; then
    nice "$VENV/bin/python" benches/local_model/quantize.py "$1" "www/models/$2" "$3" 2>/dev/null
  fi
}
models=()
for arg in "$@"; do
  case "$arg" in
    --side-by-side)
      export SPEED_ONLY=1 BEST="${BEST:-3}"
      bash scripts/synthetic-models.sh --shape small --quant f16 >/dev/null
      quantize www/models/smollm2-135m-instruct-q4_1.gguf smollm2-135m-instruct-q4_k_m.gguf q4_k_m
      models+=(smollm2-135m-instruct-q8_0.gguf smollm2-135m-instruct-q4_k_m.gguf)
      for family in qwen2 qwen3 gemma3; do
        for quant in q8_0 q4_k_m; do
          quantize "target/synthetic/$family-small-f16.gguf" "synthetic-$family-small-$quant.gguf" "$quant"
          models+=("synthetic-$family-small-$quant.gguf")
        done
      done ;;
    --synthetic-qwen3)
      bash scripts/synthetic-models.sh --shape full --family qwen3 --quant q8_0 >/dev/null
      # served with the site's models (www/models is not in git); a hard link, not a copy
      ln -f target/synthetic/qwen3-full-q8_0.gguf www/models/synthetic-qwen3-0.6b-q8_0.gguf 2>/dev/null ||
        cp target/synthetic/qwen3-full-q8_0.gguf www/models/synthetic-qwen3-0.6b-q8_0.gguf
      models+=(synthetic-qwen3-0.6b-q8_0.gguf) ;;
    *) models+=("$(basename "$arg")") ;;
  esac
done
[ "${#models[@]}" -gt 0 ] || models=(smollm2-135m-instruct-q4_1.gguf smollm2-135m-instruct-q8_0.gguf)

results=()
# Files go through the Cache API, as the app stores them: held in memory instead, the 0.6B
# model's 637 MB file could not be read in a headless page here (NotReadableError).
export STORE=cache
for round in $(seq "${REPEAT:-1}"); do
for model in "${models[@]}"; do
  echo "[bench] round $round: $model ($(uptime | sed 's/.*load average/load average/'))" >&2
  tab="$(flock /tmp/tabloop-browser.lock timeout -s KILL 600 node benches/local_model/tab.mjs "/models/$model" 0 tabloop)"
  # wllama and native llama.cpp on the threads the engine took, so all compare like for like.
  threads="$(node -e 'process.stdout.write(String(JSON.parse(process.argv[1]).threads || 1))' "$tab")"
  # wllama runs a 0.6B model at about a tenth of native speed: past 15 minutes it is stopped
  wllama="$(flock /tmp/tabloop-browser.lock timeout -s KILL "${WLLAMA_TIMEOUT:-900}" node benches/local_model/tab.mjs "/models/$model" "$threads" wllama)" || wllama=null
  native="$("$VENV/bin/python" benches/local_model/native.py "www/models/$model" "$workload" "$threads")"
  simd128=null
  if [ -n "${SIMD128:-}" ]; then
    simd128="$(flock /tmp/tabloop-browser.lock timeout -s KILL 600 node benches/local_model/tab.mjs "/models/$model" "$threads" tabloop-simd128)" || simd128=null
  fi
  # each run's figures as they come (a long run stopped early keeps what it measured)
  printf '[bench] %s engine %s\n[bench] %s wllama %s\n[bench] %s native %s\n[bench] %s simd128 %s\n' \
    "$model" "$tab" "$model" "$wllama" "$model" "$native" "$model" "$simd128" >&2
  results+=("$model|$tab|$wllama|$native|$simd128")
done
done

node - "${results[@]}" <<'JS'
const rows = process.argv.slice(2).map((r) => {
  const [model, tab, wllama, native, simd128] = r.split('|');
  return { model, tab: JSON.parse(tab), wllama: JSON.parse(wllama || 'null') ?? {}, native: JSON.parse(native), simd128: JSON.parse(simd128 || 'null') };
});
const pct = (a, b) => (a && b ? `${Math.round((100 * a) / b)}%` : '-');
const f = (x) => (x == null ? '-' : Number(x).toFixed(1));
console.log('model                              | what                       | engine | wllama | native (same threads) | engine/native | wllama/native | engine SIMD128');
for (const { model, tab, wllama, native, simd128 } of rows) {
  const rowsOf = [
    ['prefill tok/s', 'prefill_tok_s', 'prefill_tok_s'],
    ['generation tok/s (free)', 'gen_free_tok_s', 'gen_free_tok_s'],
    ['generation tok/s (grammar)', 'gen_grammar_tok_s', 'gen_grammar_tok_s'],
    // the engine sampling every token: llama.cpp samples every token too
    ['grammar, no jump-forward', 'gen_grammar_stepped_tok_s', 'gen_grammar_tok_s'],
  ];
  for (const [what, key, nativeKey] of rowsOf) {
    console.log(`${model.padEnd(34)} | ${what.padEnd(26)} | ${f(tab[key]).padStart(6)} | ${f(key === nativeKey ? wllama[key] : null).padStart(6)} | ${f(native[nativeKey]).padStart(21)} | ${pct(tab[key], native[nativeKey]).padStart(13)} | ${key === nativeKey ? pct(wllama[key], native[key]) : '-'} | ${f(simd128?.[key])}`);
  }
  for (const [name, t] of [['engine', tab], ['wllama', wllama], ['engine SIMD128', simd128]].filter(([, t]) => t)) {
    if (t.grammar_error) console.log(`${model.padEnd(34)} | ${name}: the tool-call steps failed: ${t.grammar_error}`);
    if (t.step1_first_token_ms == null) continue;
    const memory = t.memory_bytes ? `, memory after load ${(t.memory_bytes / 1e6).toFixed(1)} MB = ${(t.memory_bytes / t.file_bytes).toFixed(2)} x the file` : '';
    console.log(`${model.padEnd(34)} | ${name}: threads ${t.threads}, load ${t.load_ms} ms${memory}, step 1 first token ${t.step1_first_token_ms} ms, step 2 first token ${t.step2_first_token_ms} ms (${t.step2_cached_tokens} of ${t.step2_cached_tokens + t.step2_prompt_tokens} prompt tokens reused)`);
  }
}
// One Markdown table per file (family and quantization), every round's figure in order
const byModel = new Map();
for (const row of rows) byModel.set(row.model, [...(byModel.get(row.model) ?? []), row]);
const figures = (runs, key) => runs.map((r) => f(r[key])).join(' / ');
const ratios = (runs, key) => runs.map(([a, b]) => pct(a?.[key], b?.[key])).join(' / ');
for (const [model, runs] of byModel) {
  const { tab } = runs[0];
  console.log(`\n${model} (${(tab.file_bytes / 1e6).toFixed(1)} MB, ${tab.threads} threads, ${tab.kernels}; prompt ${tab.prefill_tokens} tokens)\n`);
  console.log('| what | engine | wllama | native llama.cpp | engine / native | wllama / native |');
  console.log('|---|---|---|---|---|---|');
  for (const [what, key] of [['prefill tok/s', 'prefill_tok_s'], ['generation tok/s', 'gen_free_tok_s']]) {
    const [t, w, n] = [runs.map((r) => r.tab), runs.map((r) => r.wllama), runs.map((r) => r.native)];
    console.log(`| ${what} | ${figures(t, key)} | ${figures(w, key)} | ${figures(n, key)} | ${ratios(t.map((x, i) => [x, n[i]]), key)} | ${ratios(w.map((x, i) => [x, n[i]]), key)} |`);
  }
}
console.log(JSON.stringify({ local_model_bench: rows }));
JS
