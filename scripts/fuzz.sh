#!/usr/bin/env bash
# Runs the coverage-guided fuzz targets (cargo-fuzz, libFuzzer; fuzz/fuzz_targets/) one after the
# other, each for SECONDS of wall time, and writes what each did to target/fuzz/figures.json:
# executions, wall time, coverage (edges), crashes. Not part of scripts/test.sh: the corpora it
# grows stay in target/fuzz/corpus/; what it found that matters goes into the repository by hand
# (a crash's input into fuzz/regressions/<target>/, replayed by tests/fuzz_regressions.rs after
# the fix; new coverage via `scripts/fuzz.sh --merge`).
#
#   scripts/fuzz.sh SECONDS [TARGET...]     default: every target
#   scripts/fuzz.sh --merge [TARGET...]     minimise the grown corpora into fuzz/corpus/ (small)
#
# Installs the nightly toolchain and cargo-fuzz when missing. Runs under `nice`, one job at a time.
# FUZZ_SANITIZER=address builds with AddressSanitizer; the default is none: natively the engine
# and the app compile no unsafe code (the engine's unsafe blocks are its wasm ABI), and without
# ASan a target runs two to three times as many inputs in the same time.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
SANITIZER="${FUZZ_SANITIZER:-none}"
export CARGO_TARGET_DIR="$PWD/target/fuzz-$SANITIZER"

# mcp_js: the MCP client's JavaScript (www/mcp/), fuzzed by fuzz/js/mcp_fuzz.mjs under Node with
# V8's block coverage as its guide (no libFuzzer build of Jazzer.js runs on this glibc).
ALL=(gguf tokenizer grammar sse_providers mcp_sampling markdown mcp_js)
# Largest input a target gets (the GGUF seed is a 67 KB model).
declare -A MAX_LEN=([gguf]=131072 [tokenizer]=4096 [grammar]=4096 [sse_providers]=8192 [mcp_sampling]=4096 [markdown]=4096 [mcp_js]=8192)

mode="${1:?usage: scripts/fuzz.sh SECONDS [TARGET...] | --merge [TARGET...]}"
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${ALL[@]}")

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
cargo +nightly fuzz --version >/dev/null 2>&1 || cargo +nightly install cargo-fuzz --locked
nice cargo +nightly fuzz build -O -s "$SANITIZER" --fuzz-dir fuzz >/dev/null
bin="$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release"

if [ "$mode" = "--merge" ]; then
  for t in "${targets[@]}"; do
    [ "$t" != mcp_js ] || { echo "[fuzz] mcp_js: merge by hand (its corpus grows slowly)"; continue; }
    mkdir -p "fuzz/corpus/$t" "target/fuzz/corpus/$t"
    nice "$bin/$t" -merge=1 -max_len="${MAX_LEN[$t]}" "fuzz/corpus/$t" "target/fuzz/corpus/$t" 2>&1 | tail -n 1
  done
  exit 0
fi

seconds="$mode"
mkdir -p target/fuzz
figures=target/fuzz/figures.json
[ -f "$figures" ] || echo '{}' > "$figures"
for t in "${targets[@]}"; do
  corpus="target/fuzz/corpus/$t"
  artifacts="target/fuzz/artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  log="target/fuzz/$t.log"
  echo "[fuzz] $t: ${seconds}s"
  start=$(date +%s)
  set +e
  if [ "$t" = mcp_js ]; then
    nice node fuzz/js/mcp_fuzz.mjs "$seconds" "$corpus" "$artifacts" >"$log" 2>&1
  else
  nice "$bin/$t" "$corpus" "fuzz/corpus/$t" -max_total_time="$seconds" -max_len="${MAX_LEN[$t]}" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
  fi
  status=$?
  set -e
  wall=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  edges=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | awk '{print $2}')
  crashes=$(find "$artifacts" -type f | wc -l)
  echo "[fuzz] $t ($SANITIZER): ${runs:-0} executions in ${wall}s, ${edges:-0} edges, ${crashes} crash inputs (exit $status)"
  SANITIZER="$SANITIZER" flock target/fuzz/.figures.lock node -e '
    const fs = require("fs");
    const [file, t, runs, wall, edges, crashes, status] = process.argv.slice(1);
    const all = JSON.parse(fs.readFileSync(file, "utf8"));
    const before = all[t] ?? { executions: 0, wall_s: 0, runs: 0 };
    all[t] = {
      executions: before.executions + Number(runs), wall_s: before.wall_s + Number(wall),
      edges: Math.max(before.edges ?? 0, Number(edges)), crashes: Number(crashes), runs: before.runs + 1,
      last_exit: Number(status), sanitizer: process.env.SANITIZER,
    };
    fs.writeFileSync(file, JSON.stringify(all, null, 1));
  ' "$figures" "$t" "${runs:-0}" "$wall" "${edges:-0}" "$crashes" "$status"
done
cat "$figures"
