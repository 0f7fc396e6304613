#!/usr/bin/env bash
# Installs everything tabloop needs to build, serve and test, idempotently: each step checks for
# what is already present at the right version and skips it. Every download goes through a
# package registry's ordinary client (rustup, cargo, apt, npm, pip); nothing else is fetched.
#
#   scripts/setup.sh            everything (build + browser tests)
#   scripts/setup.sh --serve    only what serving the playground needs
set -euo pipefail

cd "$(dirname "$0")/.."
mode="${1:-all}"

WASM_BINDGEN_VERSION="$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' Cargo.toml)"
TRUNK_VERSION="0.21.14"
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

step() { printf '[setup] %s\n' "$*"; }

if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "wasm32 target: present"
else
  step "wasm32 target: installing"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$WASM_BINDGEN_VERSION" ]; then
  step "wasm-bindgen-cli $WASM_BINDGEN_VERSION: present"
else
  # Not --locked: its lock file names a webpki-roots version the registry does not serve.
  step "wasm-bindgen-cli $WASM_BINDGEN_VERSION: installing (a few minutes cold)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if [ "$(trunk --version 2>/dev/null | awk '{print $2}')" = "$TRUNK_VERSION" ]; then
  step "trunk $TRUNK_VERSION: present"
else
  # trunk 0.22 needs a newer rustc than this toolchain.
  step "trunk $TRUNK_VERSION: installing (several minutes cold)"
  cargo install --locked trunk --version "$TRUNK_VERSION" --force
fi

if [ -f node_modules/.package-lock.json ] && cmp -s package-lock.json node_modules/.tabloop-lock; then
  step "npm packages: present"
else
  step "npm packages: installing"
  npm ci --no-audit --no-fund
  cp package-lock.json node_modules/.tabloop-lock
fi
if [ "$(wasm-opt --version 2>/dev/null | awk '{print $3}')" != "132" ]; then
  echo "wasm-opt from npm binaryen is missing or not version 132" >&2
  exit 1
fi

bash scripts/fetch-model-assets.sh
bash scripts/build-engine.sh

if [ "$mode" = "--serve" ]; then
  exit 0
fi

# the synthetic qwen2 / qwen3 / gemma3 files the engine's tests compare with llama.cpp
bash scripts/synthetic-models.sh

if [ -x /usr/bin/chromium ]; then
  step "chromium: present"
else
  step "chromium: installing from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
fi
