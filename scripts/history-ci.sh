#!/usr/bin/env bash
# The run history as a CI job keeps it, on this machine or a CI runner.
#
#   scripts/history-ci.sh append DB [LABEL]   run one plan and add it to the history DB (created if missing),
#                                            labelled LABEL (default: the current commit), then write the
#                                            dashboard beside it (DB's folder/index.html) and print the table
#   scripts/history-ci.sh comment DB [GATE_MD] [N]
#                                            the Markdown of a pull-request comment on stdout: the gate's
#                                            verdict (GATE_MD, the file scripts/gate-ci.sh's Markdown went to,
#                                            if given) and the N newest change points of the history (default 5)
# Environment:
#   HTTPBENCH_HISTORY_PLAN  the `run` arguments of the plan (default below; keep it fixed: another plan starts
#                           other series)
#   HTTPBENCH_NEW_BIN       the binary to use instead of building one
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf 'history-ci: %s\n' "$*" >&2; }
usage() { log "usage: scripts/history-ci.sh append DB [LABEL] | comment DB [GATE_MD] [N]"; exit 2; }
[ $# -ge 2 ] || usage
action=$1 db=$2
PLAN=${HTTPBENCH_HISTORY_PLAN:--n 2000 --rounds 5 --warmup 200 --clients curl,ureq,reqwest,raw --mode both --pin split}

bin=${HTTPBENCH_NEW_BIN:-}
if [ -z "$bin" ]; then
  bash scripts/setup.sh
  log "building httpbench (release)"
  cargo build --release -p httpbench --quiet
  bin=target/release/httpbench
fi

case "$action" in
  append)
    label=${3:-$(git rev-parse --short HEAD)}
    mkdir -p "$(dirname "$db")"
    read -r -a plan <<<"$PLAN"
    log "run ${plan[*]} --history $db --commit $label"
    "$bin" run "${plan[@]}" --no-progress --format csv --history "$db" --commit "$label" >/dev/null
    "$bin" history "$db" --export-html "$(dirname "$db")/index.html"
    ;;
  comment)
    gate_md=${3:-}
    nearest=${4:-5}
    if [ -n "$gate_md" ] && [ -s "$gate_md" ]; then
      cat "$gate_md"
      echo
    fi
    if [ -f "$db" ]; then
      "$bin" history "$db" --format markdown --nearest "$nearest"
    else
      echo "No run history yet ($db): the first push to the main branch starts it."
    fi
    ;;
  *) usage ;;
esac
