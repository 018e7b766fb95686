#!/usr/bin/env python3
"""Plays two agents writing their logs into DIR, the way real agents do, for trying the live
watch by hand and for scripts/tui-live-smoke.sh:

- a SWE-agent 1.1 `.traj` rewritten whole after every step, every part of it grown as
  SWE-agent does: `trajectory` gets the step (with its `query`, what the model saw), `history`
  gets the answer and the observation, `info.model_stats` the cost; the last write adds the
  exit status. By default not atomically: the file is truncated, half the JSON is written and
  flushed, then the rest (a reader can see it torn); `--style inplace` writes it in one go,
  `--style atomic` writes a temporary file and renames it over the old one. Steps 3-5 hit a
  SyntaxError three times in a row (the `syntax_errors_in_a_row` alert);
- a JSONL chat session (OpenAI messages, one per line) appended line by line, each line
  written in two halves (a reader can see half a line); its steps 2 and 7 hit a SyntaxError
  too, so that the dashboard's `syntax_error` count grows in both files.

Usage: live-writer.py DIR [--steps N] [--delay SECONDS] [--style torn|inplace|atomic]
"""

import argparse
import json
import os
import time

SYSTEM = "You are a helpful assistant that can interact with a computer to solve tasks."
TASK = "Division drops the fractional part: evaluate('7 / 2') returns 3, not 3.5."


def swe_step(i):
    if i in (3, 4, 5):
        action = f"python reproduce_{i}.py"
        observation = (
            f'  File "reproduce_{i}.py", line 2\n    print(evaluate("7 / 2")\n'
            "                           ^\nSyntaxError: '(' was never closed\n"
        )
    elif i == 1:
        action = "grep -rn '//' tinycalc"
        observation = "tinycalc/evaluator.py:34:            value = value // right\n"
    else:
        action = f"sed -n '{20 + i},{30 + i}p' tinycalc/evaluator.py"
        observation = f"line {20 + i}\nline {21 + i}\n"
    thought = f"Step {i}: let me look further."
    return {
        "action": action,
        "observation": observation,
        "response": f"{thought}\n\n```\n{action}\n```",
        "thought": thought,
        "execution_time": 0.1,
        "state": {"working_dir": "/testbed"},
    }


def swe_document(steps, done):
    history = [
        {"role": "system", "content": SYSTEM, "agent": "main", "message_type": "system_prompt"},
        {"role": "user", "content": TASK, "agent": "main", "message_type": "observation"},
    ]
    trajectory = []
    for s in steps:
        # 1.1 stores what the model saw at each step: the history so far (the messages'
        # text, without the bookkeeping fields).
        query = [{"role": m["role"], "content": m["content"]} for m in history]
        trajectory.append(dict(s, query=query))
        history.append({"role": "assistant", "content": s["response"], "thought": s["thought"],
                        "action": s["action"], "agent": "main", "message_type": "action"})
        history.append({"role": "user", "content": s["observation"], "agent": "main",
                        "message_type": "observation"})
    info = {"swe_agent_version": "1.1.0",
            "model_stats": {"instance_cost": round(0.05 * len(steps), 2), "api_calls": len(steps)}}
    if done:
        info["exit_status"] = "submitted"
        info["submission"] = "diff --git a/x b/x\n"
    return {"trajectory": trajectory, "history": history, "info": info,
            "environment": "swe_main", "replay_config": None}


def rewrite(path, data, pause, style):
    """torn: truncate, write half, flush, pause, write the rest (a reader may see it torn);
    inplace: truncate and write; atomic: write beside it and rename over it."""
    text = json.dumps(data, indent=2)
    if style == "atomic":
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
        return
    half = len(text) // 2 if style == "torn" else len(text)
    with open(path, "w") as f:
        f.write(text[:half])
        f.flush()
        if style == "torn":
            time.sleep(pause)
        f.write(text[half:])


def chat_lines(n):
    yield {"role": "system", "content": "You are a coding agent working in a git repository."}
    yield {"role": "user", "content": TASK}
    for i in range(1, n + 1):
        call = {"id": f"call_{i}", "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": f"echo step-{i}"})}}
        yield {"role": "assistant", "content": f"Step {i}.", "tool_calls": [call]}
        output = f"step-{i}\n"
        if i in (2, 7):
            output = (f'  File "check_{i}.py", line 3\n    if x\n        ^\n'
                      "SyntaxError: expected ':'\n")
        yield {"role": "tool", "tool_call_id": f"call_{i}", "content": output}


def append(f, record, pause):
    """One line in two halves, flushed between: a reader may see half a line."""
    line = json.dumps(record) + "\n"
    half = len(line) // 2
    f.write(line[:half])
    f.flush()
    time.sleep(pause)
    f.write(line[half:])
    f.flush()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--style", choices=["torn", "inplace", "atomic"], default="torn")
    args = parser.parse_args()
    folder = os.path.join(args.dir, "demo__live-1")
    os.makedirs(folder, exist_ok=True)
    traj = os.path.join(folder, "demo__live-1.traj")
    session = os.path.join(args.dir, "session.jsonl")
    lines = list(chat_lines(args.steps))
    pause = min(args.delay / 5, 0.05)
    with open(session, "w") as chat:
        # The session's opening lines come first; then one step of each per tick.
        append(chat, lines[0], pause)
        append(chat, lines[1], pause)
        steps = []
        for i in range(1, args.steps + 1):
            steps.append(swe_step(i))
            rewrite(traj, swe_document(steps, done=i == args.steps), pause, args.style)
            for record in lines[2 * i: 2 * i + 2]:
                append(chat, record, pause)
            print(f"step {i}", flush=True)
            time.sleep(args.delay)


if __name__ == "__main__":
    main()
