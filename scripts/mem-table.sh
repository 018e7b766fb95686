#!/usr/bin/env bash
# Peak memory (resident set, file mappings included) and wall time of the commands that read
# one big file whole or step by step: ls, stats, show --step N, export --markdown and
# export --html, on each FILE given. Prints a Markdown table.
#
#   scripts/gen-big.py trajectory /tmp/big/swe-1g.traj --mb 1024
#   scripts/gen-big.py claude-code /tmp/big/claude-1g.jsonl --mb 1024
#   scripts/gen-big.py openhands /tmp/big/openhands-1g.json --mb 1024
#   scripts/mem-table.sh target/release/trajscope /tmp/big/*
set -euo pipefail
BIN=${1:?usage: mem-table.sh BIN FILE...}
shift
STEP=${STEP:-100}
echo "| file size | format | command | peak RSS | time | exit |"
echo "|---|---|---|---|---|---|"
for file in "$@"; do
    size=$(du -m --apparent-size "$file" | cut -f1)
    format=$("$BIN" ls --json "$file" 2>/dev/null | python3 -c '
import json, sys
try:
    doc = json.load(sys.stdin)
    rows = doc if isinstance(doc, list) else doc.get("trajectories", [])
    print(rows[0].get("format", "?"))
except Exception:
    print("?")' 2>/dev/null || echo "?")
    for cmd in "ls" "stats" "show --step $STEP" "export --markdown" "export --html"; do
        # shellcheck disable=SC2086
        set +e
        /usr/bin/time -v -o /tmp/mem-table.$$ "$BIN" $cmd "$file" >/dev/null 2>/tmp/mem-table-err.$$
        status=$?
        set -e
        rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' /tmp/mem-table.$$)
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' /tmp/mem-table.$$)
        echo "| ${size} MB | $format | \`$cmd\` | $((rss / 1024)) MB | $wall | $status |"
    done
done
rm -f /tmp/mem-table.$$ /tmp/mem-table-err.$$
