#!/usr/bin/env bash
# Real-model scenario suite: simple tasks on the bundled model through the default tools, in
# headless Chromium against the release build. Prints success, first output and time per step.
#
#   scripts/scenarios.sh [name ...]     (names: see benches/scenarios/local_model.mjs)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
bash scripts/fetch-model-assets.sh >/dev/null
if [ ! -f dist/tabloop_bg.wasm ] || [ -n "${TABLOOP_REBUILD:-}" ]; then
  flock /tmp/tabloop-browser.lock trunk build --release --public-url ./
fi
flock /tmp/tabloop-browser.lock timeout -s KILL 1800 node benches/scenarios/local_model.mjs "$@"
