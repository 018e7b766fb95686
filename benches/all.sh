#!/usr/bin/env bash
# Every benchmark of trajscope, one after the other, each printing its ratios against the
# plain tools (rg, jq, Python) measured in the same run:
#   benches/load.sh    `ls --json` vs Python json.load on the corpus (issue 2)
#   benches/stats.sh   `stats --json` vs `rg -c` and a Python counter on the corpus (issue 4)
#   benches/scale.sh   a 5,000-file run and a 200 MB trajectory, generated (issue 8)
#   cargo bench --bench render   frames of each view and keystroke-to-frame (issue 3)
#
#   benches/all.sh                 everything (scale.sh generates ~2 GB in /tmp the first time)
#   QUICK=1 benches/all.sh         skip scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."
section() { printf '\n==== %s ====\n' "$1"; }
section "load (benches/load.sh)"
benches/load.sh
section "stats (benches/stats.sh)"
benches/stats.sh
if [ -z "${QUICK:-}" ]; then
  section "scale (benches/scale.sh)"
  benches/scale.sh
fi
section "render (cargo bench --bench render)"
cargo bench --bench render
