#!/usr/bin/env bash
# Whether a build prints byte for byte what another prints (`cmp` of stdout and stderr, and
# the exit code): `stats --json --no-cache` (raw-byte and exact tally, each rule pack),
# `ls --json --no-cache`, `ls --no-cache` (table) and `show --json` over the corpus, each of
# its folders and the run folders given (e.g. the split halves of the generated run).
#   NEW=target/release/trajscope BASE=/work/bench/trajscope-68fe44a scripts/same-output.sh [RUN…]
# Prints one line per difference and a count; exits 1 when any.
set -u
NEW=${NEW:-target/release/trajscope}
BASE=${BASE:?BASE=the binary to compare with}
CORPUS=${CORPUS:-../shared/corpus}
SCRATCH=$(mktemp -d /tmp/same-output.XXXXXX)
export TRAJSCOPE_CACHE_DIR=$SCRATCH/cache
export TRAJSCOPE_GIT_REV=${TRAJSCOPE_GIT_REV:-dev}
CORNERS=${CORNERS:-$SCRATCH/corners.toml}
if [ ! -f "$CORNERS" ]; then
    # The corner rules of tests/sparse_tally.rs, taken from the test itself.
    sed -n "/^const CORNERS: &str = r#\"/,/^\"#;/p" tests/sparse_tally.rs | sed '1d;$d' >"$CORNERS"
fi
differ=0
checked=0
same() { # label, then the command's arguments
    local label=$1
    shift
    "$NEW" "$@" >"$SCRATCH/new" 2>"$SCRATCH/new.err"
    local a=$?
    "$BASE" "$@" >"$SCRATCH/base" 2>"$SCRATCH/base.err"
    local b=$?
    checked=$((checked + 1))
    if [ $a != $b ] || ! cmp -s "$SCRATCH/new" "$SCRATCH/base" \
        || ! cmp -s "$SCRATCH/new.err" "$SCRATCH/base.err"; then
        echo "DIFFERS ($a vs $b): $label: $*"
        differ=$((differ + 1))
    fi
}
folders=("$CORPUS" "$CORPUS"/*/ "$@")
for dir in "${folders[@]}"; do
    [ -d "$dir" ] || continue
    same stats stats --json --no-cache "$dir"
    TRAJSCOPE_EXACT_TALLY=1 same "stats exact" stats --json --no-cache "$dir"
    same ls ls --json --no-cache "$dir"
    same "ls table" ls --no-cache "$dir"
    for rules in swe-bench-pro-failure-modes sniffly-claude-code-errors "$CORNERS"; do
        same "stats $rules" stats --json --no-cache --only-rules "$rules" "$dir"
    done
done
# show --json: every mini-swe-agent file of the corpus and the samples, every seventh file of
# the corpus, and a few of each run.
while IFS= read -r file; do
    same show show --json "$file"
done < <(
    find "$CORPUS" sample-trajectories -name '*.traj.json' 2>/dev/null
    find "$CORPUS" -type f \( -name '*.traj' -o -name '*.json' -o -name '*.jsonl' \) | sort |
        awk 'NR % 7 == 1'
    for dir in "$@"; do find "$dir" -name '*.traj.json' | sort | head -20; done
)
echo "$checked outputs compared, $differ differ"
rm -rf "$SCRATCH"
[ $differ = 0 ]
