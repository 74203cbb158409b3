#!/usr/bin/env bash
# Every check and every test, exactly what CI runs: set-up (native and page tools), formatting, the page's release
# build with its size budget, clippy (native, and wasm32 for shared and the page), the page's tests in
# headless Chromium against a real `httpbench serve`, then all native tests (unit, snapshot, Perl golden, end
# to end, including the page end to end in Chromium), the README's main command, and an install as a user's.
set -euo pipefail
cd "$(dirname "$0")/.."
# With every command client's runtime: the command-client tests run each of them; man-db, which renders the
# generated man page in its test; dpkg-dev, whose dpkg-shlibdeps gives the Debian package its Depends; and
# Apache Otava, the history's change points' independent check; iproute2 and iptables, for --link's tests (as root).
HTTPBENCH_EXTRA_APT="${HTTPBENCH_EXTRA_APT:-} man-db dpkg-dev" bash scripts/setup.sh --runtimes --otava --link
# The browser tests run in Firefox ESR and WebKitGTK too.
bash scripts/setup-web.sh --firefox --webkit
# The pinned wasm-opt, wasm-bindgen and trunk (setup-web.sh installs them there).
export PATH="$PWD/.tools/binaryen/node_modules/.bin:$PWD/.tools/runtimes/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER=/usr/bin/chromedriver

step() { printf '\n== %s\n' "$*" >&2; }

step "cargo fmt --check"
cargo fmt --all --check
# The page first: the CLI's build script embeds dist/ when it is there, and watches it only when it is (cargo
# would re-run a build script on every build while a path it watches is missing), so the CLI's first build
# must find it for the tests' binary to carry the page.
step "page: trunk build --release, size budget"
bash scripts/build-page.sh
step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings
step "wasm32 build of shared and web (and clippy -D warnings of web with its optional reqwest client)"
cargo check -p httpbench-shared -p httpbench-web --target wasm32-unknown-unknown --quiet
cargo clippy -p httpbench-shared -p httpbench-web --target wasm32-unknown-unknown --all-targets --features reqwest \
  --quiet -- -D warnings

step "page tests in headless Chromium (wasm-bindgen-test) against httpbench serve"
mkdir -p target
cargo build -p httpbench --quiet
target/debug/httpbench serve --port 0 >target/serve-for-wasm-tests.txt &
serve_pid=$!
trap 'kill "$serve_pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q '^listening on ' target/serve-for-wasm-tests.txt && break; sleep 0.1; done
target_url=$(sed -n 's/^listening on //p' target/serve-for-wasm-tests.txt)
[ -n "$target_url" ] || { echo "httpbench serve did not start" >&2; exit 1; }
wasm_status=0
# With the reqwest feature, so the client the default page leaves out (size budget) is tested too.
HTTPBENCH_TARGET_URL="$target_url" cargo test -p httpbench-web --target wasm32-unknown-unknown --features reqwest \
  --no-fail-fast 2>&1 |
  tee target/test-output-wasm.txt || wasm_status=$?
kill "$serve_pid" 2>/dev/null || true

step "tests"
native_status=0
# --include-ignored: the tests a plain `cargo test` ignores need the page, Chromium and the Perl modules, which
# this script has just set up and built; here they must run (and fail if anything they need is missing).
cargo test --workspace --no-fail-fast -- --include-ignored 2>&1 | tee target/test-output.txt || native_status=$?

# The README's main command exactly as a user types it, with a short plan: set-up, the release build, the
# native clients and every browser in one report. It once failed on a fresh machine with nothing running it.
step "README: scripts/run.sh --browser all -n 50"
readme_status=0
bash scripts/run.sh --browser all -n 50 >target/readme-run.txt 2>target/readme-run.err || readme_status=$?
cat target/readme-run.txt
# One README test, counted with the others: it passed when it exited 0 and reported every engine's cases.
readme_ok=0
# Each engine's rows in the statistics table (`chromium/fetch/reuse   557  [494, 634] ...`), and the headline.
row() { grep -Eq "^$1/[^ ]+ +[0-9]" target/readme-run.txt; }
if [ "$readme_status" -eq 0 ] && row chromium && row firefox && row webkit &&
  grep -q '^Headline: ' target/readme-run.txt; then
  readme_ok=1
  echo "test result: ok. 1 passed; 0 failed; 0 ignored (scripts/run.sh --browser all -n 50)" >target/test-output-readme.txt
else
  tail -n 30 target/readme-run.err >&2
  echo "test result: FAILED. 0 passed; 1 failed; 0 ignored (scripts/run.sh --browser all -n 50 exited $readme_status)" >target/test-output-readme.txt
fi

# Installed like its peers: `cargo install --path cli` builds the page (built above) into the binary, which then
# serves it and runs --browser from a folder with no checkout. The release build above is reused (same target
# folder, profile and lock).
step "install: cargo install --path cli, then serve and run --browser from an unrelated folder"
install_ok=0
if bash scripts/install-check.sh >target/install-check.txt 2>&1; then
  install_ok=1
  echo "test result: ok. 1 passed; 0 failed; 0 ignored (cargo install --path cli, run --browser elsewhere)" >target/test-output-install.txt
else
  tail -n 30 target/install-check.txt >&2
  echo "test result: FAILED. 0 passed; 1 failed; 0 ignored (cargo install --path cli, run --browser elsewhere)" >target/test-output-install.txt
fi

# The Debian package (cargo-deb), unpacked into a throwaway root and run there.
step "package: cargo deb, unpacked and run"
deb_ok=0
if bash scripts/package-deb.sh >target/package-deb.txt 2>&1; then
  deb_ok=1
  echo "test result: ok. 1 passed; 0 failed; 0 ignored (the Debian package, unpacked and run)" >target/test-output-deb.txt
else
  tail -n 30 target/package-deb.txt >&2
  echo "test result: FAILED. 0 passed; 1 failed; 0 ignored (the Debian package, unpacked and run)" >target/test-output-deb.txt
fi
cat target/package-deb.txt

if [ "$wasm_status" -ne 0 ] || [ "$native_status" -ne 0 ] || [ "$readme_ok" -ne 1 ] || [ "$install_ok" -ne 1 ] ||
  [ "$deb_ok" -ne 1 ]; then
  echo "tests failed (page tests: exit $wasm_status, native tests: exit $native_status, README command: exit $readme_status, install: $install_ok of 1, package: $deb_ok of 1)" >&2
fi
# cargo's own summary lines of both runs, added up: one line that says what ran.
awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "\ntests: %d passed, %d failed, %d skipped\n", p, f, i; exit (f > 0) }' \
  target/test-output-wasm.txt target/test-output.txt target/test-output-readme.txt target/test-output-install.txt \
  target/test-output-deb.txt
[ "$wasm_status" -eq 0 ] && [ "$native_status" -eq 0 ] && [ "$readme_ok" -eq 1 ] && [ "$install_ok" -eq 1 ] &&
  [ "$deb_ok" -eq 1 ]
