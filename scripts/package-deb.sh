#!/usr/bin/env bash
# Builds the Debian package of httpbench (target/debian/httpbench_VERSION-1_ARCH.deb) with cargo-deb, then
# checks it as a user meets it: unpacked into a throwaway root, the binary runs (and serves its built-in page
# when dist/ was built), the man page reads in man and the completions are where bash, zsh and fish look, and
# the package names the browsers and interpreters of the optional clients as Suggests. cargo-deb (pinned) is
# installed into .tools/cargo-deb when missing or at another version. Run by scripts/test.sh after the release
# build, whose binary it packages.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
CARGO_DEB_VERSION=3.6.2
deb_bin=.tools/cargo-deb/bin/cargo-deb
if [ "$("$deb_bin" --version 2>/dev/null | awk '{print $2}')" != "$CARGO_DEB_VERSION" ]; then
  echo "package-deb: installing cargo-deb $CARGO_DEB_VERSION into .tools/cargo-deb (once)"
  start=$(date +%s)
  cargo install --locked --quiet --force cargo-deb --version "$CARGO_DEB_VERSION" --no-default-features \
    --root .tools/cargo-deb
  echo "package-deb: cargo-deb built in $(( $(date +%s) - start )) s"
fi
# dpkg-shlibdeps (dpkg-dev) works out the package's Depends from the binary's libraries.
# Through setup.sh, which installs only what is missing.
command -v dpkg-shlibdeps >/dev/null || HTTPBENCH_EXTRA_APT=dpkg-dev bash scripts/setup.sh
cargo build --release -p httpbench --quiet
mkdir -p target/package/completions
target/release/httpbench man | gzip -9 -n >target/package/httpbench.1.gz
target/release/httpbench completions bash >target/package/completions/httpbench
target/release/httpbench completions zsh >target/package/completions/_httpbench
target/release/httpbench completions fish >target/package/completions/httpbench.fish
# Stripped: the release profile keeps line tables for profiling, which a user's package does not need.
deb=$(PATH="$repo/.tools/cargo-deb/bin:$PATH" cargo deb -p httpbench --no-build --strip --quiet | tail -n 1)
[ -f "$deb" ] || { echo "package-deb: cargo deb made no package ($deb)" >&2; exit 1; }
echo "package-deb: $deb ($(du -k "$deb" | cut -f1) KB)"

# As a user meets it: unpacked into a throwaway root, run from an unrelated folder.
root=$(mktemp -d)
trap 'rm -rf "$root"; kill "${serve_pid:-}" 2>/dev/null || true' EXIT
dpkg-deb -x "$deb" "$root"
fail() { echo "package-deb: $*" >&2; exit 1; }
info=$(dpkg-deb -f "$deb" Package Version Depends Suggests)
echo "$info"
grep -q '^Depends: .*libc6' <<<"$info" || fail "no Depends on libc6 worked out"
grep -q '^Suggests: .*chromium' <<<"$info" || fail "no Suggests for the browsers"
cd "$root"
"$root/usr/bin/httpbench" --version | grep -q '^httpbench ' || fail "the binary does not run"
[ -s usr/share/bash-completion/completions/httpbench ] && [ -s usr/share/zsh/vendor-completions/_httpbench ] &&
  [ -s usr/share/fish/vendor_completions.d/httpbench.fish ] || fail "completions missing"
bash -c "source usr/share/bash-completion/completions/httpbench && complete -p httpbench" >/dev/null ||
  fail "the bash completion does not load"
MANWIDTH=100 man -l usr/share/man/man1/httpbench.1.gz 2>/dev/null | grep -q 'httpbench' || fail "the man page does not read"
"$root/usr/bin/httpbench" run -n 20 --warmup 2 --clients raw --mode reuse --no-progress | grep -Eq '^raw +[0-9]' ||
  fail "the packaged binary does not measure"
if [ -f "$repo/dist/index.html" ]; then
  "$root/usr/bin/httpbench" serve --port 0 >serve.out 2>serve.err &
  serve_pid=$!
  for _ in $(seq 100); do grep -q '^listening on ' serve.out && break; sleep 0.1; done
  grep -q '(built into this binary)' serve.err || fail "the packaged binary has no page: $(cat serve.err)"
fi
echo "package-deb: ok, unpacked and run from $root"
