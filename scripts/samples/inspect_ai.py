"""Inspect AI eval log with both sample issues (a `basic_agent` with bash and submit), as a
`.json` log and as the same log converted to the `.eval` zip format.

Long message contents in events are stored once in the sample's `attachments` and referenced
as `attachment://<md5>`, as Inspect does.
"""

import copy
import hashlib
import json
import os
import zipfile

from .workspace import Clock, Workspace, ident, issue, tokens

MODEL = "openai/gpt-4o-mini"
MODEL_VERSION = "gpt-4o-mini-2024-07-18"
SCORER = "swe_bench_scorer"

SYSTEM = """You are an expert software engineer working in a Python repository at /testbed.
You will be given an issue. Use the bash tool to explore the repository, reproduce the issue and fix it.
When you have finished, call the submit() tool with a short description of your change."""

TOOLS = [
    {
        "name": "bash",
        "description": "Use this function to execute bash commands.",
        "parameters": {
            "type": "object",
            "properties": {"cmd": {"type": "string", "description": "The bash command to execute."}},
            "required": ["cmd"],
            "additionalProperties": False,
        },
    },
    {
        "name": "submit",
        "description": "Submit an answer for evaluation.",
        "parameters": {
            "type": "object",
            "properties": {"answer": {"type": "string", "description": "Submitted answer"}},
            "required": ["answer"],
            "additionalProperties": False,
        },
    },
]

BROKEN = 'value = value / right if right else raise ZeroDivisionError("division by zero")'

DIVISION = [
    ("Let me read the evaluator.", "cat tinycalc/evaluator.py"),
    ("Let me reproduce the issue.", "python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'))\""),
    (
        "Line 34 uses floor division. I'll switch to true division with an explicit zero check and try again.",
        "sed -i 's|value = value // right|" + BROKEN + "|' tinycalc/evaluator.py && python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'))\"",
    ),
    (
        "That is a SyntaxError. Let me check whether the package defines its own error types.",
        "cat tinycalc/errors.py",
    ),
    (
        "There is no errors module, and `/` raises ZeroDivisionError anyway. Plain true division it is.",
        "sed -i 's|" + BROKEN + "|value = value / right|' tinycalc/evaluator.py && python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'), evaluate('-7 / 2'))\" && python3 -m unittest 2>&1 | tail -n 1",
    ),
    ("The fix works and the tests pass.", "Changed floor division (//) to true division (/) in tinycalc/evaluator.py."),
]

DECIMALS = [
    ("Let me read the tokenizer.", "cat tinycalc/tokenizer.py"),
    ("Let me reproduce the issue.", "python3 -c \"from tinycalc import evaluate; print(evaluate('2.5 * 2'))\""),
    (
        "Numbers are made of digits only. I'll accept '.' and convert numbers with a dot to float.",
        "sed -i 's/if char.isdigit():/if char.isdigit() or char == \".\":/; s/tokens.append(int(number))/tokens.append(float(number) if \".\" in number else int(number)/' tinycalc/tokenizer.py && python3 -c \"from tinycalc.tokenizer import tokenize; print(tokenize('2.5 * 2'))\"",
    ),
    ("A SyntaxError. Is there a number parsing helper I should reuse?", "cat tinycalc/parse_number.py"),
    (
        "No helper exists. The closing parenthesis of append( is missing; let me add it.",
        "sed -i 's/else int(number)$/else int(number))/' tinycalc/tokenizer.py && python3 -c \"from tinycalc.tokenizer import tokenize; print(tokenize('2.5 * 2'))\"",
    ),
    ("The tokenizer now returns 2.5 as a float.", "The tokenizer accepts decimal numbers such as 2.5 and returns them as floats."),
]

EXPLANATIONS = {
    "tinycalc__tinycalc-1": (1.0, "All FAIL_TO_PASS and PASS_TO_PASS tests pass."),
    "tinycalc__tinycalc-2": (
        0.0,
        "FAIL_TO_PASS failed: tests.test_evaluator.EvaluatorTest.test_decimals: ValueError: unexpected token 2.5",
    ),
}


def msg_id(name):
    return ident("", name, 22)


class Attachments:
    def __init__(self):
        self.store = {}

    def ref(self, text):
        if not isinstance(text, str) or len(text) <= 100:
            return text
        key = hashlib.md5(text.encode()).hexdigest()
        self.store[key] = text
        return "attachment://" + key

    def messages(self, messages):
        out = copy.deepcopy(messages)
        for m in out:
            m["content"] = self.ref(m["content"])
        return out


def run_sample(instance_id, steps, epoch_start):
    clock = Clock(epoch_start)
    att = Attachments()
    task = issue(instance_id).strip()
    messages = [
        {"id": msg_id(instance_id + "sys"), "content": SYSTEM, "role": "system"},
        {"id": msg_id(instance_id + "in"), "content": task, "source": "input", "role": "user"},
    ]
    events = [
        {"timestamp": clock.iso_micro() + "+00:00", "working_start": 0.0, "event": "sample_init",
         "sample": {"input": att.ref(task), "target": "", "id": instance_id},
         "state": {"messages": att.messages(messages[1:]), "tools": [], "tool_choice": None, "store": {}, "output": {"model": MODEL, "choices": []}, "completed": False, "metadata": {}}},
    ]
    usage_in = usage_out = 0
    working = 0.0
    output = None
    with Workspace(shown_as="/testbed") as ws:
        for n, (thought, action) in enumerate(steps, 1):
            last = n == len(steps)
            function = "submit" if last else "bash"
            arguments = {"answer": action} if last else {"cmd": action}
            call_id = ident("call_", f"{instance_id}-inspect-{n}")
            prompt = tokens(*(m["content"] for m in messages))
            completion = tokens(thought, json.dumps(arguments))
            usage_in += prompt
            usage_out += completion
            assistant = {
                "id": msg_id(f"{instance_id}-a{n}"),
                "content": thought,
                "source": "generate",
                "role": "assistant",
                "tool_calls": [{"id": call_id, "function": function, "arguments": arguments}],
                "model": MODEL_VERSION,
            }
            clock.tick(2.5)
            working += 2.5
            output = {
                "model": MODEL_VERSION,
                "choices": [{"message": assistant, "stop_reason": "tool_calls"}],
                "usage": {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion},
                "time": 2.41,
            }
            events.append(
                {"timestamp": clock.iso_micro() + "+00:00", "working_start": round(working, 3), "event": "model", "model": MODEL,
                 "input": att.messages(messages), "tools": TOOLS, "tool_choice": "auto", "config": {}, "output": output}
            )
            messages.append(assistant)
            if last:
                result = action
            else:
                code, out, err = ws.bash_split(action)
                result = (err + "\n" if err else "") + out
            clock.tick(0.6)
            working += 0.6
            events.append(
                {"timestamp": clock.iso_micro() + "+00:00", "working_start": round(working, 3), "event": "tool", "type": "function", "id": call_id,
                 "function": function, "arguments": arguments, "result": result, "events": [], "completed": clock.iso_micro() + "+00:00", "working_time": 0.52}
            )
            messages.append({"id": msg_id(f"{instance_id}-t{n}"), "content": result, "role": "tool", "tool_call_id": call_id, "function": function})
    value, explanation = EXPLANATIONS[instance_id]
    score = {"value": value, "answer": steps[-1][1], "explanation": explanation}
    clock.tick(40)
    events.append({"timestamp": clock.iso_micro() + "+00:00", "working_start": round(working + 40, 3), "event": "score", "score": score, "intermediate": False})
    model_usage = {MODEL: {"input_tokens": usage_in, "output_tokens": usage_out, "total_tokens": usage_in + usage_out}}
    sample = {
        "id": instance_id,
        "epoch": 1,
        "input": task,
        "target": "",
        "messages": messages,
        "output": output,
        "scores": {SCORER: score},
        "metadata": {"repo": "tinycalc/tinycalc", "base_commit": "HEAD", "version": "0.1"},
        "store": {},
        "events": events,
        "model_usage": model_usage,
        "total_time": round(working + 41, 3),
        "working_time": round(working + 40, 3),
        "uuid": ident("", instance_id + "uuid", 22),
        "error_retries": [],
        "attachments": att.store,
    }
    return sample


def eval_log():
    samples = [
        run_sample("tinycalc__tinycalc-1", DIVISION, "2025-03-17T10:00:05Z"),
        run_sample("tinycalc__tinycalc-2", DECIMALS, "2025-03-17T10:00:05Z"),
    ]
    usage = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    for s in samples:
        for k in usage:
            usage[k] += s["model_usage"][MODEL][k]
    mean = sum(s["scores"][SCORER]["value"] for s in samples) / len(samples)
    return {
        "version": 2,
        "status": "success",
        "eval": {
            "eval_id": ident("", "tinycalc-eval-id", 22),
            "run_id": ident("", "tinycalc-run-id", 22),
            "created": "2025-03-17T10:00:00+00:00",
            "task": "tinycalc_swe",
            "task_id": ident("", "tinycalc-task-id", 22),
            "task_version": 0,
            "task_file": "evals/tinycalc_swe.py",
            "task_registry_name": "tinycalc_swe",
            "task_attribs": {},
            "task_args": {},
            "task_args_passed": {},
            "dataset": {"name": "tinycalc", "location": "sample-trajectories/issues", "samples": 2, "sample_ids": [s["id"] for s in samples], "shuffled": False},
            "sandbox": {"type": "docker", "config": "compose.yaml"},
            "model": MODEL,
            "model_generate_config": {},
            "model_args": {},
            "model_roles": {},
            "config": {"epochs": 1, "epochs_reducer": ["mean"], "fail_on_error": True, "sandbox_cleanup": True, "log_samples": True, "log_realtime": True, "log_images": True, "score_display": True},
            "revision": {"type": "git", "origin": "https://example.invalid/tinycalc-evals.git", "commit": "1f2e3d4"},
            "packages": {"inspect_ai": "0.3.95"},
            "scorers": [{"name": SCORER, "options": {}, "metrics": [{"name": "inspect_ai/mean", "options": {}}, {"name": "inspect_ai/std", "options": {}}], "metadata": {}}],
        },
        "plan": {"name": "plan", "steps": [{"solver": "basic_agent", "params": {"tools": [{"type": "tool", "name": "bash", "params": {"timeout": 60}}], "max_attempts": 1, "message_limit": 30}}], "config": {}},
        "results": {
            "total_samples": 2,
            "completed_samples": 2,
            "scores": [{"name": SCORER, "scorer": SCORER, "params": {}, "metrics": {"mean": {"name": "mean", "value": mean, "params": {}}, "std": {"name": "std", "value": 0.7071067811865476, "params": {}}}}],
        },
        "stats": {"started_at": "2025-03-17T10:00:00+00:00", "completed_at": "2025-03-17T10:01:12+00:00", "model_usage": {MODEL: usage}},
        "samples": samples,
        "reductions": [{"scorer": SCORER, "samples": [{"value": s["scores"][SCORER]["value"], "explanation": s["scores"][SCORER]["explanation"], "sample_id": s["id"]} for s in samples]}],
    }


def summary(sample):
    return {
        "id": sample["id"],
        "epoch": sample["epoch"],
        "input": sample["input"],
        "target": sample["target"],
        "metadata": sample["metadata"],
        "scores": {k: {"value": v["value"]} for k, v in sample["scores"].items()},
        "model_usage": sample["model_usage"],
        "total_time": sample["total_time"],
        "working_time": sample["working_time"],
        "uuid": sample["uuid"],
        "retries": 0,
        "completed": True,
    }


def write_eval_zip(path, log):
    """The `.eval` format: a zip of header, journal, one file per sample, summaries, reductions."""
    header = {k: log[k] for k in ("version", "status", "eval", "plan", "results", "stats")}
    summaries = [summary(s) for s in log["samples"]]
    entries = [("_journal/start.json", {"version": log["version"], "eval": log["eval"], "plan": log["plan"]})]
    for s in log["samples"]:
        entries.append((f"samples/{s['id']}_epoch_{s['epoch']}.json", s))
    entries += [
        ("_journal/summaries/1.json", summaries),
        ("summaries.json", summaries),
        ("reductions.json", log["reductions"]),
        ("header.json", header),
    ]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2025, 3, 17, 10, 1, 12))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o600 << 16
            z.writestr(info, json.dumps(data, indent=2 if name == "header.json" else None, ensure_ascii=False))


def write(out):
    log = eval_log()
    name = "2025-03-17T10-00-00+00-00_tinycalc-swe_" + log["eval"]["eval_id"]
    path = os.path.join(out, "inspect-ai", name + ".json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(log, f, indent=2, ensure_ascii=False)
        f.write("\n")
    write_eval_zip(os.path.join(out, "inspect-ai", "converted", name + ".eval"), log)
    return log
