#!/usr/bin/env bash
# Scale benchmark (issue 8): generates a big run and a big trajectory from the corpus shapes
# (scripts/gen-big.py, into a scratch folder, never the repository), then measures in the
# same hyperfine runs trajscope against the plain tools people would use instead:
#   run of N files:  `stats` (no cache, then cached) vs `rg -c -F` with issue 22's five
#                    literals (rg-all: every literal of benches/stats_literals.txt), `cat` of
#                    the files (the floor) and the Python stats script (benches/stats_baseline.py),
#                    `ls --json` (no cache, then cached) vs `jq` reading every file and a
#                    Python json.load script; peak RSS of each trajscope command.
#   one big file:    `ls` vs `jq '.trajectory|length'` and Python json.load; peak RSS.
#   the TUI (tmux, benches/tui-load.sh): the run listed with an empty cache and reopened
#                    with a warm one; the big file opened, cold and reopened.
# Prints ratios (trajscope time / peer time).
#
#   benches/scale.sh [SCRATCH_DIR]      (default /tmp/trajscope-scale)
#   COUNT=5000 MB=200 RUNS=3 benches/scale.sh
#   SKIP_BIG=1 SKIP_TUI=1 benches/scale.sh    the run of N files only
#   BIN=path/to/trajscope benches/scale.sh    time that build instead of building one
#   BASE=path/to/trajscope benches/scale.sh   also time that build's uncached `stats` and
#                                  `ls` (base-stats, base-ls) in the same run: before/after
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${1:-/tmp/trajscope-scale}"
count="${COUNT:-5000}"
mb="${MB:-200}"
runs="${RUNS:-3}"
for tool in hyperfine rg jq python3 tmux bc; do
  command -v "$tool" >/dev/null || { echo "$tool is needed"; exit 1; }
done
[ -d ../shared/corpus ] || { echo "skipping: ../shared/corpus is not present"; exit 0; }
mkdir -p "$scratch"
# trajscope looks for eval results in the folders above a run, up to a repository root: a
# marker here keeps it from parsing whatever JSON other tools left directly in /tmp (other
# engineers' 15 MB outputs there once took seconds and 130 MB of every `stats` of the run).
mkdir -p "$scratch/.git"
run="$scratch/run$count"
big="$scratch/big$mb.traj"
[ -f "$run/results.json" ] || python3 scripts/gen-big.py run "$run" --count "$count"
[ -n "${SKIP_BIG:-}" ] || [ -f "$big" ] || python3 scripts/gen-big.py trajectory "$big" --mb "$mb"
[ -n "${BIN:-}" ] || cargo build --release --quiet
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A private copy: a shared build folder can swap target/release under us mid-run.
cp "${BIN:-target/release/trajscope}" "$out/trajscope"
base=()
if [ -n "${BASE:-}" ]; then
  cp "$BASE" "$out/base"
  base=(-n base-stats "$out/base stats --json --no-cache '$run' > /dev/null"
        -n base-ls "$out/base ls --json --no-cache '$run' > /dev/null")
fi
bin="$out/trajscope"
export XDG_CONFIG_HOME="$out" TRAJSCOPE_CACHE_DIR="$out/cache"
rg_args=()
while IFS= read -r p; do [ -n "$p" ] && rg_args+=(-e "$p"); done < benches/stats_literals_issue22.txt
rg_all=()
while IFS= read -r p; do [ -n "$p" ] && rg_all+=(-e "$p"); done < benches/stats_literals.txt

rss() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1; }
echo "peak RSS (KB): stats --no-cache $(rss "$bin" stats --json --no-cache "$run")" \
  "(exact path $(TRAJSCOPE_EXACT_TALLY=1 rss "$bin" stats --json --no-cache "$run"))," \
  "ls --no-cache $(rss "$bin" ls --json --no-cache "$run")," \
  "ls of the big file $([ -n "${SKIP_BIG:-}" ] || rss "$bin" ls --no-cache "$big")"
"$bin" stats --json "$run" > /dev/null   # fills the cache for the cached runs

uptime
hyperfine --warmup "${WARMUP:-1}" --runs "$runs" --export-json "$out/run.json" "${base[@]}" \
  -n stats "$bin stats --json --no-cache '$run' > /dev/null" \
  -n stats-cached "$bin stats --json '$run' > /dev/null" \
  -n stats-exact "TRAJSCOPE_EXACT_TALLY=1 $bin stats --json --no-cache '$run' > /dev/null" \
  -n rg "rg -c -F ${rg_args[*]@Q} '$run' > /dev/null" \
  -n rg-all "rg -c -F ${rg_all[*]@Q} '$run' > /dev/null" \
  -n cat "find '$run' -type f -exec cat {} + > /dev/null" \
  -n python-stats "python3 benches/stats_baseline.py '$run' benches/stats_literals_issue22.txt > /dev/null" \
  -n ls "$bin ls --json --no-cache '$run' > /dev/null" \
  -n ls-cached "$bin ls --json '$run' > /dev/null" \
  -n jq "find '$run' -name '*.traj*' -exec jq -c '{id: .instance_id, n: ((.trajectory // .messages) | length)}' {} + > /dev/null" \
  -n python "python3 benches/load_baseline.py '$run' > /dev/null"
if [ -n "${SKIP_BIG:-}" ]; then echo '{"results": []}' > "$out/big.json"; else
hyperfine --warmup "${WARMUP:-1}" --runs "$runs" --export-json "$out/big.json" \
  -n ls "$bin ls --no-cache '$big' > /dev/null 2>&1" \
  -n jq "jq '.trajectory | length' '$big' > /dev/null" \
  -n python "python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))[\"trajectory\"]))' '$big' > /dev/null"
fi
python3 - "$out/run.json" "$out/big.json" "$count" "$mb" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["results"]
r = {x["command"]: x["mean"] for x in runs}
best = {x["command"]: min(x["times"]) for x in runs}
b = {x["command"]: x["mean"] for x in json.load(open(sys.argv[2]))["results"]}
print(f"run of {sys.argv[3]} files (mean, best):")
for k, v in r.items():
    print(f"  {k:13} {v:7.2f} s  {best[k]:7.2f} s")
for name, m in (("mean", r), ("best", best)):
    print(f"  {name}: stats / rg -c: {m['stats']/m['rg']:.2f}x (goal <= 1.5x; / rg-all {m['stats']/m['rg-all']:.2f}x)"
          f"   stats / cat: {m['stats']/m['cat']:.2f}x   python / stats: {m['python-stats']/m['stats']:.1f}x (goal >= 15x)"
          f"   python / ls: {m['python']/m['ls']:.1f}x (goal >= 10x)")
print(f"  stats-cached / rg -c: {r['stats-cached']/r['rg']:.2f}x   stats-exact / stats: {r['stats-exact']/r['stats']:.2f}x")
# CPU time (user + system, mean): steadier than wall time when other work shares the cores.
cpu = {x["command"]: x["user"] + x["system"] for x in runs}
print(f"  cpu: stats {cpu['stats']:.2f} s = {cpu['stats']/cpu['rg']:.2f}x rg's, {cpu['stats']/cpu['cat']:.2f}x cat's;"
      f" python-stats takes {cpu['python-stats']/cpu['stats']:.1f}x; python / ls: {cpu['python']/cpu['ls']:.1f}x")
print(f"  ls / jq: {r['ls']/r['jq']:.2f}x   ls / python: {r['ls']/r['python']:.2f}x   ls-cached / jq: {r['ls-cached']/r['jq']:.3f}x")
if "base-ls" in r:
    for name, m in (("best", best), ("mean", r), ("cpu", cpu)):
        print(f"  {name}: base stats {m['base-stats']:.2f} s -> {m['stats']:.2f} s"
              f" ({m['base-stats']/m['stats']:.2f}x faster); base ls {m['base-ls']:.2f} s"
              f" -> {m['ls']:.2f} s ({m['base-ls']/m['ls']:.2f}x faster)")
if b:
    print(f"one {sys.argv[4]} MB trajectory:")
    for k, v in b.items():
        print(f"  {k:13} {v:7.2f} s")
    print(f"  ls / jq: {b['ls']/b['jq']:.2f}x   ls / python: {b['ls']/b['python']:.2f}x")
PY
[ -z "${SKIP_TUI:-}" ] || exit 0
echo "TUI (first frame, done, peak RSS):"
rm -rf "$out/tui-cache"
echo "  run, empty cache:  $(benches/tui-load.sh "$bin" "$run" "^ *$count trajectories" "$out/tui-cache")"
echo "  run, reopened:     $(benches/tui-load.sh "$bin" "$run" "^ *$count trajectories" "$out/tui-cache")"
[ -z "${SKIP_BIG:-}" ] || exit 0
steps=$("$bin" ls --json --no-cache "$big" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["steps"])')
echo "  big file, cold:    $(benches/tui-load.sh "$bin" "$big" "step 1/$steps" "$out/tui-cache")"
echo "  big file, reopened: $(benches/tui-load.sh "$bin" "$big" "step 1/$steps" "$out/tui-cache")"
