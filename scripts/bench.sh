#!/usr/bin/env bash
# The benchmarks, side by side with the Vercel AI SDK (npm `ai` + `@ai-sdk/openai`, pinned in
# package.json): both loops run in ONE headless Chromium page, so machine noise falls on both.
# Writes target/bench/result.json and BENCHMARKS.md (figures, the machine, ratios). Prints
# figures; asserts nothing beyond "each loop ran the steps it was asked for".
#
#   scripts/bench.sh             full run (builds pkg/ and dist/ first; ~10 minutes on 2 cores)
#   scripts/bench.sh --smoke     tiny run of every path (CI; writes target/bench/smoke.json only)
#   scripts/bench.sh --no-build  reuse pkg/ and dist/ as they are
#   scripts/bench.sh --max-steps 1000   leave out the 10,000-step runs
#   scripts/bench.sh --local     also run scripts/bench-local.sh (slow: the in-tab model beside
#                                native llama.cpp); otherwise its last output is read from
#                                target/bench/local.txt when present
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

smoke=0 build=1 local=0 max_steps=100000
while [ $# -gt 0 ]; do
  arg="$1"; shift
  case "$arg" in
    --max-steps) max_steps="$1"; shift ;;
    --smoke) smoke=1 ;;
    --no-build) build=0 ;;
    --local) local=1 ;;
    *) echo "usage: scripts/bench.sh [--smoke] [--no-build] [--max-steps N] [--local]" >&2; exit 2 ;;
  esac
done
out=target/bench
mkdir -p "$out"

if [ "$build" = 1 ]; then
  bash scripts/build-package.sh pkg | tail -n 1
  trunk build --release --public-url ./ 2>&1 | tail -n 1
fi
node benches/compare/build.mjs "$out/aisdk" > /dev/null

# Native parsing throughput (criterion). The smoke run executes each benchmark once instead.
native="$out/native.json"
if [ "$smoke" = 1 ]; then
  cargo test --quiet --bench parse 2>&1 | tail -n 2
  echo '{"measured": false}' > "$native"
else
  cargo bench --quiet --bench parse -- --warm-up-time 2 --measurement-time 8 > "$out/parse.txt" 2>&1
  node benches/compare/criterion.mjs target/criterion/parse "$out/parse.txt" > "$native"
fi

if [ "$local" = 1 ]; then
  bash scripts/bench-local.sh | tee "$out/local.txt"
fi

if [ "$smoke" = 1 ]; then
  node benches/compare/run.mjs --smoke --out "$out/smoke.json" --native "$native"
  node benches/compare/report.mjs "$out/smoke.json" "$out/smoke.md"
  # The build-against-build comparison, once through (the package against itself).
  node benches/compare/ab.mjs pkg pkg --rounds 2 --steps 5
else
  node benches/compare/run.mjs --out "$out/result.json" --native "$native" --local "$out/local.txt" --max-steps "$max_steps"
  node benches/compare/report.mjs "$out/result.json" BENCHMARKS.md
fi
