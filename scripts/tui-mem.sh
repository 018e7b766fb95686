#!/usr/bin/env bash
# The app's memory once it has indexed a big file: opens FILE in a fresh tmux pane, waits
# until the header's `indexing` is gone and a step count is shown, then prints the
# process's peak (VmHWM) and current (VmRSS) resident size and how long the index took.
#
#   scripts/tui-mem.sh BINARY FILE
set -euo pipefail
bin=$1
file=$2
session=tui-mem-$$
home=$(mktemp -d)
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$home"' EXIT
# An empty HOME: no user config, no run cache from an earlier run.
tmux new-session -d -s "$session" -x 120 -y 40 \
    "env HOME=$home XDG_CONFIG_HOME=$home XDG_CACHE_HOME=$home $bin $file"
start=$EPOCHREALTIME
pid=$(tmux display -p -t "$session" '#{pane_pid}')
while :; do
    sleep 0.5
    pane=$(tmux capture-pane -p -t "$session")
    if ! grep -q indexing <<<"$pane" && grep -q steps <<<"$pane"; then
        break
    fi
    kill -0 "$pid" 2>/dev/null || { echo "the app exited" >&2; exit 1; }
done
end=$EPOCHREALTIME
sleep 1
peak=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
now=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
echo "peak ${peak} KB, now ${now} KB, indexed in $(echo "$end - $start" | bc) s"
