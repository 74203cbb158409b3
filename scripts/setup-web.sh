#!/usr/bin/env bash
# Installs what the browser page's build and tests need, each only when missing or at the wrong version:
# Debian's chromium + chromium-driver (firefox-esr with --firefox, WebKitGTK with --webkit), trunk 0.21.14, wasm-bindgen-cli at Cargo.lock's wasm-bindgen version
# (trunk and the test runner refuse any other), and wasm-opt from npm's binaryen 132 in .tools/ (Debian's
# binaryen is too old: its output fails at load), and terser for the page's JavaScript. Nothing here downloads a prebuilt binary of its own.
set -euo pipefail
cd "$(dirname "$0")/.."

SCRIPT_NAME=setup-web
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
export PATH="$HOME/.cargo/bin:$PATH"

TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132
BINARYEN_DIR=.tools/binaryen
TERSER_VERSION=5.51.4
TERSER_DIR=.tools/terser
AXE_VERSION=4.10.3
AXE_DIR=.tools/axe

# Chromium and its driver, for the wasm tests and the end-to-end test; npm for binaryen; python3.
missing=()
add_missing_packages chromium chromium-driver
command -v npm >/dev/null || missing+=(npm)
# The hosted-page test serves dist/ with Python's http.server (a static host that sends no headers).
command -v python3 >/dev/null || missing+=(python3)
# Firefox ESR and NSS's certutil (to trust the run's CA in Firefox's own profile), only when asked for:
# `--firefox` (scripts/run.sh --browser firefox, scripts/test.sh). About 300 MB installed. A flag, not an
# environment variable: httpbench reads HTTPBENCH_FIREFOX as the Firefox binary's path, and a setup switch of
# that name, exported by run.sh, once made `run --browser all` fail with "--firefox 1: no such file".
firefox=no
webkit=no
for arg in "$@"; do
  case "$arg" in
    --firefox) firefox=yes ;;
    --webkit) webkit=yes ;;
    *) log "unknown argument '$arg': give --firefox, --webkit or both"; exit 2 ;;
  esac
done
if [ "$firefox" = yes ]; then
  add_missing_packages firefox-esr libnss3-tools
fi
# WebKitGTK's MiniBrowser, its WebDriver (the one way to trust a certificate for one WebKitGTK session) and
# Xvfb (MiniBrowser has no headless mode), only with `--webkit`: 75 packages, about 250 MB, 20-40 s here.
if [ "$webkit" = yes ]; then
  add_missing_packages libwebkit2gtk-4.1-0 xvfb webkit2gtk-driver
fi
install_missing "chromium, chromium-driver and npm present$([ "$firefox" = yes ] && echo ', firefox-esr and certutil too')$([ "$webkit" = yes ] && echo ', WebKitGTK, its driver and Xvfb too')"

# wasm-bindgen-cli must be exactly the wasm-bindgen of Cargo.lock, and Trunk.toml must pin the same.
WBG_VERSION=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$WBG_VERSION" ]; then
  log "no wasm-bindgen in Cargo.lock: run cargo update first"; exit 1
fi
if ! grep -q "^wasm_bindgen = \"$WBG_VERSION\"" Trunk.toml; then
  log "Trunk.toml pins another wasm_bindgen than Cargo.lock's $WBG_VERSION: make them equal"; exit 1
fi
# The page's tools are built for speed of building, not of running: they run for seconds, and a release
# profile's optimisation and LTO are most of their build time. One target folder for both, so the crates they
# share compile once where their settings agree. `tool_build LEVEL ARGS`: LEVEL is the optimisation level.
# wasm-bindgen works through the page's 2.5 MB of wasm (and runs the wasm tests): opt-level 1. trunk only
# orders the build, hashes and copies: opt-level 0, measured here 2 min 28 s to build against 3 min 37 s at 1,
# and the page's build took 37.6 s with either.
tool_build() {
  local level=$1
  shift
  CARGO_PROFILE_RELEASE_OPT_LEVEL=$level CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256 \
    CARGO_PROFILE_RELEASE_DEBUG=false CARGO_TARGET_DIR="$(pwd)/.tools/tool-build" cargo install --force "$@"
}
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WBG_VERSION" ] || ! command -v wasm-bindgen-test-runner >/dev/null; then
  log "installing wasm-bindgen-cli $WBG_VERSION"
  # Not --locked: its lockfile names a dependency version the registry no longer serves.
  tool_build 1 wasm-bindgen-cli --version "$WBG_VERSION"
else
  log "wasm-bindgen-cli $WBG_VERSION present"
fi

if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  log "installing trunk $TRUNK_VERSION"
  # trunk 0.22 needs a newer rustc.
  tool_build 0 --locked trunk --version "$TRUNK_VERSION"
else
  log "trunk $TRUNK_VERSION present"
fi

if ! "$BINARYEN_DIR/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -q "version $BINARYEN_VERSION "; then
  log "installing binaryen $BINARYEN_VERSION (wasm-opt) from npm into $BINARYEN_DIR"
  npm install --prefix "$BINARYEN_DIR" --no-audit --no-fund "binaryen@$BINARYEN_VERSION" >/dev/null
else
  log "wasm-opt $BINARYEN_VERSION present"
fi

# terser minifies the page's JavaScript (wasm-bindgen's glue is 50 KB as generated; trunk minifies only HTML
# and CSS): about 3 KB gzip of the page's 200 KB budget.
if [ "$("$TERSER_DIR/node_modules/.bin/terser" --version 2>/dev/null)" != "terser $TERSER_VERSION" ]; then
  log "installing terser $TERSER_VERSION from npm into $TERSER_DIR"
  npm install --prefix "$TERSER_DIR" --no-audit --no-fund "terser@$TERSER_VERSION" >/dev/null
else
  log "terser $TERSER_VERSION present"
fi

# axe-core, the accessibility checker the browser end-to-end tests run in the page and the HTML report.
axe_version() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$AXE_DIR/node_modules/axe-core/package.json" 2>/dev/null; }
if [ "$(axe_version)" != "$AXE_VERSION" ]; then
  log "installing axe-core $AXE_VERSION from npm into $AXE_DIR"
  npm install --prefix "$AXE_DIR" --no-audit --no-fund "axe-core@$AXE_VERSION" >/dev/null
else
  log "axe-core $AXE_VERSION present"
fi
