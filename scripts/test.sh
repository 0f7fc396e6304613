#!/usr/bin/env bash
# Installs what is missing, then runs every check: formatting, clippy (native and wasm32), the
# supply-chain checks (cargo deny, npm audit),
# native tests, browser tests (wasm-bindgen-test in headless Chromium), a release build, and the
# end-to-end tests against the built site in headless Chromium. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"


section() { printf '\n==== %s\n' "$*"; }

section "cargo fmt --check"
cargo fmt --all -- --check

section "cargo clippy (native)"
cargo clippy --all-targets -- -D warnings

section "cargo clippy (wasm32)"
cargo clippy --target wasm32-unknown-unknown --all-targets -- -D warnings

section "cargo clippy: the model engine (native, and the wasm builds with their SIMD features)"
cargo clippy -p tabloop-engine --all-targets -- -D warnings
for target in wasm32-unknown-unknown wasm32-wasip1-threads; do
  CARGO_TARGET_DIR="$PWD/target/engine-wasm" \
    RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd,+bulk-memory,+nontrapping-fptoint" \
    cargo clippy -p tabloop-engine --lib --target "$target" -- -D warnings
  CARGO_TARGET_DIR="$PWD/target/engine-wasm-simd128" \
    RUSTFLAGS="-C target-feature=+simd128,+bulk-memory,+nontrapping-fptoint" \
    cargo clippy -p tabloop-engine --lib --target "$target" -- -D warnings
done

section "supply chain: cargo deny check (advisories, licences, bans, sources) and npm audit --omit=dev"
bash scripts/supply-chain.sh

section "types: tsc over www/tabloop.d.ts and examples/typed"
tsc -p tsconfig.json

section "native tests: cargo test"
mkdir -p target
cargo test 2>&1 | tee target/native-tests.log
section "native tests: the model engine (cargo test -p tabloop-engine, against llama.cpp's figures)"
cargo test -p tabloop-engine 2>&1 | tee -a target/native-tests.log

section "browser tests: wasm-bindgen-test in headless Chromium via playwright-core (with a loopback mock provider)"
export WASM_BINDGEN_TEST_TIMEOUT=180
tests/support/run_with_mock.sh -- cargo test --target wasm32-unknown-unknown \
  --test browser_mount --test browser_store --test browser_models 2>&1 | tee target/browser-tests.log

section "release build: trunk build --release"
trunk build --release --public-url ./ 2>&1 | tail -n 5

section "package build: scripts/build-package.sh (library without the playground, for bundlers)"
bash scripts/build-package.sh pkg 2>&1 | tail -n 3

section "end-to-end tests: node --test in headless Chromium"
node --test --test-concurrency=1 tests/e2e/*.test.mjs 2>&1 | tee target/e2e-tests.log

section "benchmark smoke run: scripts/bench.sh --smoke (every path once, tiny sizes; figures not kept)"
bash scripts/bench.sh --smoke --no-build 2>&1 | tail -n 12

section "summary"
grep -h "^test result:" target/native-tests.log target/browser-tests.log || true
grep -E "^# (pass|fail)" target/e2e-tests.log || true
