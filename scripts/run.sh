#!/usr/bin/env bash
# The main job: set up what is missing, build httpbench in release mode, and benchmark curl, ureq and reqwest
# against the embedded target server. Arguments are passed to `httpbench` (e.g. `-n 5000 --clients all`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release -p httpbench --quiet
exec target/release/httpbench "$@"
