#!/usr/bin/env bash
# The main job: set up what is missing, build httpbench in release mode, and benchmark curl, ureq and reqwest
# against the embedded target server. Arguments are passed to `httpbench` (e.g. `-n 5000 --clients all`;
# `--clients all-runtimes` sets up Bun, Deno, Java, Go and httpx first).
# With --browser (and --browser firefox, webkit, chromium,firefox, all) it also sets up what the page needs
# (Firefox ESR and WebKitGTK only when named) and builds the page when dist/ is missing or older than
# its sources (scripts/ensure-page.sh), so browser vs native works from a fresh clone in this one command.
set -euo pipefail
cd "$(dirname "$0")/.."
# A client list that names a runtime beyond Perl, Python and Node (or all-runtimes) sets those runtimes up too,
# and Bun and Deno are found where the set-up puts them.
setup=()
case " $* " in
  *all-runtimes* | *bun-fetch* | *deno-fetch* | *java-http* | *go-http* | *python-httpx*) setup+=(--runtimes) ;;
esac
# --link builds its network with iproute2 and iptables.
case " $* " in
  *" --link"*) setup+=(--link) ;;
esac
bash scripts/setup.sh "${setup[@]}"
export PATH="$PWD/.tools/runtimes/node_modules/.bin:$PATH"

# --browser [chromium,firefox,webkit|all]: Firefox ESR and WebKitGTK are installed only when a list names them.
# Nothing is exported: httpbench reads HTTPBENCH_* variables itself (HTTPBENCH_FIREFOX is the Firefox binary's
# path).
browser=no
page_setup=()
prev=
for arg in "$@"; do
  case "$arg" in
    --browser | --browser=*) browser=yes ;;
  esac
  case "$prev $arg" in
    "--browser "*firefox* | "--browser all"* | *--browser=*firefox* | *--browser=all*) page_setup+=(--firefox) ;;
  esac
  case "$prev $arg" in
    "--browser "*webkit* | "--browser all"* | *--browser=*webkit* | *--browser=all*) page_setup+=(--webkit) ;;
  esac
  prev=$arg
done
if [ "$browser" = yes ]; then
  bash scripts/ensure-page.sh "${page_setup[@]}"
fi

cargo build --release -p httpbench --quiet
exec target/release/httpbench "$@"
