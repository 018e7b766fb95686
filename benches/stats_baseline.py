#!/usr/bin/env python3
"""The plain-Python baseline for `trajscope stats`: json-load every trajectory file of a run and
count, in each step's fields, how often each pattern occurs (patterns: one per line of
benches/stats_literals.txt). This is the script people write today instead of trajscope."""
import json
import os
import sys


def steps(doc):
    """(observation, action, thought, response) per step, for SWE-agent and mini-swe-agent."""
    if isinstance(doc, dict) and isinstance(doc.get("trajectory"), list):
        for s in doc["trajectory"]:
            yield [str(s.get(k) or "") for k in ("observation", "action", "thought", "response")]
    elif isinstance(doc, dict) and isinstance(doc.get("messages"), list):
        for m in doc["messages"]:
            if isinstance(m, dict):
                yield [str(m.get("content") or "")]


def main(root, patterns_file):
    patterns = [p for p in open(patterns_file).read().splitlines() if p]
    counts = {p: [0, 0, 0] for p in patterns}  # matches, steps, trajectories
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in sorted(filenames):
            if not name.endswith((".traj", ".traj.json")):
                continue
            with open(os.path.join(dirpath, name)) as f:
                doc = json.load(f)
            seen = set()
            for fields in steps(doc):
                for p in patterns:
                    n = sum(text.count(p) for text in fields)
                    if n:
                        counts[p][0] += n
                        counts[p][1] += 1
                        seen.add(p)
            for p in seen:
                counts[p][2] += 1
    for p, (m, s, t) in counts.items():
        print(f"{p}\t{m}\t{s}\t{t}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
