#!/usr/bin/env bash
# Writes the synthetic GGUF models the engine's tests compare with llama.cpp
# (scripts/synthetic_gguf.py: qwen2, qwen3 and gemma3 shapes and vocabularies, random weights)
# into target/synthetic/, with the PyPI gguf package in a venv of its own (cached in
# ~/.cache/tabloop/gguf-venv). Idempotent: files already written with the same script are kept.
#
#   scripts/synthetic-models.sh                 the tiny files the tests read (~80 MB, seconds)
#   scripts/synthetic-models.sh --shape full --family qwen3 --quant q8_0
#                                               a 0.6B-shaped file for the speed benchmark
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="$HOME/.cache/tabloop/gguf-venv"
GGUF_VERSION="0.19.0"
if ! "$VENV/bin/python" -c "import gguf, importlib.metadata as m, sys; sys.exit(m.version('gguf') != '$GGUF_VERSION')" 2>/dev/null; then
  echo "[synthetic] installing gguf $GGUF_VERSION from PyPI into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "gguf==$GGUF_VERSION"
fi
# The hostile-GGUF corpus (scripts/hostile_gguf.py), for engine/tests/hostile_gguf.rs and
# tests/e2e/hostile_gguf.test.mjs; a few seconds.
HOSTILE="target/hostile-gguf"
hostile_stamp="$HOSTILE/.written-by-$(cat scripts/hostile_gguf.py scripts/synthetic_gguf.py | sha256sum | cut -c1-16)"
if [ -f "$hostile_stamp" ]; then
  echo "[synthetic] $HOSTILE: present"
else
  mkdir -p "$HOSTILE"
  rm -f "$HOSTILE"/.written-by-*
  "$VENV/bin/python" scripts/hostile_gguf.py "$HOSTILE" | sed 's/^/[synthetic] /'
  touch "$hostile_stamp"
fi
OUT="target/synthetic"
stamp="$OUT/.written-by-$(sha256sum scripts/synthetic_gguf.py | cut -c1-16)$(printf '%s' "$*" | sha256sum | cut -c1-8)"
if [ -f "$stamp" ]; then
  echo "[synthetic] $OUT: present"
  exit 0
fi
mkdir -p "$OUT"
"$VENV/bin/python" scripts/synthetic_gguf.py "$OUT" "$@" | sed 's/^/[synthetic] /'
touch "$stamp"
