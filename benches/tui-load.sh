#!/usr/bin/env bash
# Times the TUI on a run in a real terminal (a private tmux server): the first frame, and the
# moment the screen shows DONE (an extended regex: `^ *5000 trajectories` for a whole run
# listed, `step 1/13619` for a big file opened) with no loading gauge; then the app's peak
# RSS. Polls the screen every 20 ms, so times are ±20 ms. Used by benches/scale.sh; the
# cache folder decides cold (empty) or warm.
#
#   benches/tui-load.sh BIN ROOT DONE CACHE_DIR
set -euo pipefail
bin="$1" root="$2" done_re="$3" cache="$4"
command -v tmux >/dev/null || { echo "tmux is needed"; exit 1; }
socket="trajscope-bench-$$"
tm() { tmux -L "$socket" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT
start=$(date +%s.%N)
tm new-session -d -x 160 -y 40 \
  "exec env TRAJSCOPE_CACHE_DIR='$cache' XDG_CONFIG_HOME='$cache' '$bin' '$root'"
pid=$(tm display -p '#{pane_pid}')
first="" listed=""
for _ in $(seq 1 6000); do
  screen=$(tm capture-pane -p 2>/dev/null || true)
  now=$(date +%s.%N)
  if [ -z "$first" ] && grep -q "[^[:space:]]" <<<"$screen"; then
    first=$(echo "$now - $start" | bc)
  fi
  if grep -Eq "$done_re" <<<"$screen" && ! grep -q "loading " <<<"$screen"; then
    listed=$(echo "$now - $start" | bc)
    break
  fi
  sleep 0.02
done
# The cache is written just after the last file is listed: give it time before quitting.
for _ in $(seq 1 100); do
  ls "$cache"/runs/*.json >/dev/null 2>&1 && break
  sleep 0.1
done
sleep 1
rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo "?")
cpu=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$pid/stat" 2>/dev/null || echo "?")
tm send-keys q
sleep 0.5
printf 'first frame %.2f s, done %.2f s, peak RSS %s KB, CPU %s s\n' "${first:-0}" "${listed:-0}" "$rss" "$cpu"
