"""Per-mode step counts of nilenso's published SWE-Bench Pro failure-mode classifier on the
SWE-agent trajectories (*.traj) under a folder. Imports the classifier unchanged from a
checkout of nilenso/swe-bench-pro-cost-token-time-analysis (argument 1) and reads each file
the way its scripts/build_failure_modes.py does: data["trajectory"], each step's
"action" and "observation" (missing or null -> "").

usage: python3 nilenso_reference.py CHECKOUT CORPUS [--steps]
"""
import json, sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, sys.argv[1])
from analysis.failure_modes import FAILURE_MODES, classify_failure  # noqa: E402

corpus = Path(sys.argv[2])
steps_out = "--steps" in sys.argv
counts, trajs = Counter(), Counter()
files = 0
for path in sorted(corpus.rglob("*.traj")):
    data = json.loads(path.read_text())
    traj = data.get("trajectory") or []
    if not traj:
        continue
    files += 1
    seen = set()
    for i, step in enumerate(traj, 1):
        mode = classify_failure(step.get("action") or "", step.get("observation") or "")
        if mode:
            counts[mode] += 1
            seen.add(mode)
            if steps_out:
                print(f"{path.relative_to(corpus)}\t{i}\t{mode}")
    trajs.update(seen)
if not steps_out:
    print(f"# {files} trajectories")
    for key, *_ in FAILURE_MODES:
        print(f"{key}\t{counts[key]}\t{trajs[key]}")
