#!/usr/bin/env bash
# The main job: set up what is missing, build httpbench in release mode, and benchmark curl, ureq and reqwest
# against the embedded target server. Arguments are passed to `httpbench` (e.g. `-n 5000 --clients all`).
# With --browser it also sets up what the page needs and builds the page when dist/ is missing or older than
# its sources (scripts/ensure-page.sh), so browser vs native works from a fresh clone in this one command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

for arg in "$@"; do
  if [ "$arg" = "--browser" ]; then
    bash scripts/ensure-page.sh
    break
  fi
done

cargo build --release -p httpbench --quiet
exec target/release/httpbench "$@"
