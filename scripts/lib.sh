#!/usr/bin/env bash
# Helpers the scripts share: a log line under the script's name, a command as root, Debian packages installed
# only when missing, and the plan CI measures. Sourced, never run; the sourcing script sets SCRIPT_NAME.

log() { printf '%s: %s\n' "${SCRIPT_NAME:-setup}" "$*" >&2; }

# The plan CI measures, the gate's and the history's alike (scripts/gate-ci.sh, scripts/history-ci.sh): one
# definition, so the history's series and the gate's runs are the same cases.
CI_PLAN="-n 2000 --rounds 5 --warmup 200 --clients curl,ureq,reqwest,raw --mode both --pin split"
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Append to the array `missing` each package of "$@" that dpkg does not have installed.
add_missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
}

# Install the packages in `missing`, if any; else log "$1" (what is present).
install_missing() {
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    log "$1"
  fi
}
