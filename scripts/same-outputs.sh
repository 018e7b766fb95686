#!/usr/bin/env bash
# Whether a new build lists, tallies and shows exactly as a reference build: `ls --json
# --no-cache`, `ls --no-cache` (table), `stats --json --no-cache` on the corpus (the CodeR
# run, every folder, the whole) and on any extra folders given, and `show --json` on every
# seventh file of the corpus and three files of each extra folder. Stdout, stderr and the
# exit code are compared with `cmp`; the differing commands are named.
#
#   scripts/same-outputs.sh NEW BASE [FOLDER…]
#   e.g. scripts/same-outputs.sh target/release/trajscope /work/bench/trajscope-68fe44a \
#        /tmp/trajscope-scale/split/mini /tmp/trajscope-scale/split/swe
set -uo pipefail
new=$1
base=$2
shift 2
corpus=${TRAJSCOPE_CORPUS:-$(dirname "$0")/../../shared/corpus}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export TRAJSCOPE_CACHE_DIR="$out/cache"
dirs=("$corpus/coder-swebench-lite" "$corpus" "$@")
for d in "$corpus"/*/; do dirs+=("${d%/}"); done
failed=0 runs=0
run() {
    local label=$1
    shift
    "$base" "$@" >"$out/a.out" 2>"$out/a.err"; echo $? >>"$out/a.out"
    "$new" "$@" >"$out/b.out" 2>"$out/b.err"; echo $? >>"$out/b.out"
    runs=$((runs + 1))
    if ! cmp -s "$out/a.out" "$out/b.out" || ! cmp -s "$out/a.err" "$out/b.err"; then
        echo "differ: $label"
        failed=1
    fi
}
for d in "${dirs[@]}"; do
    run "ls --json $d" ls --json --no-cache "$d"
    run "ls $d" ls --no-cache "$d"
    run "stats --json $d" stats --json --no-cache "$d"
done
files=$(find "$corpus" -type f \( -name '*.traj' -o -name '*.json' -o -name '*.jsonl' \) | sort | awk 'NR % 7 == 1')
for d in "$@"; do
    files+=$'\n'$(find "$d" -maxdepth 1 -type f | sort | head -3)
done
while read -r f; do
    [ -n "$f" ] && run "show --json $f" show --json "$f"
done <<<"$files"
echo "$runs comparisons, $([ $failed = 0 ] && echo 'all identical' || echo 'some differ')"
exit $failed
