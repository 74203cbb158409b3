#!/usr/bin/env bash
# Benchmark figures (not a test): how often `httpbench history` finds a change point where there is none, on
# this machine. Runs one plan RUNS times against `httpbench serve` (nothing changes between runs) into a fresh
# history, then resamples each series into 100 noise series of 30 runs (cli/benches/false_alarms.rs) and counts
# those with a change point. Also the real history's own change points (there should be none).
# Usage: scripts/bench-history.sh [RUNS] [N]   (defaults: 40 runs, 2000 requests per case)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-40}
N=${2:-2000}
bash scripts/setup.sh
cargo build --release -p httpbench --quiet
dir=$(mktemp -d)
serve_pid=
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; rm -rf "$dir"' EXIT
bin=target/release/httpbench
"$bin" serve --port 0 --quiet >"$dir/serve.txt" &
serve_pid=$!
for _ in $(seq 100); do grep -q '^listening on ' "$dir/serve.txt" && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$dir/serve.txt")
[ -n "$url" ] || { echo "bench-history: httpbench serve did not start" >&2; exit 1; }
for i in $(seq "$RUNS"); do
  if ! "$bin" run "$url" -n "$N" --rounds 5 --clients curl,raw --mode reuse --no-progress --format csv \
    --history "$dir/noise.db" --commit "run$i" >/dev/null 2>"$dir/run.err"; then
    cat "$dir/run.err" >&2
    exit 1
  fi
  echo "run $i of $RUNS done" >&2
done
"$bin" history "$dir/noise.db"
"$bin" history "$dir/noise.db" --format json >"$dir/noise.json"
cargo bench -p httpbench --bench false_alarms --quiet -- "$dir/noise.json"
