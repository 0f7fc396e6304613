#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance) against
# tabloop's MCP client running in headless Chromium (tests/conformance/browser_client.mjs): every
# client scenario of the suite's 0.1.16 release, the auth suite with `--suite auth`, and then
# every scenario the 0.2.0 pre-release (0.2.0-alpha.12) runs for protocol 2026-07-28
# (`--spec-version 2026-07-28`: the stateless era, named "2026-07-28:<scenario>"). It prints a
# JSON summary {"passed":N,"failed":N,"scenarios":{name:{status,checks:{passed,failed,
# warnings}}}} as its last line and exits 0 only when every scenario passed (no failed check,
# no warning, the client succeeded where the scenario expects it to).
#
#   scripts/mcp-conformance.sh                       everything above (about five minutes)
#   scripts/mcp-conformance.sh --no-build            use the existing dist/ (else: trunk build --release)
#   scripts/mcp-conformance.sh --scenario NAME ...   only these 0.1.16 scenarios (repeatable), one by one
#   scripts/mcp-conformance.sh --modern NAME ...     only these 2026-07-28 scenarios (repeatable)
#
# The suite needs Node >= 22 (it calls fs.globSync); Node comes from the npm registry as the
# package `node`, installed with the suite into ~/.cache/tabloop/mcp-conformance-<version>.
# Results: target/mcp-conformance/<time>/<release>/<scenario>-<time>/checks.json (the suite's
# own files) and summary.json.
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE_VERSION="0.1.16"
MODERN_VERSION="0.2.0-alpha.12"
NODE_VERSION="22.23.3"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/tabloop"
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

build=1
only=()
modern_only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --scenario) only+=("$2"); shift ;;
    --modern) modern_only+=("$2"); shift ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
  shift
done

step() { printf '[mcp-conformance] %s\n' "$*" >&2; }

# Node 22 and one release of the suite, pinned, installed once into its own cache folder.
install_suite() {
  local version="$1" cache="$CACHE_ROOT/mcp-conformance-$1"
  local pkg="$cache/node_modules/@modelcontextprotocol/conformance/package.json"
  if [ -x "$cache/node_modules/.bin/node" ] && [ "$("$cache/node_modules/.bin/node" --version)" = "v$NODE_VERSION" ] &&
    [ -f "$pkg" ] && [ "$("$cache/node_modules/.bin/node" -p "require('$pkg').version")" = "$version" ]; then
    step "node $NODE_VERSION and conformance $version: present"
  else
    step "node $NODE_VERSION and conformance $version: installing into $cache"
    mkdir -p "$cache"
    printf '{"private":true,"dependencies":{"node":"%s","@modelcontextprotocol/conformance":"%s"}}\n' \
      "$NODE_VERSION" "$version" >"$cache/package.json"
    (cd "$cache" && npm install --no-audit --no-fund --loglevel=error >&2)
  fi
  [ "$("$cache/node_modules/.bin/node" --version)" = "v$NODE_VERSION" ] || { echo "node $NODE_VERSION did not install" >&2; exit 1; }
}
run_legacy=1
run_modern=1
if [ "${#only[@]}" -gt 0 ] || [ "${#modern_only[@]}" -gt 0 ]; then
  [ "${#only[@]}" -gt 0 ] || run_legacy=0
  [ "${#modern_only[@]}" -gt 0 ] || run_modern=0
fi
[ "$run_legacy" = 0 ] || install_suite "$CONFORMANCE_VERSION"
[ "$run_modern" = 0 ] || install_suite "$MODERN_VERSION"
node22="$CACHE_ROOT/mcp-conformance-$([ "$run_legacy" = 1 ] && echo "$CONFORMANCE_VERSION" || echo "$MODERN_VERSION")/node_modules/.bin/node"

if [ ! -d node_modules/playwright-core ]; then
  step "npm packages: installing"
  npm ci --no-audit --no-fund >&2
fi
if [ "$build" = 1 ]; then
  step "release build: trunk build --release"
  trunk build --release --public-url ./ >&2
fi
[ -f dist/tabloop_bg.wasm ] || { echo "dist/ is missing: run without --no-build" >&2; exit 1; }

client_cmd="$node22 $PWD/tests/conformance/browser_client.mjs"
out="$PWD/target/mcp-conformance/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"

# One Chromium (and site, and CORS proxy) for every scenario, stopped however this script ends.
export TABLOOP_CONFORMANCE_HOST="$out/browser-host.json"
"$node22" tests/conformance/browser_host.mjs "$TABLOOP_CONFORMANCE_HOST" >"$out/browser-host.log" 2>&1 &
host_pid=$!
trap 'kill "$host_pid" 2>/dev/null; wait "$host_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  [ -s "$TABLOOP_CONFORMANCE_HOST" ] && break
  kill -0 "$host_pid" 2>/dev/null || { cat "$out/browser-host.log" >&2; echo "the browser host did not start" >&2; exit 1; }
  sleep 0.1
done
[ -s "$TABLOOP_CONFORMANCE_HOST" ] || { echo "the browser host did not start in 30 s" >&2; exit 1; }

# Runs scenarios one by one with the suite in $suite, results under $dir.
run_each() {
  local dir="$1"; shift
  local extra=("${spec[@]}")
  for s in "$@"; do
    step "scenario $s${extra:+ (${extra[*]})}"
    local code=0 log="$dir/$(echo "$s" | tr / _).log"
    "$node22" "$suite" client --command "$client_cmd" --scenario "$s" "${extra[@]}" --timeout 120000 -o "$dir" >"$log" 2>&1 || code=$?
    echo "$s $code" >>"$dir/exit-codes.txt"
    tail -n 3 "$log" | sed 's/^/    /' >&2
  done
}

if [ "$run_legacy" = 1 ]; then
  suite="$CACHE_ROOT/mcp-conformance-$CONFORMANCE_VERSION/node_modules/@modelcontextprotocol/conformance/dist/index.js"
  dir="$out/$CONFORMANCE_VERSION"
  mkdir -p "$dir"
  : >"$dir/exit-codes.txt"
  spec=()
  if [ "${#only[@]}" -gt 0 ]; then
    run_each "$dir" "${only[@]}"
  else
    # Every client scenario the suite lists (the section after "Client scenarios"), except the
    # auth suite's own (src/scenarios/client/auth/index.ts, authScenariosList), run after.
    mapfile -t listed < <("$node22" "$suite" list | sed -n '/^Client scenarios/,$p' | sed -n 's/^  - \([^ ]*\).*/\1/p')
    single=()
    for s in "${listed[@]}"; do
      case "$s" in
        auth/metadata-*|auth/basic-cimd|auth/scope-*|auth/token-endpoint-auth-*|auth/pre-registration) ;;
        *) single+=("$s") ;;
      esac
    done
    run_each "$dir" "${single[@]}"
    step "suite auth (its scenarios in parallel)"
    code=0
    "$node22" "$suite" client --command "$client_cmd" --suite auth --timeout 240000 -o "$dir" >"$dir/suite-auth.log" 2>&1 || code=$?
    echo "suite:auth $code" >>"$dir/exit-codes.txt"
    sed -n '/=== SUITE SUMMARY ===/,$p' "$dir/suite-auth.log" | sed 's/^/    /' >&2
  fi
fi

if [ "$run_modern" = 1 ]; then
  suite="$CACHE_ROOT/mcp-conformance-$MODERN_VERSION/node_modules/@modelcontextprotocol/conformance/dist/index.js"
  dir="$out/$MODERN_VERSION"
  mkdir -p "$dir"
  : >"$dir/exit-codes.txt"
  spec=(--spec-version 2026-07-28)
  if [ "${#modern_only[@]}" -gt 0 ]; then
    run_each "$dir" "${modern_only[@]}"
  else
    mapfile -t listed < <("$node22" "$suite" list | sed -n '/^Client scenarios/,/^Authorization server scenarios/p' | grep '2026-07-28' | sed -n 's/^  - \([^ ]*\).*/\1/p')
    run_each "$dir" "${listed[@]}"
  fi
fi

"$node22" tests/conformance/summary.mjs "$out" "$CONFORMANCE_VERSION=" "$MODERN_VERSION=2026-07-28:"
