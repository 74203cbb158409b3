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
# --minify: trunk minifies the HTML (its inline scripts too) and the CSS.
trunk build --release --minify true --public-url ./ "$@"
# Measure what was built: `--dist DIR` among the arguments builds into DIR.
dist=dist
prev=
for a in "$@"; do [ "$prev" = --dist ] && dist=$a; case $a in --dist=*) dist=${a#--dist=} ;; esac; prev=$a; done
# The JavaScript (wasm-bindgen's glue, the snippets, the service worker), minified in place by terser: names
# inside a module are shortened, exports and the property names the wasm imports by are kept. index.html
# preloads the modules with integrity hashes, so each minified file's hash is put in its place.
sri() { python3 -c 'import base64, hashlib, sys; print(base64.b64encode(hashlib.sha384(open(sys.argv[1], "rb").read()).digest()).decode())' "$1"; }
terser=.tools/terser/node_modules/.bin/terser
[ -x "$terser" ] || { echo "build-page: no terser in .tools/terser: run scripts/setup-web.sh" >&2; exit 1; }
find "$dist" -name '*.js' -print0 | while IFS= read -r -d '' js; do
  old=$(sri "$js")
  "$terser" "$js" --module --compress --mangle --output "$js.min" && mv "$js.min" "$js"
  new=$(sri "$js")
  sed -i "s|sha384-$old|sha384-$new|" "$dist/index.html"
done
# Each text asset beside its gzip (`file.gz`, `gzip -9`): `httpbench serve` sends it to a browser that takes
# gzip, as nginx's gzip_static does (the wasm: 290 KB instead of 700). Static hosts compress on their own.
find "$dist" -type f \( -name '*.wasm' -o -name '*.js' -o -name '*.css' -o -name '*.html' \) -print0 |
  xargs -0 -r gzip -9 -k -f -n
DIST=$dist bash scripts/page-size.sh
