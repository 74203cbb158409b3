#!/usr/bin/env bash
# Installs what httpbench needs on a fresh Debian machine that has Rust through rustup, and nothing else.
# Idempotent: each step checks first and skips what is already there.
set -euo pipefail

log() { printf 'setup: %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# System libraries for the clients (libcurl), Perl and the seed script's modules (for the Perl tests).
APT_PACKAGES=(pkg-config libssl-dev libcurl4-openssl-dev perl libwww-perl liblwp-protocol-https-perl libhttp-lite-perl libwww-curl-perl)
if [ -n "${HTTPBENCH_EXTRA_APT:-}" ]; then
  read -r -a extra <<<"$HTTPBENCH_EXTRA_APT"
  APT_PACKAGES+=("${extra[@]}")
fi
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  log "system packages present"
fi

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
