#!/usr/bin/env bash
# The per-format memory table: for each format scripts/gen-big.py can generate, a file of
# ~MB megabytes (100 by default) is made, `ls --json` and `stats` read it under
# /usr/bin/time (peak resident set, file mappings included, and wall time), one Markdown
# table row each, and the file is deleted before the next is made (disk is short on shared
# machines). Each command runs with an empty run cache of its own (a cold read).
#
#   scripts/mem-formats.sh target/debug/trajscope            every kind
#   MB=20 scripts/mem-formats.sh BIN otel-genai codex        only these kinds
#
# Each command runs under `ulimit -v` of LIMIT_MB (8192 by default), so that a reader that
# takes many times the file fails alone (exit 134, "memory allocation failed") instead of
# taking the machine with it: the row then says so.
#
# The SWE-agent `trajectory` kind needs the corpus (../shared/corpus); the others are built
# from sample-trajectories/.
set -euo pipefail
BIN=$(realpath "${1:?usage: mem-formats.sh BIN [KIND...]}")
shift
HERE=$(cd "$(dirname "$0")" && pwd)
MB=${MB:-100}
LIMIT_MB=${LIMIT_MB:-8192}
# kind and the file name it is generated as (the name tells some formats apart), then any
# further arguments of gen-big.py (@SAMPLES@: one sample per 3 MB, an eval log's shape).
KINDS=(
    "trajectory big.traj"
    "claude-code big.jsonl"
    "openhands big.json"
    "mini-swe-agent big.traj.json"
    "codex rollout-big.jsonl"
    "droid big.jsonl"
    "hf-trace big.jsonl"
    "chat big.jsonl"
    "kimi-cli wire.jsonl"
    "copilot-cli events.jsonl"
    "cursor big.jsonl"
    "gemini-cli session-big.json"
    "inspect-ai big.json"
    "inspect-ai big-samples.json --samples @SAMPLES@"
    "aider big.aider.chat.history.md"
    "llama big-prompt.txt"
    "otel-genai traces.jsonl"
    "otel-genai traces.json"
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| format | file | steps | command | peak RSS | time |"
echo "|---|---|---|---|---|---|"
for entry in "${KINDS[@]}"; do
    kind=${entry%% *}
    rest=${entry#* }
    name=${rest%% *}
    extra=()
    if [ "$rest" != "$name" ]; then
        samples=$(( MB / 3 > 2 ? MB / 3 : 2 ))
        read -r -a extra <<<"${rest#* }"
        extra=("${extra[@]/@SAMPLES@/$samples}")
    fi
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$kind"; then
        continue
    fi
    mkdir -p "$tmp/in"
    file="$tmp/in/$name"
    if ! python3 "$HERE/gen-big.py" "$kind" "$file" --mb "$MB" "${extra[@]}" >/dev/null 2>"$tmp/gen-err"; then
        echo "| $kind | - | - | (not generated: $(head -1 "$tmp/gen-err")) | - | - |"
        continue
    fi
    size=$(( ($(stat -c %s "$file") + 524288) / 1048576 ))
    steps="?"
    format=$kind
    for cmd in "ls --json" "stats"; do
        rm -rf "$tmp/cache"
        set +e
        # shellcheck disable=SC2086
        TRAJSCOPE_CACHE_DIR="$tmp/cache" /usr/bin/time -f "%M %e" -o "$tmp/time" \
            bash -c 'ulimit -v "$1"; shift; exec "$@"' limit $((LIMIT_MB * 1024)) \
            "$BIN" $cmd "$file" >"$tmp/out" 2>"$tmp/err"
        status=$?
        set -e
        if [ "$cmd" = "ls --json" ]; then
            IFS=$'\t' read -r format steps < <(python3 -c '
import json, sys
try:
    rows = json.load(open(sys.argv[1]))
    rows = rows if isinstance(rows, list) else rows.get("trajectories", [])
    fmt = rows[0].get("format", "?") if rows else "?"
    n = sum(r.get("steps") or 0 for r in rows)
    many = f" in {len(rows):,} trajectories" if len(rows) > 1 else ""
    print(f"{fmt}\t{n:,}{many}")
except Exception:
    print("?\t?")' "$tmp/out")
        fi
        rss=$(tail -1 "$tmp/time" | cut -d' ' -f1)
        wall=$(tail -1 "$tmp/time" | cut -d' ' -f2)
        [[ "$rss" =~ ^[0-9]+$ ]] || rss=0
        note=""
        if [ "$status" != 0 ]; then
            note=" (exit $status: $(grep -v '^Command' "$tmp/err" | head -1 | cut -c1-80)"
            if [ "$status" = 134 ]; then note="$note; over the ${LIMIT_MB} MB limit"; fi
            note="$note)"
        fi
        echo "| $format ($name) | ${size} MB | $steps | \`$cmd\`$note | $((rss / 1024)) MB | ${wall} s |"
    done
    rm -rf "$tmp/in"
done
