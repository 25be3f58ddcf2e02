#!/usr/bin/env bash
# Instruction counts per request of the hearth server, under `valgrind --tool=callgrind`.
#
# Wall-clock rates are noise on a shared machine; instruction counts under a fixed request script are not. This starts
# `hearth serve` under callgrind with a fresh data directory, warms it up, zeroes the counters, sends a fixed number of
# requests with drive.py, dumps the counters, and prints instructions per request (all server threads together).
#
#   Benchmarks/callgrind/profile.sh create|get|commit [REQUESTS] [CONNECTIONS]
#
# Env: HEARTH (binary, default .build/release/hearth), OUT (directory for callgrind.out files, default
# Benchmarks/out/callgrind). Kernel time (write(2) of WAL pages, socket I/O) is not counted; see strace -c for that.
set -euo pipefail
mode=${1:?create, get or commit}
here=$(cd "$(dirname "$0")" && pwd)
hearth=${HEARTH:-.build/release/hearth}
out=${OUT:-Benchmarks/out/callgrind}
case $mode in
  create) requests=${2:-2000}; connections=${3:-32} ;;
  get) requests=${2:-5000}; connections=${3:-32} ;;
  commit) requests=${2:-10}; connections=${3:-4} ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
mkdir -p "$out"
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

valgrind --tool=callgrind --callgrind-out-file="$out/$mode.%p" --dump-instr=no \
  "$hearth" serve --host 127.0.0.1 --port 0 --data "$work/data" --dev --threads 2 >"$work/stdout" 2>"$work/stderr" &
pid=$!
for _ in $(seq 600); do
  url=$(grep -o 'http://[0-9.:]*' "$work/stdout" || true)
  [ -n "$url" ] && break
  sleep 0.2
done
[ -n "$url" ] || { cat "$work/stderr"; exit 1; }

# Warm-up: prepared statements, page cache, allocator; the get figure reads 10,000 seeded documents.
case $mode in
  create) python3 "$here/drive.py" "$url" create 300 "$connections" ;;
  get) python3 "$here/drive.py" "$url" seed 10000 && python3 "$here/drive.py" "$url" get 500 "$connections" 10000 ;;
  commit) python3 "$here/drive.py" "$url" commit 2 "$connections" warm ;;
esac
sleep 1
callgrind_control -z "$pid" >/dev/null 2>&1
case $mode in
  create) python3 "$here/drive.py" "$url" create "$requests" "$connections" ;;
  get) python3 "$here/drive.py" "$url" get "$requests" "$connections" 10000 ;;
  commit) python3 "$here/drive.py" "$url" commit "$requests" "$connections" run ;;
esac
callgrind_control -d "$pid" >/dev/null 2>&1
kill -TERM "$pid"
wait "$pid" || true
file=$(ls -t "$out/$mode.$pid".* | grep -v '\.0$' | head -1 || true)
[ -n "$file" ] || file=$(ls -t "$out/$mode.$pid"* | head -1)
total=$(callgrind_annotate "$file" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
echo "$mode: $requests requests over $connections connections: $total instructions, $((total / requests)) per request ($file)"
