#!/usr/bin/env bash
# Tallying benchmark (issues 4 and 22): `trajscope stats --json --no-cache` with the default
# rules over a run, against, in the same hyperfine run, (a) `rg -c -F` with the rules' literal
# patterns over the same files, (b) a plain Python script that json-loads each file and counts
# the patterns in the step fields, (c) `cat` of the files (reading the bytes from the page
# cache: the floor), and `ls --json --no-cache` against the Python script that json-loads each
# file and counts its steps. Prints the ratios. Goals (issue 22): stats <= 1.5x rg's time and
# >= 15x faster than Python; ls >= 10x faster than Python. `benches/scale.sh` measures the
# cached tally and a run of 5,000. `exact` is the same stats with the raw-byte tally off.
#
#   benches/stats.sh [RUN_DIR]     (default: ../shared/corpus/coder-swebench-lite/trajs)
#   RUNS=20 benches/stats.sh       more runs for a steadier mean
#   BIN=path/to/trajscope benches/stats.sh    time that build instead of building one
#   BASE=path/to/trajscope benches/stats.sh   also time that build (`base`, `base-ls`) in
#                                  the same run: before/after figures side by side
set -euo pipefail
cd "$(dirname "$0")/.."
run="${1:-../shared/corpus/coder-swebench-lite/trajs}"
[ -d "$run" ] || { echo "skipping: $run is not present"; exit 0; }
for tool in hyperfine rg python3; do
  command -v "$tool" >/dev/null || { echo "$tool is needed"; exit 1; }
done
[ -n "${BIN:-}" ] || cargo build --release --quiet
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# A private copy: a shared build folder can swap target/release under us mid-run.
cp "${BIN:-target/release/trajscope}" "$out/trajscope"
# The five literals of issue 22's `rg -c -F` command and Python script; rg-all searches every
# literal of benches/stats_literals.txt (the rules' fixed strings).
patterns=benches/stats_literals_issue22.txt
rg_args=()
while IFS= read -r p; do [ -n "$p" ] && rg_args+=(-e "$p"); done < "$patterns"
rg_all=()
while IFS= read -r p; do [ -n "$p" ] && rg_all+=(-e "$p"); done < benches/stats_literals.txt
# The same user config for every run: none.
export XDG_CONFIG_HOME="$out"
base=()
if [ -n "${BASE:-}" ]; then
  cp "$BASE" "$out/base"
  base=(-n base "$out/base stats --json --no-cache '$run' > /dev/null"
        -n base-ls "$out/base ls --json --no-cache '$run' > /dev/null")
fi
uptime
hyperfine --warmup 2 --runs "${RUNS:-10}" --export-json "$out/stats.json" "${base[@]}" \
  -n trajscope "$out/trajscope stats --json --no-cache '$run' > /dev/null" \
  -n exact "TRAJSCOPE_EXACT_TALLY=1 $out/trajscope stats --json --no-cache '$run' > /dev/null" \
  -n rg "rg -c -F ${rg_args[*]@Q} '$run' > /dev/null" \
  -n rg-all "rg -c -F ${rg_all[*]@Q} '$run' > /dev/null" \
  -n python "python3 benches/stats_baseline.py '$run' $patterns > /dev/null" \
  -n cat "find '$run' -type f -exec cat {} + > /dev/null" \
  -n ls "$out/trajscope ls --json --no-cache '$run' > /dev/null" \
  -n python-ls "python3 benches/load_baseline.py '$run' > /dev/null"
python3 - "$out/stats.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
# Best of the runs (the issue's measure: the least disturbed by other work on the machine),
# and the mean beside it.
best = {k: min(v["times"]) for k, v in r.items()}
mean = {k: v["mean"] for k, v in r.items()}
for k in r:
    print(f"  {k:10} best {best[k]*1000:7.1f} ms   mean {mean[k]*1000:7.1f} ms")
for name, m in (("best", best), ("mean", mean)):
    t, g, p, c = m["trajscope"], m["rg"], m["python"], m["cat"]
    print(f"{name}: stats takes {t/g:.2f}x rg's time (goal <= 1.5x; {t/m['rg-all']:.2f}x rg-all's),"
          f" {t/c:.2f}x cat's;"
          f" {p/t:.1f}x faster than python (goal >= 15x);"
          f" ls is {m['python-ls']/m['ls']:.1f}x faster than python (goal >= 10x);"
          f" the exact path (TRAJSCOPE_EXACT_TALLY=1) takes {m['exact']/t:.2f}x the raw-byte one's time")
# CPU time (user + system, mean of the runs): steadier than wall time when other work shares
# the cores, and what two cores can overlap.
cpu = {k: v["user"] + v["system"] for k, v in r.items()}
t = cpu["trajscope"]
print(f"cpu: stats {t*1000:.1f} ms = {t/cpu['rg']:.2f}x rg's, {t/cpu['cat']:.2f}x cat's;"
      f" python takes {cpu['python']/t:.1f}x; ls {cpu['ls']*1000:.1f} ms, python-ls takes"
      f" {cpu['python-ls']/cpu['ls']:.1f}x")
if "base" in r:
    for name, m in (("best", best), ("mean", mean), ("cpu", cpu)):
        print(f"{name}: base stats {m['base']*1000:.1f} ms -> {m['trajscope']*1000:.1f} ms"
              f" ({m['base']/m['trajscope']:.2f}x faster); base ls {m['base-ls']*1000:.1f} ms"
              f" -> {m['ls']*1000:.1f} ms ({m['base-ls']/m['ls']:.2f}x faster)")
PY
