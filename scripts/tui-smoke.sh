#!/usr/bin/env bash
# Smoke test of the real binary in a real terminal: starts trajscope in a private tmux
# server, types what a newcomer would (open a trajectory, find the syntax error, read the
# exact context, open it in $EDITOR, view and copy the patch, help, the step's diff and working
# tree, quit; then a fork against its original in the compare screen), and checks each screen as a person would see
# it in the pane. Also checks that quitting restores the terminal (cooked mode, no
# alternate screen).
#
#   scripts/tui-smoke.sh                       uses target/debug/trajscope
#   TRAJSCOPE_BIN=path SMOKE_CAPTURES=dir scripts/tui-smoke.sh   and saves each screen
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TRAJSCOPE_BIN:-target/debug/trajscope}
RUN=${TRAJSCOPE_RUN:-tests/fixtures/tui/run}
CAPTURES=${SMOKE_CAPTURES:-}
if ! command -v tmux >/dev/null; then
    echo "skipping: tmux is not installed"
    exit 0
fi
[ -x "$BIN" ] || { echo "no binary at $BIN (cargo build first)"; exit 1; }

SOCKET="trajscope-smoke-$$"
CONFIG=$(mktemp -d)
tm() { tmux -L "$SOCKET" -f /dev/null "$@"; }
cleanup() { tm kill-server 2>/dev/null || true; rm -rf "$CONFIG"; }
trap cleanup EXIT

screen() { tm capture-pane -p -t smoke; }
fail() { echo "FAIL: $*"; echo "----- pane -----"; screen; exit 1; }
# Waits up to 5 s for the pane to show a text.
wait_for() {
    for _ in $(seq 1 100); do
        if screen | grep -qF -- "$1"; then return 0; fi
        sleep 0.05
    done
    fail "did not see: $1"
}
shows() { screen | grep -qF -- "$1" || fail "expected on screen: $1"; }
hides() { ! screen | grep -qF -- "$1" || fail "not expected on screen: $1"; }
capture() { if [ -n "$CAPTURES" ]; then mkdir -p "$CAPTURES"; screen > "$CAPTURES/$1.txt"; fi; }
keys() { tm send-keys -t smoke "$@"; }

# After trajscope exits, say how, and whether the terminal is back in canonical mode.
tm new-session -d -s smoke -x 120 -y 40 -e XDG_CONFIG_HOME="$CONFIG" -e EDITOR=true \
    "$BIN $RUN; echo \"exited with \$?\"; stty -a | tr ' ;' '\n\n' | grep -x -- '-\?icanon'; sleep 60"

wait_for "3 trajectories"
shows "resolved 1/3 (33%)"
shows "1 file could not be read"
shows "astropy__astropy-12907"
capture run

# The failure-mode dashboard: the tally split by outcome, a rule's steps, back to the run.
keys m
wait_for "trajscope · failure modes"
shows "RESOLVED (1)"
shows "UNRESOLVED (2)"
shows "── syntax_error · 1 match in 1 step of 1 trajectory"
capture dashboard
keys q
wait_for "RUN 3"

keys Enter
wait_for "astropy__astropy-12907 · swe-agent 1.1+"
wait_for "Step 1/6 · find_file"
capture trajectory

keys / S y n t a x E r r o r Enter
wait_for "/SyntaxError 1/1 in 1 step"
shows "E999 SyntaxError: invalid syntax"
shows "step 3/6"
capture search

keys c
wait_for "Model input at step 3  EXACT"
capture context

# $EDITOR is `true` here: the terminal is handed over and taken back.
keys o
wait_for "closed true"
shows "Model input at step 3  EXACT"

keys p
wait_for "Final patch · 1 file · +1 -1"
capture patch
keys y
wait_for "copied final patch"

keys '?'
wait_for "Keys · esc closes"
shows "next step with an error"
capture help
keys q
wait_for "Final patch"

# The diff tabs of step 3: the linter refused its edit; then the working tree there.
keys d
wait_for "Changes at step 3 · 1 edit"
shows "NOT APPLIED: refused by the tool"
shows "MODEL INPUT · vs step 2 · exact"
capture diff
keys w
wait_for "Working tree after step 3"
shows "viewed · 317 lines, 90 seen"
shows "SUBMISSION · 0 agree, 0 differ, 1 unknown"
capture tree

keys q
wait_for "RUN 3"
keys q
wait_for "exited with 0"
wait_for "icanon"
hides "-icanon"
hides "RUN 3"

# The compare screen: a fork against its original, opened at the first divergence.
tm new-session -d -s fork -x 120 -y 40 -e XDG_CONFIG_HOME="$CONFIG" \
    "$BIN tests/fixtures/tui/fork/tinycalc__tinycalc-1.fork.json; echo \"exited with \$?\"; sleep 60"
fork_screen() { tm capture-pane -p -t fork; }
fork_wait() {
    for _ in $(seq 1 100); do
        if fork_screen | grep -qF -- "$1"; then return 0; fi
        sleep 0.05
    done
    echo "FAIL: did not see: $1"; fork_screen; exit 1
}
fork_wait "tinycalc__tinycalc-1 · trajscope"
tm send-keys -t fork q c
fork_wait "first divergence: A step 4, B step 4"
fork_wait "COMPARE pair 4/10"
if [ -n "$CAPTURES" ]; then fork_screen > "$CAPTURES/compare.txt"; fi
tm send-keys -t fork n
fork_wait "COMPARE pair 7/10"
fork_wait "A step 4/7 · bash"
tm send-keys -t fork p
fork_wait "COMPARE pair 7/10 · final patches"
if [ -n "$CAPTURES" ]; then fork_screen > "$CAPTURES/compare-patches.txt"; fi
tm send-keys -t fork q
fork_wait "RUN 1"
tm send-keys -t fork q
fork_wait "exited with 0"
echo "ok: tmux smoke test passed"
