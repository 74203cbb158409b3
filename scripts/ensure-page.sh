#!/usr/bin/env bash
# Makes sure the built page is there and current: sets up what the page needs (scripts/setup-web.sh, each
# tool only when missing) and builds it (scripts/build-page.sh) when DIST/index.html (default dist/) is
# missing or older than any of its sources. `--dry-run` only says which: "page: up to date" or "page: stale";
# `--firefox` and `--webkit` are handed to setup-web.sh (Firefox ESR, WebKitGTK too). scripts/run.sh calls it for --browser.
set -euo pipefail
cd "$(dirname "$0")/.."
DIST=${DIST:-dist}

# Stale when there is no built index.html, or any source of the page is newer than it.
stale() {
  [ -f "$DIST/index.html" ] || return 0
  [ -n "$(find index.html Trunk.toml Cargo.lock web shared/src shared/Cargo.toml -newer "$DIST/index.html" -print -quit)" ]
}

if [ "${1:-}" = "--dry-run" ]; then
  if stale; then echo "page: stale"; else echo "page: up to date"; fi
  exit 0
fi
bash scripts/setup-web.sh "$@"
if stale; then
  echo "ensure-page: building the page ($DIST/ is missing or older than its sources)" >&2
  bash scripts/build-page.sh --dist "$DIST" >&2
else
  echo "ensure-page: $DIST/ is up to date" >&2
fi
