#!/usr/bin/env bash
# Installs httpbench as a user would (`cargo install --path cli --root DIR`, with the page built in dist/ so it
# goes inside the binary), then, from an empty folder with no checkout and no dist/, checks that the installed
# binary serves its page (`serve` says it is built in; /app/ answers the page) and that `run --browser -n 50`
# reports native and Chromium cases. Exit 0 when all of that holds; run by scripts/test.sh after the release
# build, whose artifacts `cargo install` reuses.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
[ -f dist/index.html ] || { echo "install-check: no dist/index.html: run scripts/build-page.sh first" >&2; exit 1; }
root=$repo/target/install-check
rm -rf "$root"
start=$(date +%s)
cargo install --path cli --root "$root" --locked --target-dir "$repo/target" --quiet
echo "install-check: cargo install took $(( $(date +%s) - start )) s"
away=$(mktemp -d)
trap 'rm -rf "$away"; kill "${serve_pid:-}" 2>/dev/null || true' EXIT
cd "$away"
"$root/bin/httpbench" serve --port 0 >serve.out 2>serve.err &
serve_pid=$!
for _ in $(seq 100); do grep -q '^listening on ' serve.out && break; sleep 0.1; done
base=$(sed -n 's/^listening on //p' serve.out)
[ -n "$base" ] || { cat serve.err >&2; echo "install-check: serve did not start" >&2; exit 1; }
grep -q '(built into this binary)' serve.err || { cat serve.err >&2; echo "install-check: serve found no built-in page" >&2; exit 1; }
curl -fsS "${base}app/" | grep -q '<title>' || { echo "install-check: ${base}app/ did not answer the page" >&2; exit 1; }
kill "$serve_pid"
"$root/bin/httpbench" run --browser -n 50 --warmup 5 --clients raw --no-progress >run.out 2>run.err || {
  cat run.err >&2
  echo "install-check: run --browser failed" >&2
  exit 1
}
cat run.out
grep -Eq '^native/raw/[^ ]+ +[0-9]' run.out && grep -Eq '^chromium/fetch/[^ ]+ +[0-9]' run.out || {
  echo "install-check: no native and Chromium rows in the report" >&2
  exit 1
}
echo "install-check: ok, from $away with no checkout"
