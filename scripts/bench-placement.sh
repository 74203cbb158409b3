#!/usr/bin/env bash
# Benchmark figures (not a test): how CPU placement changes the rates, and which placement gives the most
# repeatable comparison between clients. Rounds interleave the three placements so drift hits each alike.
# Usage: scripts/bench-placement.sh [ROUNDS] [N] [CLIENTS]   (defaults: 5 rounds, 2000 requests, curl,ureq,raw)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
N=${2:-2000}
CLIENTS=${3:-curl,ureq,raw}
bash scripts/setup.sh
cargo build --release -p httpbench --quiet
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for round in $(seq "$ROUNDS"); do
  for pin in same split none; do
    target/release/httpbench -n "$N" --warmup 200 --clients "$CLIENTS" --mode both --pin "$pin" --format csv \
      --no-progress 2>/dev/null | tail -n +2 | sed "s/^/$pin,$round,/" >>"$out" || true
  done
  echo "round $round done" >&2
done
# Per placement and case: mean wall rate, coefficient of variation across rounds; then the spread of each
# case's rate relative to the first client's (the comparison a user reads), as CV of the ratio.
awk -F, '
  { pin=$1; r=$2; c=$3; v=$12; key=pin SUBSEP c; s[key]+=v; q[key]+=v*v; n[key]++; rate[pin,r,c]=v;
    if (!(c in seen)) { seen[c]=1; cases[++k]=c } pins[pin]=1; rounds[r]=1 }
  END {
    printf "%-6s %-14s %12s %8s %14s\n", "pin", "case", "mean req/s", "CV", "CV of ratio"
    split("same split none", order, " ")
    for (pi=1; pi<=3; pi++) { p=order[pi]; base=cases[1]; if (base ~ /\/reuse$/) {} 
      for (i=1; i<=k; i++) { c=cases[i]; key=p SUBSEP c; m=s[key]/n[key]; var=q[key]/n[key]-m*m; if (var<0) var=0;
        # ratio of this case to the first case of the same mode in the same round
        split(c, parts, "/"); ref=""; for (j=1;j<=k;j++) { split(cases[j], pp, "/"); if (pp[2]==parts[2]) { ref=cases[j]; break } }
        rs=0; rq=0; rn=0; for (r in rounds) { if (rate[p,r,ref] > 0) { x=rate[p,r,c]/rate[p,r,ref]; rs+=x; rq+=x*x; rn++ } }
        rm=rs/rn; rv=rq/rn-rm*rm; if (rv<0) rv=0;
        cv=100*sqrt(var)/m; cr=(rm>0?100*sqrt(rv)/rm:0); tcv[p]+=cv; if (c!=ref) { tcr[p]+=cr; ncr[p]++ } ncv[p]++
        printf "%-6s %-14s %12.0f %7.1f%% %13.1f%%\n", p, c, m, cv, cr } }
    print ""
    for (pi=1; pi<=3; pi++) { p=order[pi]; printf "%-6s mean CV of rates %5.1f%%   mean CV of ratios to the first client %5.1f%%\n", p, tcv[p]/ncv[p], tcr[p]/ncr[p] }
  }' "$out"
