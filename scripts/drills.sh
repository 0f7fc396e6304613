#!/usr/bin/env bash
# Runs the reliability drills (tests/drills/) against the release build at full scale: kill the
# browser at ten points of a run over 20 seeds, provider faults, runaway models, sandbox escapes,
# injected instructions, hostile markdown, hostile paths, key leaks, several tabs, a full disk.
# Writes target/drills/figures.json and rewrites RELIABILITY.md; exits non-zero when a figure
# misses its goal. Extra arguments go to the runner, e.g. `--only kill --seeds 5`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
if [ ! -f dist/tabloop_bg.wasm ] || [ -n "${DRILLS_REBUILD:-}" ]; then
  trunk build --release --public-url ./ 2>&1 | tail -n 3
fi
node tests/drills/run.mjs --scale full --out target/drills --md RELIABILITY.md "$@"
