#!/usr/bin/env bash
# Builds the in-tab model engine (engine/, a dependency-free Rust crate) to WebAssembly four
# times and puts the builds where the site serves them (ignored by git):
#   www/local/engine/engine.wasm                  one thread (wasm32-unknown-unknown)
#   www/local/engine/engine-threads.wasm          threads on shared memory (wasm32-wasip1-threads),
#                                                 for cross-origin isolated pages
#   www/local/engine/engine-simd128.wasm          the same two without relaxed SIMD, for browsers
#   www/local/engine/engine-threads-simd128.wasm  that have none (Safari); the worker picks by
#                                                 feature detection
# Idempotent and quick when nothing changed (cargo's own up-to-date check). Target directories
# of their own, one per set of target features, so they never mix with the app's build or
# rebuild each other.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed | grep -qx wasm32-wasip1-threads; then
  rustup target add wasm32-wasip1-threads
fi
RELAXED="-C target-feature=+simd128,+relaxed-simd,+bulk-memory,+nontrapping-fptoint"
SIMD128="-C target-feature=+simd128,+bulk-memory,+nontrapping-fptoint"
# Shared memory starts at 32 MiB and may grow to 4 GiB (the worker creates it with these); the
# stack pointer and thread-local storage are exported so a thread's worker can set up its own.
THREAD_MEMORY="-C link-arg=--initial-memory=33554432 -C link-arg=--max-memory=4294967296"
for name in __stack_pointer __wasm_init_tls __tls_size __tls_align; do
  THREAD_MEMORY="$THREAD_MEMORY -C link-arg=--export=$name"
done

build() { # target, features, extra flags, target directory, output
  CARGO_TARGET_DIR="$PWD/target/$4" RUSTFLAGS="$2 $3" \
    cargo build --quiet --release -p tabloop-engine --lib --target "$1"
  local built="target/$4/$1/release/tabloop_engine.wasm" out="www/local/engine/$5"
  mkdir -p "$(dirname "$out")"
  if ! cmp -s "$built" "$out"; then
    cp "$built" "$out.part"
    mv "$out.part" "$out"
    printf '[engine] %s: %s bytes\n' "$out" "$(stat -c %s "$out")"
  fi
}
build wasm32-unknown-unknown "$RELAXED" "" engine-wasm engine.wasm
build wasm32-wasip1-threads "$RELAXED" "$THREAD_MEMORY" engine-wasm engine-threads.wasm
build wasm32-unknown-unknown "$SIMD128" "" engine-wasm-simd128 engine-simd128.wasm
build wasm32-wasip1-threads "$SIMD128" "$THREAD_MEMORY" engine-wasm-simd128 engine-threads-simd128.wasm
