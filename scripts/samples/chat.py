"""Plain OpenAI-style chat messages, one JSON object per line: what a home-made agent loop
around the chat completions API typically logs (`role`, `content`, `tool_calls`, `tool_call_id`).
"""

import json
import os

from .workspace import Workspace, ident, issue

BROKEN = 'value = value / right if right else raise ZeroDivisionError("division by zero")'

SYSTEM = (
    "You are a coding agent working in a git repository (the current directory). "
    "Use the `bash` tool to inspect and change files and to run commands. "
    "When the task is done, reply with a short summary and no tool call."
)

EDIT_BROKEN = (
    "python3 - <<'PY'\n"
    "from pathlib import Path\n"
    "p = Path('tinycalc/evaluator.py')\n"
    "p.write_text(p.read_text().replace('value = value // right', '" + BROKEN + "'))\n"
    "PY\n"
    "python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'))\""
)

STEPS = [
    ("Let me look at how `/` is evaluated.", "sed -n '26,36p' tinycalc/evaluator.py"),
    ("It uses `//`. Reproducing:", "python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'))\""),
    ("Floor division confirmed. Switching to true division with a zero check.", EDIT_BROKEN),
    ("SyntaxError: `raise` is not allowed inside an expression. Is there a helper module for the operators?", "cat tinycalc/ops.py"),
    (
        "No helper module. `/` raises ZeroDivisionError by itself, so plain true division is enough.",
        "sed -i 's|" + BROKEN + "|value = value / right|' tinycalc/evaluator.py && "
        "python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'))\" && python3 -m unittest 2>&1 | tail -n 1",
    ),
]

FINAL = "Fixed: `tinycalc/evaluator.py` now uses true division (`value / right`), so `7 / 2` returns 3.5. All tests pass."


def messages(instance_id="tinycalc__tinycalc-1"):
    out = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": issue(instance_id).strip()},
    ]
    with Workspace(shown_as="/home/dev/tinycalc") as ws:
        for n, (thought, command) in enumerate(STEPS, 1):
            call_id = ident("call_", f"chat-{instance_id}-{n}")
            out.append(
                {
                    "role": "assistant",
                    "content": thought,
                    "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": command})}}],
                }
            )
            code, output = ws.bash(command)
            out.append({"role": "tool", "tool_call_id": call_id, "content": f"exit code {code}\n{output}"})
    out.append({"role": "assistant", "content": FINAL})
    return out


def write(out):
    lines = messages()
    path = os.path.join(out, "chat", "tinycalc__tinycalc-1.jsonl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    return lines
