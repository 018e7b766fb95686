"""A Claude Code session `.jsonl` (as written to ~/.claude/projects/<project>/<session>.jsonl).

One API response is written as one line per content block (thinking, text, tool_use), all
sharing `message.id` and `requestId`; tool results come back as user lines with a
`toolUseResult` (an Edit's carries `structuredPatch`).
"""

import json
import os

from .workspace import Clock, Workspace, hunks, ident, issue, tokens, uuid_for

ROOT = "/home/dev/tinycalc"
MODEL = "claude-sonnet-4-5-20250929"
VERSION = "2.0.14"
BROKEN = 'value = value / right if right else raise ZeroDivisionError("division by zero")'
EVALUATOR = f"{ROOT}/tinycalc/evaluator.py"
REPRO = "python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'), evaluate('1 / 3'), evaluate('-7 / 2'))\""

# Each turn: (thinking or None, text, tool name, tool input).
TURNS = [
    (
        "The issue says `/` floors. Division is probably in the evaluator; read it first, then reproduce.",
        "I'll start by reading the evaluator.",
        "Read",
        {"file_path": EVALUATOR},
    ),
    (None, "Line 34 uses `//`. Let me reproduce the issue.", "Bash", {"command": REPRO, "description": "Reproduce the division issue"}),
    (
        None,
        "Confirmed. I'll switch to true division and raise a clear error for a zero divisor.",
        "Edit",
        {"file_path": EVALUATOR, "old_string": "value = value // right", "new_string": BROKEN},
    ),
    (None, "Let me check the result.", "Bash", {"command": REPRO, "description": "Check the fix"}),
    (
        "`raise` is a statement, so it cannot be used in a conditional expression. Does the project have an operators module with its own errors?",
        "That's a SyntaxError: `raise` can't appear inside an expression. Let me see whether the project has an operators module for this.",
        "Read",
        {"file_path": f"{ROOT}/tinycalc/operators.py"},
    ),
    (
        None,
        "There's no such module, and Python's `/` already raises `ZeroDivisionError`. Plain true division is enough.",
        "Edit",
        {"file_path": EVALUATOR, "old_string": BROKEN, "new_string": "value = value / right"},
    ),
    (
        None,
        "Now the examples from the issue and the test suite.",
        "Bash",
        {"command": REPRO + " && python3 -m unittest 2>&1 | tail -n 1", "description": "Verify the fix and run the tests"},
    ),
]

FINAL = (
    "Fixed. In `tinycalc/evaluator.py`, division used floor division (`value // right`); it now "
    "uses true division (`value / right`):\n\n- `7 / 2` → `3.5`\n- `1 / 3` → `0.3333333333333333`\n"
    "- `-7 / 2` → `-3.5`\n\nDivision by zero still raises `ZeroDivisionError`, and all tests pass."
)


def read_result(ws, path):
    if not ws.exists(path):
        return "<tool_use_error>File does not exist.</tool_use_error>", True, "Error: File does not exist."
    text = ws.read(path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    shown = "\n".join(f"{n:>6}→{line}" for n, line in enumerate(lines, 1))
    result = {"type": "text", "file": {"filePath": path, "content": text, "numLines": len(lines), "startLine": 1, "totalLines": len(lines)}}
    return shown, False, result


def edit_result(ws, tool_input):
    path, old, new = tool_input["file_path"], tool_input["old_string"], tool_input["new_string"]
    before, after = ws.replace(path, old, new)
    line = before.split(old)[0].count("\n")
    start = max(0, line - 4)
    snippet = after.split("\n")[start : line + 5]
    shown = "\n".join(f"{n:>6}→{text}" for n, text in enumerate(snippet, start + 1))
    content = f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n{shown}"
    result = {
        "filePath": path,
        "oldString": old,
        "newString": new,
        "originalFile": before,
        "structuredPatch": hunks(before, after),
        "userModified": False,
        "replaceAll": False,
    }
    return content, False, result


def bash_result(ws, command):
    code, out, err = ws.bash_split(command)
    if code == 0:
        return (out + err).rstrip("\n"), False, {"stdout": out.rstrip("\n"), "stderr": err.rstrip("\n"), "interrupted": False, "isImage": False}
    combined = (err + out).rstrip("\n")
    return f"Exit code {code}\n{combined}", True, f"Error: Exit code {code}\n{combined}"


def session(instance_id="tinycalc__tinycalc-1"):
    session_id = uuid_for("claude-code-" + instance_id)
    clock = Clock("2025-03-18T16:20:03Z")
    lines = []
    parent = None
    context = 0

    def base(kind, uuid):
        return {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": ROOT,
            "sessionId": session_id,
            "version": VERSION,
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": clock.iso(),
        }

    def emit(line):
        nonlocal parent
        lines.append(line)
        parent = line["uuid"]

    prompt = f"Please fix this issue in the repository:\n\n{issue(instance_id).strip()}"
    emit({**base("user", uuid_for(session_id + "u0")), "message": {"role": "user", "content": prompt}})
    context += tokens(prompt) + 3500  # the system prompt and tool definitions

    with Workspace(shown_as=ROOT) as ws:
        for n, (thinking, text, tool, tool_input) in enumerate(TURNS, 1):
            clock.tick(3)
            message_id = ident("msg_01", f"{session_id}-m{n}", 22)
            request_id = ident("req_011C", f"{session_id}-r{n}", 20)
            tool_id = ident("toolu_01", f"{session_id}-t{n}", 22)
            output = tokens(thinking or "", text, json.dumps(tool_input))
            usage = {"input_tokens": 6, "cache_creation_input_tokens": 420, "cache_read_input_tokens": context, "output_tokens": output, "service_tier": "standard"}
            blocks = []
            if thinking:
                blocks.append({"type": "thinking", "thinking": thinking, "signature": ident("", f"{message_id}-sig", 64)})
            blocks.append({"type": "text", "text": text})
            blocks.append({"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input})
            for k, block in enumerate(blocks):
                clock.tick(0.7)
                emit(
                    {
                        **base("assistant", uuid_for(f"{session_id}-a{n}-{k}")),
                        "message": {
                            "id": message_id,
                            "type": "message",
                            "role": "assistant",
                            "model": MODEL,
                            "content": [block],
                            "stop_reason": None,
                            "stop_sequence": None,
                            "usage": usage,
                        },
                        "requestId": request_id,
                    }
                )
            if tool == "Read":
                content, is_error, result = read_result(ws, tool_input["file_path"])
            elif tool == "Edit":
                content, is_error, result = edit_result(ws, tool_input)
            else:
                content, is_error, result = bash_result(ws, tool_input["command"])
            clock.tick(1.2)
            emit(
                {
                    **base("user", uuid_for(f"{session_id}-r{n}")),
                    "message": {"role": "user", "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": content, "is_error": is_error}]},
                    "toolUseResult": result,
                }
            )
            context += tokens(thinking or "", text, json.dumps(tool_input), content)

    clock.tick(4)
    n = len(TURNS) + 1
    emit(
        {
            **base("assistant", uuid_for(f"{session_id}-a{n}-0")),
            "message": {
                "id": ident("msg_01", f"{session_id}-m{n}", 22),
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [{"type": "text", "text": FINAL}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 6, "cache_creation_input_tokens": 210, "cache_read_input_tokens": context, "output_tokens": tokens(FINAL), "service_tier": "standard"},
            },
            "requestId": ident("req_011C", f"{session_id}-r{n}", 20),
        }
    )
    summary = {"type": "summary", "summary": "Fix floor division in tinycalc evaluator", "leafUuid": parent}
    return [summary] + lines


def write(out):
    lines = session()
    path = os.path.join(out, "claude-code", "tinycalc__tinycalc-1.jsonl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
    return lines
