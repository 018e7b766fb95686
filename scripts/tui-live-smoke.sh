#!/usr/bin/env bash
# Live-watch smoke test of the real binary in tmux: trajscope starts on an empty folder;
# scripts/live-writer.py then writes a SWE-agent .traj step by step (rewriting it, torn
# writes included) and a JSONL chat session (appending, half lines included). The pane must
# show both growing, the running mark, the alert firing, and follow mode in the trajectory
# view.
#
#   scripts/tui-live-smoke.sh                 uses target/debug/trajscope
#   TRAJSCOPE_BIN=path SMOKE_CAPTURES=dir scripts/tui-live-smoke.sh   and saves each screen
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${TRAJSCOPE_BIN:-target/debug/trajscope}")
WRITER=$(realpath scripts/live-writer.py)
CAPTURES=${SMOKE_CAPTURES:-}
if ! command -v tmux >/dev/null; then
    echo "skipping: tmux is not installed"
    exit 0
fi
[ -x "$BIN" ] || { echo "no binary at $BIN (cargo build first)"; exit 1; }

SOCKET="trajscope-live-$$"
DIR=$(mktemp -d)
CONFIG=$(mktemp -d)
tm() { tmux -L "$SOCKET" -f /dev/null "$@"; }
cleanup() { tm kill-server 2>/dev/null || true; rm -rf "$DIR" "$CONFIG"; }
trap cleanup EXIT

screen() { tm capture-pane -p -t live; }
fail() { echo "FAIL: $*"; echo "----- pane -----"; screen; exit 1; }
# Generous (20 s): under a loaded CI machine the debug binary can be slow to start.
wait_for() {
    for _ in $(seq 200); do
        screen | grep -qF -- "$1" && return 0
        sleep 0.1
    done
    fail "never showed: $1"
}
save() { [ -n "$CAPTURES" ] && { mkdir -p "$CAPTURES"; screen >"$CAPTURES/$1.txt"; }; return 0; }

tm new-session -d -s live -x 120 -y 24 \
    "XDG_CONFIG_HOME=$CONFIG $BIN $DIR"
wait_for "no trajectories found here"
save live-empty

python3 "$WRITER" "$DIR" --steps 10 --delay 0.4 >/dev/null &
WRITER_PID=$!
wait_for "2 trajectories"
wait_for "running"
save live-growing
wait_for "⚠ alert syntax_errors_in_a_row at step 5"
save live-alert
# Open the SWE-agent trajectory while it grows; on its last step the cursor follows.
tm send-keys -t live "/" && tm send-keys -t live "demo" Enter
tm send-keys -t live Enter
wait_for "task Division"
tm send-keys -t live G
sleep 1.2
screen | grep -qE "demo__live-1 · step ([0-9]+)/\1 " || fail "cursor not on the newest step"
save live-follow
wait "$WRITER_PID"
sleep 0.5
screen | grep -qF "step 10/10" || fail "did not follow to step 10"
tm send-keys -t live q
wait_for "submitted"
save live-done
tm send-keys -t live q
echo "ok: live smoke passed"
