#!/usr/bin/env bash
# Benchmark figures (not a test): every client's wall rate in both modes against httpbench's embedded server
# and against nginx serving the same 612-byte page, interleaved round by round so machine drift hits both
# targets alike. Usage: scripts/bench-clients.sh [ROUNDS] [N]   (defaults: 5 rounds of 2000 requests per case)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
N=${2:-2000}
HTTPBENCH_EXTRA_APT="nginx-light" bash scripts/setup.sh
cargo build --release -p httpbench --quiet
BIN=target/release/httpbench

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# The embedded server (one worker thread, what `httpbench run` uses) and nginx with the same page.
source scripts/servers.sh
start_embedded "$work"
start_nginx "$work"
embedded=$EMB
nginx_url=$NGX

echo "embedded: $embedded   nginx: $nginx_url   rounds: $ROUNDS   requests per case per round: $N"
for round in $(seq "$ROUNDS"); do
  for target in embedded nginx; do
    url=$embedded; [ "$target" = nginx ] && url=$nginx_url
    "$BIN" run "$url" -n "$N" --warmup 100 --clients all --mode both --format csv --no-progress 2>/dev/null \
      | tail -n +2 | sed "s/^/$target,$round,/" >>"$work/rates.csv" || true
  done
  echo "round $round done" >&2
done

# Columns after the prefix: case(3) ... http_version(7) ... ok(9) failed(10) ... rate_wall(12).
echo
printf '%-22s %14s %14s %8s   %s\n' "case" "embedded req/s" "nginx req/s" "ratio" "(mean of $ROUNDS rounds; min–max)"
awk -F, '{ key=$3; t=$1; r=$12; s[t,key]+=r; n[t,key]++;
           if (!((t,key) in lo) || r<lo[t,key]) lo[t,key]=r; if (r>hi[t,key]) hi[t,key]=r;
           if (!(key in seen)) { seen[key]=1; order[++k]=key } }
     END { for (i=1;i<=k;i++) { c=order[i]; e=s["embedded",c]/n["embedded",c]; x=s["nginx",c]/n["nginx",c];
             printf "%-22s %14.0f %14.0f %8.2f   %.0f–%.0f vs %.0f–%.0f\n", c, e, x, (x>0?e/x:0),
               lo["embedded",c], hi["embedded",c], lo["nginx",c], hi["nginx",c] } }' "$work/rates.csv"
