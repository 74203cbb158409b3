#!/usr/bin/env bash
# The run history as a CI job keeps it, on this machine or a CI runner.
#
#   scripts/history-ci.sh append DB [LABEL]   run the plan and add it to the history DB (created if missing),
#                                            labelled LABEL (default: the current commit), then write the
#                                            dashboard beside it (DB's folder/index.html)
#   scripts/history-ci.sh comment DB [GATE_MD] [N]
#                                            the Markdown of a pull-request comment on stdout: the gate's
#                                            verdict (GATE_MD, the file scripts/gate-ci.sh wrote, if given) and
#                                            the N newest change points of the history (default 5)
# Paths are taken from the folder the script is called from.
# Environment:
#   HTTPBENCH_HISTORY_PLAN  the `run` arguments of the plan (default: the gate's, scripts/lib.sh's CI_PLAN;
#                           keep it fixed: another plan starts other series)
#   HTTPBENCH_NEW_BIN       the binary to use instead of building one
set -euo pipefail
SCRIPT_NAME=history-ci
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
usage() { log "usage: scripts/history-ci.sh append DB [LABEL] | comment DB [GATE_MD] [N]"; exit 2; }
[ $# -ge 2 ] || usage
action=$1
case "$action" in append | comment) ;; *) usage ;; esac
# Absolute before the cd below.
absolute() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
db=$(absolute "$2")
bin=${HTTPBENCH_NEW_BIN:+$(absolute "$HTTPBENCH_NEW_BIN")}
gate_md=${3:+$(absolute "${3:-}")}
label=${3:-}
cd "$(dirname "$0")/.."
PLAN=${HTTPBENCH_HISTORY_PLAN:-$CI_PLAN}

if [ -z "$bin" ]; then
  bash scripts/setup.sh
  log "building httpbench (release)"
  cargo build --release -p httpbench --quiet
  bin=$PWD/target/release/httpbench
fi

if [ "$action" = append ]; then
  label=${label:-$(git rev-parse --short HEAD)}
  mkdir -p "$(dirname "$db")"
  read -r -a plan <<<"$PLAN"
  log "run ${plan[*]} --history $db --commit $label"
  "$bin" run "${plan[@]}" --no-progress --format csv --history "$db" --commit "$label" >/dev/null
  "$bin" history "$db" --export-html "$(dirname "$db")/index.html"
else
  nearest=${4:-5}
  if [ -n "$gate_md" ] && [ -s "$gate_md" ]; then
    cat "$gate_md"
    echo
  fi
  if [ -s "$db" ]; then
    "$bin" history "$db" --format markdown --nearest "$nearest"
  else
    echo "No run history yet: the first push to the main branch starts it."
  fi
fi
