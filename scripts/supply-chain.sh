#!/usr/bin/env bash
# Supply-chain checks (scripts/test.sh runs this; it installs what is missing, idempotently):
#   1. cargo deny check: advisories, licences, bans and sources of every crate (deny.toml).
#      The RustSec advisory database is fetched; where it cannot be (a machine that reaches only
#      package registries), the dated snapshot in scripts/supply-chain/ is used and named.
#   2. npm audit --omit=dev over what the site ships (package.json's `dependencies`), judged
#      against scripts/supply-chain/npm-audit-allow.json, whose every entry carries a reason
#      (scripts/supply-chain/npm-audit.mjs). A registry without the audit endpoint is reported,
#      not failed: only a new advisory fails the check.
# Exits non-zero on a new advisory, a licence not allowed, a banned crate or an unknown source.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"

DENY_VERSION="0.20.2"
SNAPSHOT="scripts/supply-chain/rustsec-advisory-db.tar.xz"
# The snapshot's commit in the RustSec database and its date (its commit time below).
SNAPSHOT_DATE="2026-08-21T08:28:40+02:00"
# Where cargo-deny keeps the default database under deny.toml's db-path.
DB_DIR="$HOME/.cache/tabloop/advisory-dbs/advisory-db-3157b0e258782691"

step() { printf '[supply-chain] %s\n' "$*"; }

if [ "$(cargo deny --version 2>/dev/null | awk '{print $2}')" = "$DENY_VERSION" ]; then
  step "cargo-deny $DENY_VERSION: present"
else
  step "cargo-deny $DENY_VERSION: installing (a few minutes cold)"
  cargo install --locked cargo-deny --version "$DENY_VERSION" --force
fi

snapshot_stamp="$(sha256sum "$SNAPSHOT" | cut -c1-16)"
# A snapshot left by an earlier run is not a clone: let a live fetch start afresh.
[ -f "$DB_DIR/.git/tabloop-snapshot" ] && rm -rf "$DB_DIR"
offline=()
if timeout 120 cargo deny fetch db >/dev/null 2>&1; then
  step "RustSec advisory database: fetched"
else
  rm -rf "$DB_DIR"
  mkdir -p "$DB_DIR"
  tar -xJf "$SNAPSHOT" -C "$DB_DIR" --strip-components=1
  (
    cd "$DB_DIR"
    git init -q -b main
    git add -A
    GIT_AUTHOR_DATE="$SNAPSHOT_DATE" GIT_COMMITTER_DATE="$SNAPSHOT_DATE" \
      git -c user.name=snapshot -c user.email=snapshot@localhost commit -q -m "RustSec advisory database snapshot"
    echo "$snapshot_stamp" > .git/tabloop-snapshot
  )
  offline=(--offline)
  step "RustSec advisory database: cannot be fetched here; using the snapshot of ${SNAPSHOT_DATE%%T*} ($SNAPSHOT)"
fi

# Every crate of the lock file, whatever its target (cargo-deny reads them all; --offline
# below would otherwise miss those no build here downloads).
cargo fetch >/dev/null 2>&1 || cargo fetch
step "cargo deny check (advisories, licences, bans, sources)"
cargo deny "${offline[@]}" check --hide-inclusion-graph 2>&1 | grep -v "^\s*$" | tail -n 40
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || { step "cargo deny check failed"; exit "$status"; }

step "npm audit --omit=dev (the packages the site ships)"
node scripts/supply-chain/npm-audit.mjs
