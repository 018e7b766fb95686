#!/usr/bin/env bash
# Peak memory (resident set, file mappings included: /usr/bin/time's "Maximum resident set
# size") and wall time of the commands that read one big file: ls, stats, show --step N,
# export --markdown and export --html, on each FILE given. Prints a Markdown table.
#
# Each command runs with an empty run cache of its own (a cold listing: the file is read,
# not a cached summary), output to /dev/null. Disk is short on shared machines: generate one
# file at a time, measure it, delete it.
#
#   scripts/gen-big.py trajectory /tmp/big/swe-1g.traj --mb 1024
#   scripts/gen-big.py claude-code /tmp/big/claude-1g.jsonl --mb 1024
#   scripts/gen-big.py openhands /tmp/big/openhands-1g.json --mb 1024
#   scripts/mem-table.sh target/release/trajscope /tmp/big/claude-1g.jsonl
set -euo pipefail
BIN=${1:?usage: mem-table.sh BIN FILE...}
shift
STEP=${STEP:-100}
HEADER=${HEADER:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$HEADER" = 1 ]; then
    echo "| file size | format | command | peak RSS | time | exit |"
    echo "|---|---|---|---|---|---|"
fi
for file in "$@"; do
    size=$(du -m --apparent-size "$file" | cut -f1)
    format="?"
    for cmd in "ls --json" "stats" "show --step $STEP" "export --markdown" "export --html"; do
        rm -rf "$tmp/cache"
        set +e
        # shellcheck disable=SC2086
        TRAJSCOPE_CACHE_DIR="$tmp/cache" /usr/bin/time -v -o "$tmp/time" \
            "$BIN" $cmd "$file" >"$tmp/out" 2>"$tmp/err"
        status=$?
        set -e
        if [ "$cmd" = "ls --json" ]; then
            format=$(python3 -c '
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
    rows = doc if isinstance(doc, list) else doc.get("trajectories", [])
    print(rows[0].get("format", "?"))
except Exception:
    print("?")' "$tmp/out")
        fi
        rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time")
        wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/time")
        echo "| ${size} MB | $format | \`$cmd\` | $((rss / 1024)) MB | $wall | $status |"
        if [ "$status" != 0 ]; then
            sed 's/^/    /' "$tmp/err" | head -3 >&2
        fi
    done
done
