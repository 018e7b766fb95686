#!/usr/bin/env bash
# When the app shows a big file: the first frame, step 1's content, and the end of the
# index, in seconds from the moment the binary is started in a fresh tmux pane.
#
#   scripts/first-frame.sh BINARY FILE [--cold] [--step-only]
#
# The pane is captured every 50 ms. First frame: the pane is no longer blank. Step 1: the
# right pane's title `Step 1/` is on screen with the step's first section under it. Indexed:
# the header's `indexing` is gone and a step count is shown. --cold first evicts FILE from
# the page cache (posix_fadvise DONTNEED on that file alone; nothing else is touched).
# --step-only stops once step 1 is shown (the index is not waited for).
set -euo pipefail
bin=$1
file=$2
cold= step_only=
for flag in "${@:3}"; do
    case $flag in
        --cold) cold=1 ;;
        --step-only) step_only=1 ;;
        *) echo "unknown flag $flag" >&2; exit 2 ;;
    esac
done
if [[ -n $cold ]]; then
    python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$file"
fi
session=first-frame-$$
home=$(mktemp -d)
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$home"' EXIT
start=$EPOCHREALTIME
# An empty HOME: no user config, no run cache from an earlier run.
tmux new-session -d -s "$session" -x 120 -y 40 \
    "env HOME=$home XDG_CONFIG_HOME=$home/.config XDG_CACHE_HOME=$home/.cache $bin $file; sleep 60"
first= step= indexed=
while :; do
    now=$EPOCHREALTIME
    pane=$(tmux capture-pane -p -t "$session" 2>/dev/null || true)
    elapsed=$(echo "$now - $start" | bc -l)
    if [[ -z $first && -n ${pane//[[:space:]]/} ]]; then
        first=$elapsed
    fi
    if [[ -z $step ]] && grep -q 'Step 1/' <<<"$pane" && grep -q '── ' <<<"$pane"; then
        step=$elapsed
        [[ -n $step_only ]] && break
    fi
    if [[ -n $step && -z $indexed ]] && ! grep -q 'indexing' <<<"$pane" \
        && grep -qE '[0-9]+ steps' <<<"$pane"; then
        indexed=$elapsed
        break
    fi
    if (($(echo "$elapsed > 300" | bc -l))); then
        echo "gave up after 300 s" >&2
        break
    fi
    sleep 0.05
done
printf 'first frame %.2f s, step 1 %.2f s, indexed %.2f s (%s, %s)\n' \
    "${first:-0}" "${step:-0}" "${indexed:-0}" "$(basename "$bin")" "$(du -h "$file" | cut -f1)"
tmux capture-pane -p -t "$session" | head -3
