#!/usr/bin/env bash
# The page's size: every asset in dist/ raw and gzipped (gzip -9, as a static host would serve it), and the
# total against the budget of 300 KB gzip for the whole page (wasm + JS + CSS + HTML). Exits 1 over budget.
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=$((300 * 1024))
# DIST: another build's folder (scripts/build-page.sh --dist DIR measures DIR).
DIST=${DIST:-dist}
[ -f "$DIST/index.html" ] || { echo "page-size: $DIST/ is not built: run scripts/build-page.sh" >&2; exit 1; }
total_raw=0
total_gz=0
printf '%-48s %10s %10s\n' asset raw gzip
while IFS= read -r f; do
  raw=$(stat -c %s "$f")
  gz=$(gzip -9 -c "$f" | wc -c)
  total_raw=$((total_raw + raw))
  total_gz=$((total_gz + gz))
  printf '%-48s %10d %10d\n' "${f#"$DIST"/}" "$raw" "$gz"
# The gzip twins build-page.sh writes for `httpbench serve` are the same assets again, not more of the page.
done < <(find "$DIST" -type f ! -name '*.gz' | sort)
printf '%-48s %10d %10d\n' total "$total_raw" "$total_gz"
awk -v r="$total_raw" -v g="$total_gz" -v b=$((BUDGET / 1024)) \
  'BEGIN { printf "page size: %.1f KB raw, %.1f KB gzip (budget %d KB gzip)\n", r / 1024, g / 1024, b }'
if [ "$total_gz" -gt "$BUDGET" ]; then
  echo "page-size: over budget by $((total_gz - BUDGET)) bytes gzip" >&2
  exit 1
fi
