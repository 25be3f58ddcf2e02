#!/usr/bin/env bash
# CPU time per create of each server thread under a wrk create load (threads.py), on a fresh server and data directory.
#
#   Benchmarks/callgrind/measure.sh [HEARTH_BINARY] [SECONDS]
#
# Starts `hearth serve` on 127.0.0.1 with a free port, warms it with 2 s of creates, then runs threads.py over
# `wrk -t2 -c32` creates (the benchmark's body) and prints each thread's CPU per request. Per-thread CPU moves much less
# with the machine's load than requests/s do, so it is the figure to compare builds by on a shared machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
hearth=${1:-.build/release/hearth}
seconds=${2:-5}
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
cat >"$work/create.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"fields":{"title":{"stringValue":"hello"},"n":{"integerValue":"42"},"done":{"booleanValue":false}}}'
wrk.headers["Content-Type"] = "application/json"
LUA
"$hearth" serve --host 127.0.0.1 --port 0 --data "$work/data" --dev --threads 2 >"$work/stdout" 2>"$work/stderr" &
pid=$!
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://[0-9.:]*' "$work/stdout" || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/stderr"; exit 1; }
target="$url/v1/projects/demo/databases/(default)/documents/bench"
wrk -t2 -c32 -d2s -s "$work/create.lua" "$target" >/dev/null
python3 "$here/threads.py" "$pid" -- -t2 -c32 -d"${seconds}s" -s "$work/create.lua" "$target" |
  grep -v '^ \|^Running\|^$\|Latency\|Req/Sec\|Transfer'
