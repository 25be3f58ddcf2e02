#!/usr/bin/env bash
# Prints the system packages of the given groups from scripts/packages.txt, one per line, without duplicates.
#   scripts/packages.sh debian build test    → Debian/Ubuntu package names
#   scripts/packages.sh brew build bench     → Homebrew formulae
set -euo pipefail
list="$(dirname "$0")/packages.txt"
case "${1:-}" in
  debian) column=1 ;;
  brew) column=2 ;;
  *) echo "usage: $0 debian|brew GROUP..." >&2; exit 64 ;;
esac
shift
[ "$#" -gt 0 ] || { echo "usage: $0 debian|brew GROUP..." >&2; exit 64; }
awk -v column="$column" -v groups=" $* " '
  /^[[:space:]]*(#|$)/ { next }
  index(groups, " " $3 " ") && $column != "-" && !seen[$column]++ { print $column }
' "$list"
