#!/usr/bin/env bash
# Loading benchmark (issue 2): `trajscope ls --json` over a run versus a plain Python
# json.load of the same files, in the same hyperfine run. Prints the ratio. Without the run
# cache (`--no-cache`): with it, trajscope would only be reading its cache.
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
  -n python "python3 benches/load_baseline.py '$run' > /dev/null"
python3 - "$out/load.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
t, p = r["trajscope"]["mean"], r["python"]["mean"]
print(f"trajscope ls --json: {t*1000:.0f} ms, python json.load: {p*1000:.0f} ms -> trajscope is {p/t:.1f}x faster")
PY
