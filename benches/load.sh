#!/usr/bin/env bash
# Loading benchmark (issue 2): `trajscope ls --json` over a run versus a plain Python
# json.load of the same files, in the same hyperfine run, read in full (--no-cache) and from
# the run cache of per-file summaries. Prints the ratios.
#
#   benches/load.sh [RUN_DIR]     (default: ../shared/corpus/coder-swebench-lite)
set -euo pipefail
cd "$(dirname "$0")/.."
run="${1:-../shared/corpus/coder-swebench-lite}"
[ -d "$run" ] || { echo "skipping: $run is not present"; exit 0; }
command -v hyperfine >/dev/null || { echo "hyperfine is needed (apt-get install hyperfine)"; exit 1; }
cargo build --release --quiet
bin=target/release/trajscope
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
hyperfine --warmup 2 --runs "${RUNS:-10}" --export-json "$out/load.json" \
  -n trajscope "$bin ls --json --no-cache '$run' > /dev/null" \
  -n trajscope-cached "$bin ls --json '$run' > /dev/null" \
  -n python "python3 benches/load_baseline.py '$run' > /dev/null"
python3 - "$out/load.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
t, c, p = (r[k]["mean"] for k in ("trajscope", "trajscope-cached", "python"))
print(f"python json.load: {p*1000:.0f} ms")
print(f"trajscope ls --json --no-cache: {t*1000:.0f} ms -> {p/t:.1f}x faster than python")
print(f"trajscope ls --json (run cache): {c*1000:.0f} ms -> {p/c:.1f}x faster than python")
PY
