#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance) against
# tabloop's MCP client running in headless Chromium (tests/conformance/browser_client.mjs): every
# client scenario the suite lists, the auth suite with `--suite auth`, and prints a JSON summary
# {"passed":N,"failed":N,"scenarios":{name:{status,checks:{passed,failed,warnings}}}} as its
# last line. Exits 0 only when every scenario passed (no failed check, no warning, the client
# succeeded where the scenario expects it to).
#
#   scripts/mcp-conformance.sh                       every client scenario and the auth suite
#   scripts/mcp-conformance.sh --no-build            use the existing dist/ (else: trunk build --release)
#   scripts/mcp-conformance.sh --scenario NAME ...   only these scenarios (repeatable), one by one
#
# The suite needs Node >= 22 (it calls fs.globSync); Node comes from the npm registry as the
# package `node`, installed with the suite into ~/.cache/tabloop/mcp-conformance-<version>.
# Results: target/mcp-conformance/<time>/<scenario>-<time>/checks.json (the suite's own files).
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE_VERSION="0.1.16"
NODE_VERSION="22.23.3"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/tabloop/mcp-conformance-$CONFORMANCE_VERSION"
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

build=1
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --scenario) only+=("$2"); shift ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
  shift
done

step() { printf '[mcp-conformance] %s\n' "$*" >&2; }

# Node 22 and the suite, pinned, installed once.
node22="$CACHE/node_modules/.bin/node"
suite="$CACHE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ -x "$node22" ] && [ "$("$node22" --version)" = "v$NODE_VERSION" ] && [ -f "$suite" ] &&
  [ "$("$node22" -p "require('$CACHE/node_modules/@modelcontextprotocol/conformance/package.json').version")" = "$CONFORMANCE_VERSION" ]; then
  step "node $NODE_VERSION and conformance $CONFORMANCE_VERSION: present"
else
  step "node $NODE_VERSION and conformance $CONFORMANCE_VERSION: installing into $CACHE"
  mkdir -p "$CACHE"
  printf '{"private":true,"dependencies":{"node":"%s","@modelcontextprotocol/conformance":"%s"}}\n' \
    "$NODE_VERSION" "$CONFORMANCE_VERSION" >"$CACHE/package.json"
  (cd "$CACHE" && npm install --no-audit --no-fund --loglevel=error >&2)
fi
[ "$("$node22" --version)" = "v$NODE_VERSION" ] || { echo "node $NODE_VERSION did not install" >&2; exit 1; }

if [ ! -d node_modules/playwright-core ]; then
  step "npm packages: installing"
  npm ci --no-audit --no-fund >&2
fi
if [ "$build" = 1 ]; then
  step "release build: trunk build --release"
  trunk build --release --public-url ./ >&2
fi
[ -f dist/tabloop_bg.wasm ] || { echo "dist/ is missing: run without --no-build" >&2; exit 1; }

conformance() { "$node22" "$suite" "$@"; }
client_cmd="$node22 $PWD/tests/conformance/browser_client.mjs"
out="$PWD/target/mcp-conformance/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"

# Every client scenario the suite lists (the section after "Client scenarios").
mapfile -t listed < <(conformance list | sed -n '/^Client scenarios/,$p' | sed -n 's/^  - \([^ ]*\).*/\1/p')
if [ "${#only[@]}" -gt 0 ]; then
  single=("${only[@]}")
  run_suite=0
else
  single=()
  for s in "${listed[@]}"; do
    # The auth suite (its list in 0.1.16: src/scenarios/client/auth/index.ts, authScenariosList)
    # runs below, in parallel, as `--suite auth`.
    case "$s" in
      auth/metadata-*|auth/basic-cimd|auth/scope-*|auth/token-endpoint-auth-*|auth/pre-registration) ;;
      *) single+=("$s") ;;
    esac
  done
  run_suite=1
fi

: >"$out/exit-codes.txt"
for s in "${single[@]}"; do
  step "scenario $s"
  code=0
  conformance client --command "$client_cmd" --scenario "$s" -o "$out" >"$out/$(echo "$s" | tr / _).log" 2>&1 || code=$?
  echo "$s $code" >>"$out/exit-codes.txt"
  tail -n 3 "$out/$(echo "$s" | tr / _).log" | sed 's/^/    /' >&2
done
if [ "$run_suite" = 1 ]; then
  step "suite auth (its scenarios in parallel)"
  code=0
  conformance client --command "$client_cmd" --suite auth --timeout 120000 -o "$out" >"$out/suite-auth.log" 2>&1 || code=$?
  echo "suite:auth $code" >>"$out/exit-codes.txt"
  sed -n '/=== SUITE SUMMARY ===/,$p' "$out/suite-auth.log" | sed 's/^/    /' >&2
fi

"$node22" tests/conformance/summary.mjs "$out"
