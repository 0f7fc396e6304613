#!/usr/bin/env bash
# Runs a command with the mock model provider listening on loopback.
#
#   tests/support/run_with_mock.sh [--port N] -- COMMAND [ARGS...]
#
# Starts tests/support/mock_provider.mjs on port N (default 8791, the browser tests' built-in
# default), waits for its "ready <url>" line, exports MOCK_PROVIDER_URL=<url>, runs COMMAND,
# stops the mock on exit, and exits with COMMAND's status.
set -euo pipefail

port=8791
if [[ "${1:-}" == "--port" ]]; then
  port="$2"
  shift 2
fi
if [[ "${1:-}" == "--" ]]; then
  shift
fi
if [[ $# -eq 0 ]]; then
  echo "usage: $0 [--port N] -- COMMAND [ARGS...]" >&2
  exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log="$(mktemp)"
mock_pid=""

cleanup() {
  if [[ -n "$mock_pid" ]] && kill -0 "$mock_pid" 2>/dev/null; then
    kill "$mock_pid" 2>/dev/null || true
    wait "$mock_pid" 2>/dev/null || true
  fi
  rm -f "$log"
}
trap cleanup EXIT INT TERM

node "$here/mock_provider.mjs" --port "$port" >"$log" 2>&1 &
mock_pid=$!

url=""
for _ in $(seq 1 100); do
  if line="$(grep -m1 '^ready ' "$log" 2>/dev/null)"; then
    url="${line#ready }"
    break
  fi
  if ! kill -0 "$mock_pid" 2>/dev/null; then
    echo "mock provider exited before it was ready:" >&2
    cat "$log" >&2
    exit 1
  fi
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "mock provider did not print 'ready' within 10 s" >&2
  cat "$log" >&2
  exit 1
fi

export MOCK_PROVIDER_URL="$url"
echo "mock provider ready at $url" >&2
status=0
"$@" || status=$?
exit "$status"
