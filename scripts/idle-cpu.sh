#!/usr/bin/env bash
# CPU time a process uses over an interval, from /proc/PID/stat (utime + stime):
#   scripts/idle-cpu.sh PID [SECONDS]   prints "cpu_ms=… over …s (…%)"
set -euo pipefail
PID=$1
SECS=${2:-10}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)
# Threads are summed in the process's own line.
a=$(ticks "$PID"); sleep "$SECS"; b=$(ticks "$PID")
ms=$(( (b - a) * 1000 / HZ ))
echo "cpu_ms=$ms over ${SECS}s ($(awk "BEGIN{printf \"%.2f\", $ms/($SECS*10)}")%)"
