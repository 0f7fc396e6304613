#!/usr/bin/env bash
# Installs what is missing, then serves the playground at http://127.0.0.1:8080 with trunk.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --serve
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
exec trunk serve "$@"
