#!/usr/bin/env python3
"""The plain-Python baseline for `trajscope ls`: json-load every file trajscope reads in a run
(.traj / .json documents, .jsonl line by line), count the steps, and print one line per file.
This is what a user writes today instead of trajscope."""
import json
import os
import sys


def main(root):
    rows = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            try:
                if name.endswith(".jsonl"):
                    with open(path) as f:
                        docs = [json.loads(line) for line in f if line.strip()]
                elif name.endswith((".traj", ".json")):
                    with open(path) as f:
                        docs = [json.load(f)]
                else:
                    continue
            except ValueError as err:
                print(f"{path}: {err}", file=sys.stderr)
                continue
            for doc in docs:
                steps = len(doc.get("trajectory", doc.get("messages", []))) if isinstance(doc, dict) else len(doc)
                print(f"{path}\t{steps}")
                rows += 1
    return rows


if __name__ == "__main__":
    main(sys.argv[1])
