#!/usr/bin/env bash
# The regression gate as a CI job runs it, on this machine or a CI runner: build httpbench at the base ref and at
# the working tree, run one plan with each on the same machine (pinned, rounds interleaved), alternately (base,
# change, base, change: REPEAT times each, so drift between runs hits both sides and shows in their pooled
# spread), and gate the change against the base with `compare BASE... --against CHANGE... --fail-if-slower`. Exit 3 when a case got slower beyond the threshold, 0 when it
# passed; the Markdown verdict goes to DIR/verdict.md and to $GITHUB_STEP_SUMMARY when that is set (GitHub
# Actions), the text to stdout.
#
# Usage: scripts/gate-ci.sh [BASE_REF] [THRESHOLD]          (defaults: main, 5%)
# Environment:
#   HTTPBENCH_GATE_PLAN   the `run` arguments of the plan (default below; the same for both sides)
#   HTTPBENCH_GATE_METRIC rate, cpu, p50 or p99 (default rate; cpu is far less noisy on a shared runner)
#   HTTPBENCH_GATE_DIR    where the result files go (default target/gate)
#   HTTPBENCH_GATE_REPEAT runs per side, alternating (default 2)
#   HTTPBENCH_BASE_BIN, HTTPBENCH_NEW_BIN   binaries to use instead of building the two sides
set -euo pipefail
cd "$(dirname "$0")/.."
BASE_REF=${1:-main}
THRESHOLD=${2:-5%}
SCRIPT_NAME=gate-ci
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
PLAN=${HTTPBENCH_GATE_PLAN:-$CI_PLAN}
METRIC=${HTTPBENCH_GATE_METRIC:-rate}
DIR=${HTTPBENCH_GATE_DIR:-target/gate}
REPEAT=${HTTPBENCH_GATE_REPEAT:-2}
mkdir -p "$DIR"
log() { printf 'gate-ci: %s\n' "$*" >&2; }

new_bin=${HTTPBENCH_NEW_BIN:-}
base_bin=${HTTPBENCH_BASE_BIN:-}
if [ -z "$new_bin" ] || [ -z "$base_bin" ]; then
  bash scripts/setup.sh
fi
if [ -z "$new_bin" ]; then
  log "building the change (release)"
  cargo build --release -p httpbench --quiet
  new_bin=$DIR/httpbench-new
  cp target/release/httpbench "$new_bin"
fi
if [ -z "$base_bin" ]; then
  log "building the base, $BASE_REF (release), in a worktree of its own"
  src=$DIR/base-src
  git worktree remove --force "$src" 2>/dev/null || rm -rf "$src"
  git worktree add --detach "$src" "$BASE_REF" >/dev/null
  # Its own target folder beside ours, kept between runs so a second gate on the same base builds nothing.
  (cd "$src" && CARGO_TARGET_DIR="$PWD/../base-target" cargo build --release -p httpbench --quiet)
  base_bin=$DIR/httpbench-base
  cp "$DIR/base-target/release/httpbench" "$base_bin"
  git worktree remove --force "$src"
fi

read -r -a plan <<<"$PLAN"
base_files=() new_files=()
for i in $(seq "$REPEAT"); do
  log "base run $i of $REPEAT: $base_bin run ${plan[*]}"
  "$base_bin" run "${plan[@]}" --no-progress --format csv --export-json "$DIR/base-$i.json" >/dev/null
  log "change run $i of $REPEAT: $new_bin run ${plan[*]}"
  "$new_bin" run "${plan[@]}" --no-progress --format csv --export-json "$DIR/new-$i.json" >/dev/null
  base_files+=("$DIR/base-$i.json") new_files+=("$DIR/new-$i.json")
done

gate=("$new_bin" compare "${base_files[@]}" --against "${new_files[@]}" --fail-if-slower "$THRESHOLD" --metric "$METRIC")
# The Markdown verdict, kept for a pull-request comment (scripts/history-ci.sh comment) and the job summary.
"${gate[@]}" --format markdown >"$DIR/verdict.md" 2>/dev/null || true
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$DIR/verdict.md" >>"$GITHUB_STEP_SUMMARY"
fi
status=0
"${gate[@]}" || status=$?
log "gate exit $status (0 passed, 3 slower, 2 not comparable)"
exit "$status"
