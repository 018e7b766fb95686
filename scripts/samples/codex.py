"""A Codex CLI rollout `.jsonl` (~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl): one
`{timestamp, type, payload}` record per line; shell calls are `function_call`s, edits are
`apply_patch` custom tool calls.
"""

import json
import os

from .workspace import Clock, Workspace, ident, issue, tokens, uuid_for

ROOT = "/home/dev/tinycalc"
MODEL = "gpt-5-codex"
BROKEN = 'value = value / right if right else raise ZeroDivisionError("division by zero")'
REPRO = "python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'), evaluate('-7 / 2'))\""

ENVIRONMENT = f"""<environment_context>
  <cwd>{ROOT}</cwd>
  <approval_policy>on-request</approval_policy>
  <sandbox_mode>workspace-write</sandbox_mode>
  <network_access>restricted</network_access>
  <shell>bash</shell>
</environment_context>"""

# (reasoning summary, tool, argument): tool is "shell" (a command) or "apply_patch" (old, new).
STEPS = [
    ("**Locating division**\n\nSearching the package for the floor-division operator.", "shell", 'grep -rn "//" tinycalc'),
    ("**Reading the product rule**", "shell", "sed -n '26,36p' tinycalc/evaluator.py"),
    ("**Patching division**\n\nSwitching to true division with an explicit zero check.", "apply_patch", ("value = value // right", BROKEN)),
    ("**Checking the examples**", "shell", REPRO),
    (
        "**Looking for an operators module**\n\nThe conditional expression cannot contain `raise`; checking whether errors are defined in an operators module.",
        "shell",
        "sed -n '1,40p' tinycalc/operators.py",
    ),
    ("**Simplifying the fix**\n\n`/` raises ZeroDivisionError on its own; plain true division suffices.", "apply_patch", (BROKEN, "value = value / right")),
    ("**Verifying**", "shell", REPRO + " && python3 -m unittest 2>&1 | tail -n 1"),
]

FINAL = (
    "Division now uses true division: `tinycalc/evaluator.py:34` changed `value // right` to "
    "`value / right`, so `7 / 2` returns `3.5` and `-7 / 2` returns `-3.5`. Division by zero still "
    "raises `ZeroDivisionError`. Tests: `python3 -m unittest` passes."
)


def patch_text(path, old, new):
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n-            {old}\n+            {new}\n*** End Patch\n"


def rollout(instance_id="tinycalc__tinycalc-1"):
    session_id = uuid_for("codex-" + instance_id)
    clock = Clock("2025-03-19T08:31:40Z")
    records = []

    def emit(kind, payload, seconds=0.2):
        clock.tick(seconds)
        records.append({"timestamp": clock.iso(), "type": kind, "payload": payload})

    prompt = f"Fix this bug:\n\n{issue(instance_id).strip()}"
    emit("session_meta", {
        "id": session_id,
        "timestamp": clock.iso(),
        "cwd": ROOT,
        "originator": "codex_cli_rs",
        "cli_version": "0.46.0",
        "instructions": None,
        "source": "cli",
        "model_provider": "openai",
        "git": {"commit_hash": "9b1c7f0e5a2d4c3b8a6f1e0d9c8b7a6f5e4d3c2b", "branch": "main", "repository_url": None},
    }, 0)
    emit("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": ENVIRONMENT}]})
    emit("turn_context", {
        "cwd": ROOT,
        "approval_policy": "on-request",
        "sandbox_policy": {"mode": "workspace-write", "network_access": False, "exclude_tmpdir_env_var": False, "exclude_slash_tmp": False},
        "model": MODEL,
        "effort": "medium",
        "summary": "auto",
    })
    emit("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
    emit("event_msg", {"type": "user_message", "message": prompt, "images": []})

    total_in = total_out = total_cached = 0
    context = tokens(ENVIRONMENT, prompt) + 6000
    with Workspace(shown_as=ROOT) as ws:
        for n, (summary, tool, argument) in enumerate(STEPS, 1):
            call_id = ident("call_", f"{session_id}-{n}")
            emit("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}], "content": None, "encrypted_content": "gAAAAA" + ident("", f"{session_id}-enc-{n}", 40)}, 2.1)
            emit("event_msg", {"type": "agent_reasoning", "text": summary}, 0.01)
            if tool == "shell":
                arguments = json.dumps({"command": ["bash", "-lc", argument], "workdir": ROOT}, separators=(",", ":"))
                emit("response_item", {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": call_id}, 0.3)
                code, output = ws.bash(argument)
                result = {"output": output, "metadata": {"exit_code": code, "duration_seconds": round(0.02 + n * 0.011, 3)}}
                emit("response_item", {"type": "function_call_output", "call_id": call_id, "output": json.dumps(result, separators=(",", ":"))}, 0.4)
                observation = output
                call_text = arguments
            else:
                old, new = argument
                ws.replace("tinycalc/evaluator.py", old, new)
                patch = patch_text("tinycalc/evaluator.py", old, new)
                emit("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id, "name": "apply_patch", "input": patch}, 0.3)
                observation = "Success. Updated the following files:\nM tinycalc/evaluator.py\n"
                result = {"output": observation, "metadata": {"exit_code": 0, "duration_seconds": 0.0}}
                emit("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": json.dumps(result, separators=(",", ":"))}, 0.1)
                call_text = patch
            last_in = context
            last_out = tokens(summary, call_text)
            last_cached = max(0, last_in - 600)
            total_in += last_in
            total_out += last_out
            # Codex's running total is the sum of the per-response figures, cached included.
            total_cached += last_cached
            context += last_out + tokens(observation)
            emit("event_msg", {
                "type": "token_count",
                "info": {
                    "total_token_usage": {"input_tokens": total_in, "cached_input_tokens": total_cached, "output_tokens": total_out, "reasoning_output_tokens": 64 * n, "total_tokens": total_in + total_out},
                    "last_token_usage": {"input_tokens": last_in, "cached_input_tokens": last_cached, "output_tokens": last_out, "reasoning_output_tokens": 64, "total_tokens": last_in + last_out},
                    "model_context_window": 272000,
                },
                "rate_limits": None,
            }, 0.01)
    emit("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": FINAL}]}, 2.4)
    emit("event_msg", {"type": "agent_message", "message": FINAL}, 0.01)
    emit("event_msg", {"type": "task_complete", "last_agent_message": FINAL}, 0.01)
    return records


def write(out):
    records = rollout()
    path = os.path.join(out, "codex", "tinycalc__tinycalc-1.jsonl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    return records
