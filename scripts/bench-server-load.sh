#!/usr/bin/env bash
# Load test of `httpbench serve` (a script, not a unit test): wrk with many connections against the target
# server on loopback, the server's resident memory sampled every second, errors counted.
# Usage: scripts/bench-server-load.sh [CONNECTIONS] [SECONDS]   (defaults 256 and 30)
set -euo pipefail
cd "$(dirname "$0")/.."
CONNS=${1:-256}
SECS=${2:-30}
HTTPBENCH_EXTRA_APT="wrk" bash scripts/setup.sh
cargo build --release -p httpbench --quiet
work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
target/release/httpbench serve --port 0 >"$work/serve.out" &
pid=$!
for _ in $(seq 50); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$work/serve.out")
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$pid/status"; }
echo "server $url (pid $pid), RSS before: $(rss) KiB; wrk -c$CONNS -t2 -d${SECS}s"
( for _ in $(seq "$SECS"); do sleep 1; rss; done ) >"$work/rss" &
sampler=$!
wrk -c"$CONNS" -t2 -d"${SECS}s" --latency "$url" | tee "$work/wrk.out"
wait "$sampler" || true
for path in "bytes/65536" "status/404"; do
  echo "--- $path"
  wrk -c64 -t2 -d5s "$url$path" | grep -E "Requests/sec|Non-2xx|Socket errors" || true
done
sort -n "$work/rss" | awk 'NR == 1 { min = $1 } { max = $1; v[NR] = $1 } END {
  printf "server RSS during the %d s run: min %d KiB, max %d KiB, first %d KiB, last %d KiB\n", NR, min, max, v[1], v[NR] }'
echo "RSS after: $(rss) KiB"
if grep -q "Socket errors" "$work/wrk.out"; then echo "ERRORS during the main run"; exit 1; fi
echo "no socket errors, no non-2xx responses in the main run"
