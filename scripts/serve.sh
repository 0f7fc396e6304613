#!/usr/bin/env bash
# Installs what is missing, then serves the playground at http://127.0.0.1:8080 with trunk: the
# release build, as deployed (the dev build's wasm is 11 MB against 1.4 MB, and the newcomer's
# first task took ~100 ms longer to show output and ~0.7 s longer to end on it), without the
# live-reload script, so its service worker keeps the site and the playground works offline
# after the first visit (`trunk serve` alone gives a worker with no files; see precache.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --serve
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
exec trunk serve --release --no-autoreload "$@"
