#!/usr/bin/env bash
# Builds the page for release (index.html → dist/) with the pinned tools, then prints its size and checks the
# budget. Run scripts/setup-web.sh first (scripts/test.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned wasm-opt and the cargo-installed wasm-bindgen come first, so trunk finds them and downloads nothing.
export PATH="$PWD/.tools/binaryen/node_modules/.bin:$HOME/.cargo/bin:$PATH"
trunk build --release --public-url ./ "$@"
bash scripts/page-size.sh
