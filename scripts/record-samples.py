#!/usr/bin/env python3
"""Write trajscope's sample trajectories (sample-trajectories/) from the sample repository.

Every action in every sample is executed for real, in a fresh git copy of
sample-trajectories/repo, and its output becomes the recorded observation; only the model's
words are scripted. The mini-swe-agent text-mode sample is recorded exactly as mini-swe-agent
runs commands (bash in the repository root, stdout and stderr together), so `trajscope replay
--workspace` can re-execute its steps and get the same observations.

Usage:
  scripts/record-samples.py                      rewrite sample-trajectories/
  scripts/record-samples.py --check              regenerate elsewhere and diff (exit 1 on drift)
  scripts/record-samples.py --prepare-workspace DIR
                                                 DIR = the repository at its starting state,
                                                 as a git repository (for replay --workspace)

Needs only python3 (stdlib), bash, git, sed, grep, diff and nl. Recorded with Python 3.11:
other versions word SyntaxError carets slightly differently.
"""

import argparse
import filecmp
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep scripts/samples/ free of __pycache__

from samples import (  # noqa: E402
    aider,
    chat,
    claude_code,
    cli_agents,
    claude_code_subagents,
    codex,
    inspect_ai,
    llama,
    mini_swe_agent,
    openhands,
    results,
    swe_agent,
)
from samples.workspace import SAMPLES, prepare  # noqa: E402

# What the generator owns in sample-trajectories/ (the repository, the issues and the README
# are written by hand).
GENERATED = [
    "mini-swe-agent",
    "mini-swe-agent-v2",
    "swe-agent",
    "swe-agent-coder",
    "openhands",
    "inspect-ai",
    "claude-code",
    "codex",
    "aider",
    "llama",
    "chat",
    "gemini-cli",
    "copilot-cli",
    "cursor",
    "kimi-cli",
    "opencode",
    "droid",
    "hf-trace",
    "otel-genai",
]


def generate(out):
    for folder in GENERATED:
        shutil.rmtree(os.path.join(out, folder), ignore_errors=True)
    mini_one, mini_two = mini_swe_agent.write(out)
    v11, coder = swe_agent.write(out)
    events, lines = openhands.write(out)
    inspect_ai.write(out)
    claude_code.write(out)
    claude_code_subagents.write(out)
    codex.write(out)
    aider.write(out)
    llama.write(out)
    chat.write(out)
    cli_agents.write(out)
    results.write(
        out,
        {
            "mini-swe-agent": {"tinycalc__tinycalc-1": mini_one["info"]["submission"]},
            "mini-swe-agent-v2": {"tinycalc__tinycalc-2": mini_two["info"]["submission"]},
            "swe-agent": {"tinycalc__tinycalc-1": v11["info"]["submission"]},
            "swe-agent-coder": {"tinycalc__tinycalc-1": coder["info"]["submission"]},
        },
    )
    leaked = [p for p in files(out) if "trajscope-sample-" in read(p)]
    if leaked:
        sys.exit("scratch paths leaked into: " + ", ".join(leaked))


def files(root):
    for folder in GENERATED:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in names:
                yield os.path.join(dirpath, name)


def read(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", errors="replace")


def check():
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        fresh = {os.path.relpath(p, tmp) for p in files(tmp)}
        kept = {os.path.relpath(p, SAMPLES) for p in files(SAMPLES)}
        drift = sorted(fresh ^ kept)
        drift += sorted(
            p for p in fresh & kept if not filecmp.cmp(os.path.join(tmp, p), os.path.join(SAMPLES, p), shallow=False)
        )
    for path in drift:
        print("differs:", path)
    return 1 if drift else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="regenerate in a scratch folder and compare")
    parser.add_argument("--prepare-workspace", metavar="DIR", help="copy the repository to DIR as a git repository")
    args = parser.parse_args()
    if args.prepare_workspace:
        prepare(args.prepare_workspace)
        print(os.path.abspath(args.prepare_workspace))
        return 0
    if args.check:
        return check()
    generate(SAMPLES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
