#!/usr/bin/env bash
# The cost of security rules on the write path, in instructions per request (callgrind, all server threads): the same
# writes, each with one user's ID token, against `hearth serve --dev` without rules and with a rules file.
#
#   Benchmarks/callgrind/rules.sh doc|tree [REQUESTS] [RULES_FILE]
#
# doc: document creates (default rules Examples/rules/todos.rules); tree: PUTs under /posts/$uid (default rules: an
# ownership rule plus three .validate rules, written to a temporary file). Prints both figures and their ratio, which is
# the rate with rules as a share of the rate without. Env: HEARTH (default .build/release/hearth).
set -euo pipefail
kind=${1:?doc or tree}
requests=${2:-500}
here=$(cd "$(dirname "$0")" && pwd)
hearth=${HEARTH:-.build/release/hearth}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rules=${3:-}
if [ -z "$rules" ]; then
  if [ "$kind" = doc ]; then
    rules=Examples/rules/todos.rules
  else
    rules=$work/tree.rules.json
    cat >"$rules" <<'JSON'
{"rules": {"posts": {"$uid": {
  ".read": "auth != null && auth.uid === $uid", ".write": "auth != null && auth.uid === $uid",
  "$post": {
    ".validate": "newData.hasChildren(['text', 'createdAt'])",
    "text": {".validate": "newData.isString() && newData.val().length <= 280"},
    "createdAt": {".validate": "newData.isNumber() && newData.val() <= now"}}}}}}
JSON
  fi
fi
flag=--rules
[ "$kind" = tree ] && flag=--database-rules

# Instructions per request of $requests writes on a server started with "$@".
measure() {
  local run=$work/run$1
  shift
  mkdir -p "$run"
  valgrind --tool=callgrind --callgrind-out-file="$run/cg.%p" --dump-instr=no \
    "$hearth" serve --host 127.0.0.1 --port 0 --data "$run/data" --dev "$@" >"$run/stdout" 2>"$run/stderr" &
  local pid=$! url=""
  for _ in $(seq 600); do
    url=$(grep -o 'http://[0-9.:]*' "$run/stdout" || true)
    [ -n "$url" ] && break
    sleep 0.2
  done
  [ -n "$url" ] || { cat "$run/stderr" >&2; exit 1; }
  python3 "$here/rules_drive.py" "$url" "$kind" 200 signup >"$run/user"
  python3 "$here/rules_drive.py" "$url" "$kind" "$requests" "$(cat "$run/user")" zero:"$pid" >/dev/null
  callgrind_control -d "$pid" >/dev/null 2>&1
  kill -TERM "$pid"
  wait "$pid" || true
  local file
  file=$(ls "$run"/cg.*.1 | head -1)
  callgrind_annotate "$file" 2>/dev/null | awk -v n="$requests" '/PROGRAM TOTALS/ {gsub(",", "", $1); print int($1 / n); exit}'
}

without=$(measure 1)
with=$(measure 2 "$flag" "$rules")
echo "$kind: $without instructions per request without rules, $with with $rules: $((100 * without / with))% of the rate"
