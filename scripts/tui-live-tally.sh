#!/usr/bin/env bash
# Live tallies in the real binary, in tmux: trajscope starts on an empty folder with the
# failure-mode dashboard open; scripts/live-writer.py then writes a SWE-agent .traj and a chat
# session that hit syntax errors as they go. The dashboard's `syntax_error` row must rise as
# the steps arrive (more than one value seen, never going down) and end at the counts
# `trajscope stats --json` gives on the final files.
#
#   scripts/tui-live-tally.sh                 uses target/debug/trajscope
#   TRAJSCOPE_BIN=path TRAJSCOPE_POLL=1 scripts/tui-live-tally.sh   the same, polling
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${TRAJSCOPE_BIN:-target/debug/trajscope}")
WRITER=$(realpath scripts/live-writer.py)
if ! command -v tmux >/dev/null; then
    echo "skipping: tmux is not installed"
    exit 0
fi
[ -x "$BIN" ] || { echo "no binary at $BIN (cargo build first)"; exit 1; }

SOCKET="trajscope-tally-$$"
DIR=$(mktemp -d)
CONFIG=$(mktemp -d)
tm() { tmux -L "$SOCKET" -f /dev/null "$@"; }
cleanup() { tm kill-server 2>/dev/null || true; rm -rf "$DIR" "$CONFIG"; }
trap cleanup EXIT

screen() { tm capture-pane -p -t live; }
fail() { echo "FAIL: $*"; echo "----- pane -----"; screen; exit 1; }
wait_for() {
    for _ in $(seq 200); do
        screen | grep -qF -- "$1" && return 0
        sleep 0.1
    done
    fail "never showed: $1"
}
# The syntax_error row's numbers: "MATCHES STEPS TRAJS", or "none" before it shows.
row() {
    local line
    line=$(screen | grep -E '^ ?.?syntax_error ' | head -1 || true)
    [ -z "$line" ] && { echo none; return; }
    echo "$line" | awk '{print $2, $3, $4}'
}

tm new-session -d -s live -x 140 -y 30 \
    "XDG_CONFIG_HOME=$CONFIG TRAJSCOPE_POLL=${TRAJSCOPE_POLL:-} $BIN $DIR"
wait_for "no trajectories found here"
tm send-keys -t live m
wait_for "syntax_error"
first=$(row)

python3 "$WRITER" "$DIR" --steps 10 --delay 0.4 >/dev/null &
WRITER_PID=$!
seen="$first"
while kill -0 "$WRITER_PID" 2>/dev/null; do
    now=$(row)
    [ "$now" != "${seen##*|}" ] && seen="$seen|$now"
    sleep 0.1
done
wait "$WRITER_PID"

want=$("$BIN" stats --json "$DIR" | python3 -c '
import json, sys
doc = json.load(sys.stdin)
rules = doc.get("rules", doc.get("failure_modes", []))
row = next(r for r in rules if r.get("name") == "syntax_error")
c = row.get("all", row)
print(c["matches"], c["steps"], c["trajectories"])')
for _ in $(seq 50); do
    now=$(row)
    [ "$now" != "${seen##*|}" ] && seen="$seen|$now"
    [ "$now" = "$want" ] && break
    sleep 0.1
done
echo "syntax_error (matches steps trajectories) as seen: $seen; stats: $want"
[ "$(row)" = "$want" ] || fail "the dashboard shows $(row), stats gives $want"
values=$(echo "$seen" | tr '|' '\n' | grep -vc none || true)
[ "$values" -ge 3 ] || fail "the count did not rise step by step: $seen"
# Never down: each value's matches at least the one before.
prev=0
for v in $(echo "$seen" | tr '|' '\n' | grep -v none | awk '{print $1}'); do
    [ "$v" -ge "$prev" ] || fail "the count went down: $seen"
    prev=$v
done
tm send-keys -t live q
echo "ok: live tally passed"
