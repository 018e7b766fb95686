#!/usr/bin/env bash
# Tallying benchmark (issue 4): `trajscope stats --json` with the default rules over a run,
# against, in the same hyperfine run, (a) `rg -c` with the rules' literal patterns over the
# same files and (b) a plain Python script that json-loads each file and counts the patterns
# in the step fields. Prints both ratios. Goal: >= 10x faster than Python, <= 3x rg's time.
# Without the run cache (`--no-cache`): `benches/scale.sh` measures the cached tally.
#
#   benches/stats.sh [RUN_DIR]     (default: ../shared/corpus/coder-swebench-lite)
#   RUNS=20 benches/stats.sh       more runs for a steadier mean
set -euo pipefail
cd "$(dirname "$0")/.."
run="${1:-../shared/corpus/coder-swebench-lite}"
[ -d "$run" ] || { echo "skipping: $run is not present"; exit 0; }
for tool in hyperfine rg python3; do
  command -v "$tool" >/dev/null || { echo "$tool is needed"; exit 1; }
done
cargo build --release --quiet
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A private copy: a shared build folder can swap target/release under us mid-run.
cp target/release/trajscope "$out/trajscope"
patterns=benches/stats_literals.txt
rg_args=()
while IFS= read -r p; do [ -n "$p" ] && rg_args+=(-e "$p"); done < "$patterns"
# The same user config for every run: none.
export XDG_CONFIG_HOME="$out"
hyperfine --warmup 2 --runs "${RUNS:-10}" --export-json "$out/stats.json" \
  -n trajscope "$out/trajscope stats --json --no-cache '$run' > /dev/null" \
  -n rg "rg -c -F ${rg_args[*]@Q} '$run' > /dev/null" \
  -n python "python3 benches/stats_baseline.py '$run' $patterns > /dev/null"
python3 - "$out/stats.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
t, g, p = (r[k]["mean"] for k in ("trajscope", "rg", "python"))
print(f"trajscope stats: {t*1000:.0f} ms   rg -c: {g*1000:.0f} ms   python: {p*1000:.0f} ms")
print(f"trajscope is {p/t:.1f}x faster than python (goal >= 10x) and takes {t/g:.1f}x rg's time (goal <= 3x)")
PY
