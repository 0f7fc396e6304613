#!/usr/bin/env bash
# The real-model scenario tasks on native llama.cpp (about 10x faster than the tab), through the
# local provider's own request building and reply parsing (examples/local_request.rs): for trying
# a prompt or grammar change on every task before trying it in the browser. Figures only.
# Needs the llama-cpp-python venv that scripts/bench-local.sh builds (cached).
#
#   scripts/scenarios-native.sh [--show] [--variant FILE.py] [name ...]   (bundled Q8_0 model)
#   GGUF=www/models/smollm2-135m-instruct-q4_1.gguf scripts/scenarios-native.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
VENV="$HOME/.cache/tabloop/llamacpp-venv"
if [ ! -x "$VENV/bin/python" ]; then
  echo "no llama-cpp-python venv at $VENV: run scripts/bench-local.sh once" >&2
  exit 2
fi
bash scripts/fetch-model-assets.sh >/dev/null
cargo build -q --example local_request
exec "$VENV/bin/python" benches/local_model/scenarios_native.py "${GGUF:-www/models/smollm2-135m-instruct-q8_0.gguf}" "$@"
