#!/usr/bin/env bash
# Every check and every test, exactly what CI runs: set-up, formatting, clippy, the wasm32 build of the
# shared crate and the page crate, then all native tests (unit, snapshot, Perl golden, end to end).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

step() { printf '\n== %s\n' "$*" >&2; }

step "cargo fmt --check"
cargo fmt --all --check
step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --quiet -- -D warnings
step "wasm32 build of shared and web"
cargo check -p httpbench-shared -p httpbench-web --target wasm32-unknown-unknown --quiet
step "tests"
cargo test --workspace --no-fail-fast 2>&1 | tee target/test-output.txt
# cargo's own summary lines, added up: one line that says what ran.
awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "\ntests: %d passed, %d failed, %d skipped\n", p, f, i; exit (f > 0) }' target/test-output.txt
