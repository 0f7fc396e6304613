#!/usr/bin/env bash
# Builds the `tabloop` package for bundlers into pkg/ (or $1): the library without the
# playground UI (cargo feature `playground` off), wasm-bindgen's ES module for the web, the JS
# capabilities it loads (tools, eval sandbox, store, MCP client), the types, and package.json.
#   import init, { createAgent } from 'tabloop';   await init();
# The in-tab local model is not bundled: a page that wants it serves www/ and sets TABLOOP_BASE.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
out="${1:-pkg}"

cargo build --release --target wasm32-unknown-unknown --bin tabloop --no-default-features
rm -rf "$out"
mkdir -p "$out/www"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name tabloop \
  target/wasm32-unknown-unknown/release/tabloop.wasm
# The same optimisation the site build applies (index.html's data-wasm-opt).
wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue \
  -o "$out/tabloop_bg.wasm" "$out/tabloop_bg.wasm"
cp -r www/tools www/sandbox www/store www/mcp "$out/www/"
cp www/package/index.js "$out/index.js"
node scripts/minify-glue.mjs "$out"
cp www/tabloop.d.ts "$out/tabloop.d.ts"
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
cat > "$out/package.json" <<JSON
{
  "name": "tabloop",
  "version": "$version",
  "description": "An LLM agent loop that lives in a browser tab",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "main": "./index.js",
  "module": "./index.js",
  "types": "./tabloop.d.ts",
  "exports": {
    ".": { "types": "./tabloop.d.ts", "default": "./index.js" },
    "./tabloop_bg.wasm": "./tabloop_bg.wasm"
  },
  "sideEffects": ["./index.js", "./snippets/*"]
}
JSON
printf '[package] %s: tabloop_bg.wasm %s bytes\n' "$out" "$(wc -c < "$out/tabloop_bg.wasm")"
