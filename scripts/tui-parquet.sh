#!/usr/bin/env bash
# A generated Hub-layout Parquet dataset opens in the app, in a real terminal: starts
# trajscope on it in a private tmux server, waits for the listing, opens a row (read from its
# row group alone) and checks its steps show, then quits.
#
#   scripts/tui-parquet.sh [ROWS]     (default 2,000; needs target/debug/trajscope and the
#                                      gen_parquet example: cargo build --examples)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${TRAJSCOPE_BIN:-target/debug/trajscope}
GEN=${GEN_BIN:-target/debug/examples/gen_parquet}
ROWS=${1:-2000}
if ! command -v tmux >/dev/null; then
    echo "skipping: tmux is not installed"
    exit 0
fi
[ -x "$BIN" ] && [ -x "$GEN" ] || { echo "build first: cargo build --examples"; exit 1; }

DATA=$(mktemp -d)
CONFIG=$(mktemp -d)
SOCKET="trajscope-parquet-$$"
tm() { tmux -L "$SOCKET" -f /dev/null "$@"; }
cleanup() { tm kill-server 2>/dev/null || true; rm -rf "$DATA" "$CONFIG"; }
trap cleanup EXIT
screen() { tm capture-pane -p -t pq; }
fail() { echo "FAIL: $*"; echo "----- pane -----"; screen; exit 1; }
wait_for() {
    for _ in $(seq 1 1200); do
        if screen | grep -qF -- "$1"; then return 0; fi
        sleep 0.05
    done
    fail "did not see: $1"
}

"$GEN" "$DATA/hub" "$ROWS" 2 2>/dev/null
start=$(date +%s.%N)
tm new-session -d -s pq -x 140 -y 40 -e XDG_CONFIG_HOME="$CONFIG" -e XDG_CACHE_HOME="$CONFIG" \
    "$BIN $DATA/hub; echo \"exited with \$?\"; sleep 60"
wait_for "$ROWS trajectories"
end=$(date +%s.%N)
echo "listed $ROWS rows in $(echo "$end - $start" | bc) s (to the listing's total on screen)"
screen | grep -qE "django__django|sympy__sympy|astropy__astropy|pytest-dev__pytest" \
    || fail "no instance ids listed"
tm send-keys -t pq Enter
wait_for "DISCUSSION"
echo "a row opened: its steps are on screen"
tm send-keys -t pq q
tm send-keys -t pq q
wait_for "exited with 0"
echo "ok"
