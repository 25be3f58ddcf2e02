#!/usr/bin/env bash
# Installs whichever system packages of the given groups (see scripts/packages.txt) are missing:
# apt-get on Debian/Ubuntu (with sudo unless root), Homebrew on macOS. Installs nothing when all are present.
#   scripts/install-packages.sh build test
set -euo pipefail
here="$(dirname "$0")"
[ "$#" -gt 0 ] || { echo "usage: $0 GROUP..." >&2; exit 64; }

if [ "$(uname -s)" = Darwin ]; then
  command -v brew >/dev/null || { echo "install-packages: Homebrew is needed on macOS (https://brew.sh)" >&2; exit 1; }
  missing=()
  for formula in $("$here/packages.sh" brew "$@"); do
    brew list --versions "$formula" >/dev/null 2>&1 || missing+=("$formula")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "+ brew install ${missing[*]}"
    brew install "${missing[@]}"
  fi
  exit 0
fi

command -v dpkg >/dev/null || {
  echo "install-packages: neither Debian/Ubuntu (dpkg) nor macOS; install these yourself:" \
    $("$here/packages.sh" debian "$@") >&2
  exit 0
}
missing=()
for package in $("$here/packages.sh" debian "$@"); do
  # A removed package can linger in state "deinstall ok config-files", so read the status, not just the exit code.
  status=$(dpkg -s "$package" 2>/dev/null || true)
  [[ "$status" == *"Status: install ok installed"* ]] || missing+=("$package")
done
[ "${#missing[@]}" -gt 0 ] || exit 0
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo "
export DEBIAN_FRONTEND=noninteractive
echo "+ ${sudo}apt-get update"
${sudo}apt-get update -q
echo "+ ${sudo}apt-get install -y ${missing[*]}"
${sudo}apt-get install -y -q --no-install-recommends "${missing[@]}"
