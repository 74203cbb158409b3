#!/usr/bin/env bash
# Benchmark figures (not a test): httpbench's `raw` client against independent tools on the same server, in
# one interleaved run: wrk -c1 -t1 (keep-alive) vs raw/reuse, ab -c1 (a new connection per request) vs
# raw/fresh. Every client runs on CPU 0 and the server on CPU 1 (taskset), so placement is equal for all.
# Goal: raw within 15% of wrk and of ab. Usage: scripts/bench-crosscheck.sh [ROUNDS] [N]  (defaults 5, 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
N=${2:-20000}
HTTPBENCH_EXTRA_APT="wrk apache2-utils" bash scripts/setup.sh
cargo build --release -p httpbench --quiet
BIN=target/release/httpbench
ncpu=$(nproc)
client_cpu=0
server_cpu=$(( ncpu > 1 ? 1 : 0 ))

work=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
taskset -c "$server_cpu" "$BIN" serve --port 0 --threads 1 >"$work/serve.out" &
pid=$!
for _ in $(seq 50); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$work/serve.out")
echo "server: $url on CPU $server_cpu; clients on CPU $client_cpu; $ROUNDS rounds"

printf '%-6s %12s %12s %7s %12s %12s %7s\n' round "wrk req/s" "raw/reuse" ratio "ab req/s" "raw/fresh" ratio
for round in $(seq "$ROUNDS"); do
  wrk_rate=$(taskset -c "$client_cpu" wrk -c1 -t1 -d3s "$url" | awk '/Requests\/sec/ { print $2 }')
  ab_rate=$(taskset -c "$client_cpu" ab -q -c1 -n "$((N / 4))" "$url" 2>/dev/null | awk '/Requests per second/ { print $4 }')
  csv=$(taskset -c "$client_cpu" "$BIN" run "$url" --clients raw --mode both -n "$N" --rounds 1 --warmup 500 \
        --pin none --format csv --no-progress 2>/dev/null)
  fresh=$(echo "$csv" | awk -F, '$1 == "raw/fresh" { print $10 }')
  reuse=$(echo "$csv" | awk -F, '$1 == "raw/reuse" { print $10 }')
  echo "$round $wrk_rate $reuse $ab_rate $fresh" >>"$work/rows"
  awk -v r="$round" -v w="$wrk_rate" -v ru="$reuse" -v a="$ab_rate" -v f="$fresh" 'BEGIN {
    printf "%-6s %12.0f %12.0f %7.2f %12.0f %12.0f %7.2f\n", r, w, ru, ru / w, a, f, f / a }'
done
awk '{ w += $2; ru += $3; a += $4; f += $5; n++ } END {
  printf "%-6s %12.0f %12.0f %7.2f %12.0f %12.0f %7.2f\n", "mean", w/n, ru/n, ru/w, a/n, f/n, f/a
  printf "\nraw/reuse vs wrk: %.2f   raw/fresh vs ab: %.2f   (goal: each within 0.85-1.15)\n", ru/w, f/a }' "$work/rows"
