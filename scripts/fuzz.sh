#!/usr/bin/env bash
# A longer, bounded run of the property tests of the result-file parser and the renderers (not part of CI).
# Usage: scripts/fuzz.sh [CASES]   (default 20000 cases per property)
set -euo pipefail
cd "$(dirname "$0")/.."
PROPTEST_CASES=${1:-20000} timeout 1800 cargo test --release -p httpbench-shared --test suite fuzz::
