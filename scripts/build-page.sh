#!/usr/bin/env bash
# Builds the page for release (index.html → dist/) with the pinned tools, then prints its size and checks the
# budget. Run scripts/setup-web.sh first (scripts/test.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned wasm-opt and the cargo-installed wasm-bindgen come first, so trunk finds them and downloads nothing.
export PATH="$PWD/.tools/binaryen/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# Source paths end up in the wasm (panic locations): remapped to short fixed prefixes, the page's size no longer
# depends on where the checkout and the cargo registry are (a CI clone under a longer path built ~700 bytes
# gzip bigger), and it is smaller everywhere.
remap="--remap-path-prefix=$PWD=/w"
for d in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do remap="$remap --remap-path-prefix=${d%/}=/c"; done
std_src="/rustc/$(rustc -vV | sed -n 's/^commit-hash: //p')"
export RUSTFLAGS="${RUSTFLAGS:-} $remap --remap-path-prefix=$std_src=/r"
trunk build --release --public-url ./ "$@"
# Measure what was built: `--dist DIR` among the arguments builds into DIR.
dist=dist
prev=
for a in "$@"; do [ "$prev" = --dist ] && dist=$a; case $a in --dist=*) dist=${a#--dist=} ;; esac; prev=$a; done
DIST=$dist bash scripts/page-size.sh
