#!/usr/bin/env bash
# Installs what httpbench needs on a fresh Debian machine that has Rust through rustup, and nothing else.
# Idempotent: each step checks first and skips what is already there.
set -euo pipefail

SCRIPT_NAME=setup
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# --runtimes: also the runtimes of the command clients beyond Perl, Python and Node (bun-fetch, deno-fetch,
# java-http, go-http, python-httpx): Bun and Deno from npm (about 100 MB each; 6 s here), Debian's Go (330 MB
# installed), httpx with h2 (8 s); the JDK is usually present on this kind of machine.
# --otava: also Apache Otava (E-divisive change points, from PyPI) with numpy and scipy, into .tools/otava: the
# independent check of `httpbench history`'s change points (tests only; 8 s, 220 MB).
# --link: also what `run --link` builds its emulated network with: Debian's iproute2 (ip, tc) and iptables
# (its NFQUEUE rule; 2 MB).
runtimes=no
otava=no
link=no
for arg in "$@"; do
  case "$arg" in
    --runtimes) runtimes=yes ;;
    --otava) otava=yes ;;
    --link) link=yes ;;
    *) log "unknown argument '$arg': the only ones are --runtimes, --otava and --link"; exit 2 ;;
  esac
done

# System libraries for the clients (libcurl), Perl and the seed script's modules (for the Perl tests).
APT_PACKAGES=(pkg-config libssl-dev libcurl4-openssl-dev perl libwww-perl liblwp-protocol-https-perl libhttp-lite-perl libwww-curl-perl)
if [ -n "${HTTPBENCH_EXTRA_APT:-}" ]; then
  read -r -a extra <<<"$HTTPBENCH_EXTRA_APT"
  APT_PACKAGES+=("${extra[@]}")
fi
if [ "$link" = yes ]; then
  APT_PACKAGES+=(iproute2 iptables)
fi
missing=()
add_missing_packages "${APT_PACKAGES[@]}"
install_missing "system packages present"

# The command clients' interpreters beyond Perl: python3 and node (Node 18+ for fetch). Usually present on this
# kind of machine (perhaps not from Debian, e.g. pyenv's python3), so only a missing command is installed.
for pair in python3:python3 node:nodejs; do
  if ! command -v "${pair%%:*}" >/dev/null 2>&1; then
    log "installing ${pair#*:}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pair#*:}" >/dev/null
  fi
done

# Rust pieces: the wasm32 target (shared must build for the page), rustfmt and clippy for the checks.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
for c in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$c"; then
    log "adding $c"
    rustup component add "$c"
  fi
done

# The pip install of a pinned requirement, system-wide or, where Debian's python3 refuses that (PEP 668), into
# the user's site-packages.
pip_install() {
  if ! python3 -m pip --version >/dev/null 2>&1; then
    log "installing python3-pip"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
  fi
  python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore "$@" 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --user --break-system-packages "$@"
}

# python-aioquic's module (HTTP/3 on a QUIC stack independent of quinn), from PyPI at a pinned version (wheels
# for x86_64: nothing is compiled; about 6 s). python3 may be Debian's, whose pip refuses system-wide installs
# (PEP 668): then into the user's site-packages (--user needs --break-system-packages there too; Debian's own
# packages are left alone).
AIOQUIC_VERSION=1.7.2
if python3 -c "import aioquic, sys; sys.exit(aioquic.__version__ != '$AIOQUIC_VERSION')" 2>/dev/null; then
  log "aioquic $AIOQUIC_VERSION present"
else
  log "installing aioquic $AIOQUIC_VERSION (pip)"
  pip_install "aioquic==$AIOQUIC_VERSION"
fi

if [ "$runtimes" = yes ]; then
  # Java 11 or later (java.net.http) and Go, from Debian, when their commands are missing.
  missing=()
  command -v java >/dev/null 2>&1 || add_missing_packages openjdk-17-jdk-headless
  command -v go >/dev/null 2>&1 || add_missing_packages golang-go
  install_missing "java and go present"
  # Bun and Deno from npm, pinned, into .tools/runtimes (their packages carry the binary); httpbench finds them
  # on PATH: scripts/run.sh and scripts/test.sh put .tools/runtimes/node_modules/.bin there.
  BUN_VERSION=1.4.5
  DENO_VERSION=2.9.6
  bin="$(cd "$(dirname "$0")/.." && pwd)/.tools/runtimes/node_modules/.bin"
  if [ "$("$bin/bun" --version 2>/dev/null)" = "$BUN_VERSION" ] &&
    "$bin/deno" --version 2>/dev/null | grep -q "^deno $DENO_VERSION "; then
    log "bun $BUN_VERSION and deno $DENO_VERSION present"
  else
    log "installing bun $BUN_VERSION and deno $DENO_VERSION (npm, into .tools/runtimes)"
    mkdir -p "$(dirname "$bin")/.."
    npm install --prefix "$(dirname "$bin")/.." --no-audit --no-fund --silent "bun@$BUN_VERSION" "deno@$DENO_VERSION" >/dev/null
    "$bin/bun" --version >/dev/null && "$bin/deno" --version >/dev/null
  fi
  HTTPX_VERSION=0.29.0
  if python3 -c "import httpx, h2, sys; sys.exit(httpx.__version__ != '$HTTPX_VERSION')" 2>/dev/null; then
    log "httpx $HTTPX_VERSION (with h2) present"
  else
    log "installing httpx $HTTPX_VERSION with its http2 extra (pip)"
    pip_install "httpx[http2]==$HTTPX_VERSION"
  fi
fi

if [ "$otava" = yes ]; then
  # Into a folder of its own (PYTHONPATH), not the system's Python: Otava pins numpy and scipy versions that
  # must not replace what the machine has. Only what its change-point code imports: no database clients.
  OTAVA_VERSION=0.8.0
  target="$(cd "$(dirname "$0")/.." && pwd)/.tools/otava"
  if PYTHONPATH="$target" python3 -c "import importlib.metadata as m, sys, otava.analysis; sys.exit(m.version('apache-otava') != '$OTAVA_VERSION')" 2>/dev/null; then
    log "Apache Otava $OTAVA_VERSION present"
  else
    log "installing Apache Otava $OTAVA_VERSION with numpy and scipy (pip, into .tools/otava)"
    rm -rf "$target"
    pip_install --target "$target" --no-deps "apache-otava==$OTAVA_VERSION"
    pip_install --target "$target" "numpy==2.2.*" "scipy>=1.15,<1.17"
    PYTHONPATH="$target" python3 -c "import otava.analysis"
  fi
fi
