#!/usr/bin/env bash
# Terminal captures of the example apps for docs/captures/: starts a dev server on a free port with the examples'
# rules, drives each example's terminal UI through tmux as a person would (keys in, screens out with
# `tmux capture-pane -p`), and writes docs/captures/<example>.txt.
#
#   scripts/capture-examples.sh   after `swift build`; installs tmux if missing (scripts/packages.txt, group
#                                 captures) and runs it on its own socket, so no other tmux session is touched
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-packages.sh captures
BIN="$(swift build --show-bin-path)"
WORK="$(mktemp -d /tmp/hearth-captures.XXXXXX)"
TMUX_CMD=(tmux -L "hearth-captures-$$")
SERVER_PID=""

cleanup() {
    "${TMUX_CMD[@]}" kill-server 2>/dev/null || true
    if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

"$BIN/hearth" serve --host 127.0.0.1 --port 0 --data "$WORK/data" --dev \
    --database-rules Examples/rules/chat.database.rules.json --storage-rules Examples/rules/storage.rules \
    --rules Examples/Todo/todo.rules --indexes Examples/Todo/todo.indexes.json >"$WORK/server.out" 2>"$WORK/server.err" &
SERVER_PID=$!
for _ in $(seq 200); do grep -qs '^listening on ' "$WORK/server.out" && break; sleep 0.05; done
SERVER="$(sed -n 's/^listening on //p' "$WORK/server.out")"
[[ -n "$SERVER" ]] || { cat "$WORK/server.err" >&2; exit 1; }

# start NAME COMMAND…: a 100×16 terminal running the command.
start() {
    local name=$1; shift
    "${TMUX_CMD[@]}" new-session -d -s "$name" -x 100 -y 16 "$*"
}

# keys NAME LINE…: types each line and presses Enter.
keys() {
    local name=$1; shift
    for line in "$@"; do "${TMUX_CMD[@]}" send-keys -t "$name" -l "$line"; "${TMUX_CMD[@]}" send-keys -t "$name" Enter; done
}

# until NAME TEXT: waits (at most 10 s) until the screen shows TEXT.
until_shows() {
    for _ in $(seq 200); do
        "${TMUX_CMD[@]}" capture-pane -p -t "$1" 2>/dev/null | grep -qF -- "$2" && return 0
        sleep 0.05
    done
    echo "timed out waiting for \"$2\" in $1:" >&2
    "${TMUX_CMD[@]}" capture-pane -p -t "$1" >&2
    exit 1
}

# until_gone NAME TEXT: waits (at most 10 s) until the screen no longer shows TEXT.
until_gone() {
    for _ in $(seq 200); do
        "${TMUX_CMD[@]}" capture-pane -p -t "$1" | grep -qF -- "$2" || return 0
        sleep 0.05
    done
    echo "timed out waiting for \"$2\" to leave $1" >&2
    exit 1
}

# snap NAME TITLE: appends the screen (trailing blank lines dropped) under a title.
snap() {
    {
        printf '\n── %s ──\n' "$2"
        "${TMUX_CMD[@]}" capture-pane -p -t "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
    } >>"$OUT"
}

# ── Chat: sign up, verify, post, a second device edits and deletes, a second user sees none of it ──
OUT=docs/captures/chat.txt
cat >"$OUT" <<HEADER
hearth-chat against \`hearth serve --dev --database-rules Examples/rules/chat.database.rules.json
--storage-rules Examples/rules/storage.rules\`, driven through tmux by scripts/capture-examples.sh (dates are the
capture's, in UTC; the server address is the run's free port).
HEADER
CHAT=("$BIN/hearth-chat" --server "$SERVER")
start phone "${CHAT[*]} --state $WORK/ann-phone"
until_shows phone "1 sign up"
snap phone "Ann's phone: signed out"
keys phone 1 ann@example.com "correct horse"
until_shows phone "email not verified"
snap phone "After sign-up: posting waits for the verified address (the password was typed without echo)"
keys phone 1
until_shows phone "Email verified."
keys phone 1 "Hello from Hearth!" 1 "Second post, from the phone"
until_shows phone "Second post"
snap phone "Verified, two posts (the server stamps the time)"
# A 12 KiB picture: the PNG signature, then filler.
{ printf '\211PNG\r\n\032\n'; head -c $((12 * 1024 - 8)) /dev/zero; } >"$WORK/ann.png"
keys phone 5 "$WORK/ann.png"
until_shows phone "Avatar set."
snap phone "5 set avatar: the picture goes to Storage at users/{uid}/avatar"

start laptop "${CHAT[*]} --state $WORK/ann-laptop"
until_shows laptop "1 sign up"
keys laptop 2 ann@example.com "correct horse"
until_shows laptop "Second post"
until_shows laptop "avatar: image/png, 12 KB"
snap laptop "Ann's laptop, signed in: the same list and avatar"
keys laptop 2 1 "Hello from Hearth! (edited on the laptop)" 3 2
until_shows laptop "Deleted."
until_shows phone "(edited "
until_gone phone "Second post"
snap laptop "The laptop edited post 1 and deleted post 2"
snap phone "The phone meanwhile, without a key pressed"

start bob "${CHAT[*]} --state $WORK/bob"
until_shows bob "1 sign up"
keys bob 1 bob@example.com "battery staple" 1
until_shows bob "No posts yet."
keys bob 1 "Bob here"
until_shows bob "Bob here"
snap bob "Bob, another user: only his own posts"
keys phone 4
until_shows phone "Signed out."
snap phone "Ann signs out on the phone"
echo "wrote $OUT"

# ── Todo: two devices of one user; an edit cancelled on one never shows anywhere, the rest is live on both ──
OUT=docs/captures/todo.txt
cat >"$OUT" <<HEADER
hearth-todo against \`hearth serve --dev --rules Examples/Todo/todo.rules --indexes Examples/Todo/todo.indexes.json
--storage-rules Examples/rules/storage.rules\`, driven through tmux by scripts/capture-examples.sh (two terminals
signed in as the same user, separate storage).
HEADER
TODO=("$BIN/hearth-todo" --server "$SERVER" --email cy@example.com --password "'correct horse'")
start desk "${TODO[*]} --storage $WORK/cy-desk"
until_shows desk "0 Todo Items"
keys desk "a Buy milk | two litres | 3 | 2026-12-01" "a Write the report | | 5 | 2026-12-03"
until_shows desk "2 Todo Items"
snap desk "The desk: two todos (stars for importance, latest date first)"
start phone2 "${TODO[*]} --storage $WORK/cy-phone"
until_shows phone2 "2 Todo Items"
keys phone2 "e 2" "t Buy oat milk"
until_shows phone2 "Buy oat milk"
snap phone2 "The phone edits a copy of todo 2"
keys phone2 cancel
until_shows phone2 "edit cancelled"
snap phone2 "Cancelled: the list is as it was"
keys phone2 "c 1"
until_shows desk "[x]"
keys desk "x 2"
until_shows phone2 "1 Todo Item "
snap desk "The desk after the phone completed todo 1 and the desk deleted todo 2"
snap phone2 "The phone, live"
printf 'outline: summary, figures, next steps\n' >"$WORK/outline.txt"
keys desk "f 1 $WORK/outline.txt"
until_shows phone2 "attachment: outline.txt (text/plain)"
snap phone2 "The desk attached a file to todo 1 (stored in Storage beside the todo); the phone shows it"
echo "wrote $OUT"
