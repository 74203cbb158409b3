#!/usr/bin/env bash
# Benchmark figures (not a test): how often a regression gate cries wolf on this machine. Runs one plan RUNS
# times back to back (nothing changes between runs), then gates each run against the one before at each of
# THRESHOLDS, by wall rate and by CPU per request, and prints how many of the comparisons a gate would have
# failed, beside what a naive gate on the bare ratio (mean rate down by more than the threshold) would have, and
# what the CI recipe's pooled gate (two runs per side, alternating: runs k, k+2 --against k+1, k+3) would have.
# Usage: scripts/bench-gate.sh [RUNS] [THRESHOLDS] [N]   (defaults: 10 runs, "5% 10%", 2000 requests per case)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-10}
THRESHOLDS=${2:-5% 10%}
N=${3:-2000}
bash scripts/setup.sh
cargo build --release -p httpbench --quiet
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bin=target/release/httpbench
for i in $(seq "$RUNS"); do
  "$bin" run -n "$N" --rounds 5 --clients curl,ureq,reqwest,raw --mode both --pin split --no-progress \
    --format csv --export-json "$dir/run$i.json" >/dev/null 2>&1 || true
  echo "run $i of $RUNS done" >&2
done
# Figures of the files, by small Python helpers (the machine's python3).
verdicts() { # FILE: cases judged, cases judged slower
  python3 -c 'import json, sys; g = json.load(open(sys.argv[1]))["gate"]["changes"]; print(len(g), sum(c["verdict"] == "slower" for c in g))' "$1"
}
naive() { # BEFORE AFTER THRESHOLD: cases whose mean wall rate fell by more than the threshold, spread ignored
  python3 -c '
import json, sys
t = float(sys.argv[3].rstrip("%")) / 100
a, b = (json.load(open(p)) for p in sys.argv[1:3])
rate = {(c["client"], c["mode"]): c["rate_wall"] for c in a["cases"]}
print(sum(1 for c in b["cases"] if (c["client"], c["mode"]) in rate and c["rate_wall"] < rate[(c["client"], c["mode"])] * (1 - t)))' "$@"
}
count() { python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$1"; }

for THRESHOLD in $THRESHOLDS; do
  pairs=0
  unset failed cases slower
  declare -A failed cases slower
  for i in $(seq 2 "$RUNS"); do
    pairs=$((pairs + 1))
    before=$dir/run$((i - 1)).json after=$dir/run$i.json
    for metric in rate cpu; do
      code=0
      "$bin" compare "$before" "$after" --fail-if-slower "$THRESHOLD" --metric "$metric" --format json \
        >"$dir/gate.json" 2>/dev/null || code=$?
      [ "$code" -eq 3 ] && failed[$metric]=$((${failed[$metric]:-0} + 1))
      read -r n s < <(verdicts "$dir/gate.json")
      cases[$metric]=$((${cases[$metric]:-0} + n))
      slower[$metric]=$((${slower[$metric]:-0} + s))
    done
    n=$(naive "$before" "$after" "$THRESHOLD")
    [ "$n" -gt 0 ] && failed[naive]=$((${failed[naive]:-0} + 1))
    cases[naive]=$((${cases[naive]:-0} + $(count "$after")))
    slower[naive]=$((${slower[naive]:-0} + n))
  done
  # Pooled, as scripts/gate-ci.sh gates: runs k, k+2 against k+1, k+3 (A B A B).
  for k in $(seq 1 $((RUNS - 3))); do
    for metric in rate cpu; do
      code=0
      "$bin" compare "$dir/run$k.json" "$dir/run$((k + 2)).json" --against "$dir/run$((k + 1)).json" \
        "$dir/run$((k + 3)).json" --fail-if-slower "$THRESHOLD" --metric "$metric" --format json \
        >"$dir/gate.json" 2>/dev/null || code=$?
      [ "$code" -eq 3 ] && failed[pooled-$metric]=$((${failed[pooled-$metric]:-0} + 1))
      read -r n s < <(verdicts "$dir/gate.json")
      cases[pooled-$metric]=$((${cases[pooled-$metric]:-0} + n))
      slower[pooled-$metric]=$((${slower[pooled-$metric]:-0} + s))
    done
  done
  printf '\n%d runs of one plan back to back, %d consecutive comparisons, gate at %s\n' "$RUNS" "$pairs" "$THRESHOLD"
  printf '%-34s %14s %18s\n' "gate" "failed gates" "cases judged slower"
  for row in "naive:naive (bare ratio of wall rates)" "rate:--metric rate (interval)" "cpu:--metric cpu (interval)"; do
    key=${row%%:*}
    printf '%-34s %8d of %-3d %10d of %-4d\n' "${row#*:}" "${failed[$key]:-0}" "$pairs" "${slower[$key]:-0}" "${cases[$key]:-0}"
  done
  for metric in rate cpu; do
    printf '%-34s %8d of %-3d %10d of %-4d\n' "pooled A B A B, --metric $metric" "${failed[pooled-$metric]:-0}" \
      $((RUNS - 3)) "${slower[pooled-$metric]:-0}" "${cases[pooled-$metric]:-0}"
  done
done
