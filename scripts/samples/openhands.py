"""OpenHands samples: a JSON array of events (a CLI run saved with `--save-trajectory-path`)
and an evaluation `output.jsonl` with one instance per line.
"""

import json
import os

from .mini_swe_agent import dump_json
from .workspace import Clock, Workspace, editor_str_replace, editor_view, ident, issue, tokens, unified_diff

SYSTEM = """You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks.

<ROLE>
Your primary role is to assist users by executing commands, modifying code, and solving technical problems effectively.
</ROLE>

<FILE_SYSTEM_GUIDELINES>
* When a user provides a file path, do NOT assume it's relative to the current working directory. First explore the file system to locate the file before working on it.
* If asked to edit a file, edit the file directly, rather than creating a new file with a different filename.
</FILE_SYSTEM_GUIDELINES>"""

TOOLS = [
    {"type": "function", "function": {"name": "execute_bash", "description": "Execute a bash command in the terminal.", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}},
    {"type": "function", "function": {"name": "str_replace_editor", "description": "Custom editing tool for viewing, creating and editing files.", "parameters": {"type": "object", "properties": {"command": {"type": "string", "enum": ["view", "create", "str_replace", "insert", "undo_edit"]}, "path": {"type": "string"}, "old_str": {"type": "string"}, "new_str": {"type": "string"}}, "required": ["command", "path"]}}},
    {"type": "function", "function": {"name": "think", "description": "Use the tool to think about something.", "parameters": {"type": "object", "properties": {"thought": {"type": "string"}}, "required": ["thought"]}}},
    {"type": "function", "function": {"name": "finish", "description": "Finish the interaction when the task is complete.", "parameters": {"type": "object", "properties": {"message": {"type": "string"}, "task_completed": {"type": "string", "enum": ["true", "false", "partial"]}}, "required": ["message", "task_completed"]}}},
]

BROKEN = 'value = value / right if right else raise ZeroDivisionError("division by zero")'


class EventLog:
    """Runs steps in a workspace and writes them as OpenHands events."""

    def __init__(self, ws, clock, model, instance_key, price):
        self.ws = ws
        self.clock = clock
        self.model = model
        self.key = instance_key
        self.price = price
        self.events = []
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost = 0.0
        self.usages = []
        self.context = 0

    def add(self, event):
        event = {"id": len(self.events), "timestamp": self.clock.iso_micro(), **event}
        self.events.append(event)
        self.context += tokens(json.dumps(event))
        return event["id"]

    def system(self):
        self.add({"source": "agent", "message": SYSTEM, "action": "system", "args": {"content": SYSTEM, "tools": TOOLS, "openhands_version": "0.39.0", "agent_class": "CodeActAgent"}})

    def user(self, text, recall=False):
        uid = self.add({"source": "user", "message": text, "action": "message", "args": {"content": text, "image_urls": None, "wait_for_response": False}})
        if recall:
            rid = self.add({"source": "user", "message": "Retrieving content for: " + text[:40], "action": "recall", "args": {"recall_type": "workspace_context", "query": text, "thought": ""}})
            self.add({"source": "environment", "message": "Added workspace context", "cause": rid, "observation": "recall", "content": "Added workspace context", "extras": {"recall_type": "workspace_context", "repo_name": "", "repo_directory": "", "repo_instructions": "", "runtime_hosts": {}, "additional_agent_instructions": "", "date": self.clock.now.strftime("%Y-%m-%d"), "microagent_knowledge": []}})
        return uid

    def _metadata(self, function, arguments, thought):
        n = len(self.usages) + 1
        call_id = ident("toolu_", f"{self.key}-{n}")
        prompt = self.context
        completion = tokens(thought, json.dumps(arguments))
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        cost = round(prompt * self.price[0] + completion * self.price[1], 6)
        self.cost += cost
        response_id = ident("chatcmpl-", f"{self.key}-oh-{n}", 20)
        self.usages.append({"model": self.model, "prompt_tokens": prompt, "completion_tokens": completion, "cache_read_tokens": 0, "cache_write_tokens": 0, "response_id": response_id})
        meta = {
            "function_name": function,
            "tool_call_id": call_id,
            "model_response": {
                "id": response_id,
                "created": int(self.clock.epoch()),
                "model": self.model.split("/")[-1],
                "object": "chat.completion",
                "choices": [{"finish_reason": "tool_calls", "index": 0, "message": {"content": thought, "role": "assistant", "tool_calls": [{"index": 1, "function": {"arguments": json.dumps(arguments), "name": function}, "id": call_id, "type": "function"}]}}],
                "usage": {"completion_tokens": completion, "prompt_tokens": prompt, "total_tokens": prompt + completion},
            },
            "total_calls_in_response": 1,
        }
        metrics = {
            "accumulated_cost": round(self.cost, 6),
            "accumulated_token_usage": {"model": self.model, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens, "cache_read_tokens": 0, "cache_write_tokens": 0, "response_id": ""},
            "costs": [],
            "response_latencies": [],
            "token_usages": [],
        }
        return meta, metrics

    def run(self, thought, command):
        self.clock.tick(6)
        meta, metrics = self._metadata("execute_bash", {"command": command}, thought)
        aid = self.add({"source": "agent", "message": f"Running command: {command}", "action": "run", "tool_call_metadata": meta, "llm_metrics": metrics, "args": {"command": command, "is_input": False, "thought": thought, "blocking": False, "is_static": False, "cwd": None, "hidden": False, "confirmation_state": "confirmed"}})
        code, output = self.ws.bash(command)
        self.clock.tick(1)
        self.add({"source": "agent", "message": f"Command `{command}` executed with exit code {code}.", "cause": aid, "observation": "run", "tool_call_metadata": meta, "content": output.rstrip("\n"), "extras": {"command": command, "metadata": {"exit_code": code, "pid": -1, "username": "root", "hostname": "a1b2c3d4e5f6", "working_dir": self.ws.shown_as, "py_interpreter_path": "/openhands/poetry/openhands-ai-5O4_aCHf-py3.12/bin/python", "prefix": "", "suffix": f"\n[The command completed with exit code {code}.]"}, "hidden": False}, "success": code == 0})

    def read(self, thought, path):
        self.clock.tick(5)
        meta, metrics = self._metadata("str_replace_editor", {"command": "view", "path": path}, thought)
        aid = self.add({"source": "agent", "message": f"Reading file: {path}", "action": "read", "tool_call_metadata": meta, "llm_metrics": metrics, "args": {"path": path, "start": 0, "end": -1, "thought": thought, "impl_source": "oh_aci", "view_range": None}})
        content, missing = editor_view(self.ws, path)
        if missing:
            content = f"ERROR:\nInvalid `path` parameter: {path}. {content}"
        self.add({"source": "agent", "message": f"I read the file {path}.", "cause": aid, "observation": "read", "tool_call_metadata": meta, "content": content, "extras": {"path": path, "impl_source": "oh_aci"}})

    def edit(self, thought, path, old, new):
        self.clock.tick(8)
        arguments = {"command": "str_replace", "path": path, "old_str": old, "new_str": new}
        meta, metrics = self._metadata("str_replace_editor", arguments, thought)
        aid = self.add({"source": "agent", "message": "", "action": "edit", "tool_call_metadata": meta, "llm_metrics": metrics, "args": {"path": path, "command": "str_replace", "file_text": None, "old_str": old, "new_str": new, "insert_line": None, "content": "", "start": 1, "end": -1, "thought": thought, "impl_source": "oh_aci"}})
        content, before, after = editor_str_replace(self.ws, path, old, new)
        self.add({"source": "agent", "message": f"I edited the file {path}.", "cause": aid, "observation": "edit", "tool_call_metadata": meta, "content": content, "extras": {"path": path, "prev_exist": False, "old_content": old, "new_content": new, "impl_source": "oh_aci", "diff": unified_diff(path, before, after, 1), "_diff_cache": None}})

    def think(self, thought):
        self.clock.tick(7)
        meta, metrics = self._metadata("think", {"thought": thought}, "")
        aid = self.add({"source": "agent", "message": f"I am thinking...: {thought}", "action": "think", "tool_call_metadata": meta, "llm_metrics": metrics, "args": {"thought": thought}})
        self.add({"source": "agent", "message": "Your thought has been logged.", "cause": aid, "observation": "think", "tool_call_metadata": meta, "content": "Your thought has been logged.", "extras": {}})

    def finish(self, thought, message, completed="true"):
        self.clock.tick(5)
        meta, metrics = self._metadata("finish", {"message": message, "task_completed": completed}, thought)
        self.add({"source": "agent", "message": thought, "action": "finish", "tool_call_metadata": meta, "llm_metrics": metrics, "args": {"final_thought": message, "task_completed": completed, "outputs": {}, "thought": thought}})

    def metrics(self):
        return {
            "accumulated_cost": round(self.cost, 6),
            "accumulated_token_usage": {"model": self.model, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens, "cache_read_tokens": 0, "cache_write_tokens": 0, "response_id": ""},
            "costs": [],
            "response_latencies": [],
            "token_usages": self.usages,
        }


def cli_run(instance_id="tinycalc__tinycalc-1"):
    """A headless CLI run saved as a JSON array of events."""
    root = "/workspace/tinycalc"
    evaluator = f"{root}/tinycalc/evaluator.py"
    repro = "cd /workspace/tinycalc && python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'), evaluate('1 / 3'))\""
    with Workspace(shown_as=root) as ws:
        log = EventLog(ws, Clock("2025-03-15T14:02:11Z"), "anthropic/claude-opus-4-1-20250805", instance_id, (15e-6, 75e-6))
        log.system()
        log.user(f"Fix this issue in /workspace/tinycalc:\n\n{issue(instance_id).strip()}")
        log.run("I'll start by exploring the repository to find where expressions are evaluated.", f"find {root} -name '*.py' -not -path '*/.git/*' | sort")
        log.read("Let me look at the evaluator.", evaluator)
        log.run("`_product` uses `//`. Let me reproduce the issue first.", repro)
        log.edit("Reproduced: 7 / 2 gives 3. I'll switch to true division and reject a zero divisor explicitly.", evaluator, "value = value // right", BROKEN)
        log.run("Let me run the reproduction again.", repro)
        log.read("A SyntaxError: `raise` is a statement, not an expression. Perhaps the project defines its errors in an operators module.", f"{root}/tinycalc/operators.py")
        log.edit("No such module. Python's `/` raises ZeroDivisionError by itself, so plain true division is enough.", evaluator, BROKEN, "value = value / right")
        log.run("Let me verify the fix and run the test suite.", repro + " && python3 -m unittest 2>&1 | tail -n 1")
        log.finish(
            "The fix is verified: 7 / 2 now gives 3.5 and the tests pass.",
            "I changed `value // right` to `value / right` in tinycalc/evaluator.py, so `/` is true division. 7 / 2 returns 3.5 and the test suite passes.",
        )
        return log.events


INSTRUCTION = """<uploaded_files>
{root}
</uploaded_files>
I've uploaded a python code repository in the directory {name}. Consider the following issue description:

<issue_description>
{issue}
</issue_description>

Can you help me implement the necessary changes to the repository so that the requirements specified in the <issue_description> are met?
Your task is to make the minimal changes to non-test files in the {root} directory to ensure the <issue_description> is satisfied."""

EVAL_MODEL = "openai/gpt-4o-2024-08-06"
MAX_ITERATIONS = 8


def eval_instance(instance_id, steps, error=None):
    name = "tinycalc__tinycalc__0.1"
    root = f"/workspace/{name}"
    instruction = INSTRUCTION.format(root=root, name=name, issue=issue(instance_id).strip())
    start = {"tinycalc__tinycalc-1": "2025-03-16T08:00:00Z", "tinycalc__tinycalc-2": "2025-03-16T08:05:00Z"}[instance_id]
    with Workspace(shown_as=root) as ws:
        log = EventLog(ws, Clock(start), EVAL_MODEL, instance_id + "-eval", (2.5e-6, 10e-6))
        log.system()
        log.user(instruction, recall=True)
        steps(log, root)
        patch = ws.diff()
    return {
        "instance_id": instance_id,
        "test_result": {"git_patch": patch},
        "instruction": instruction,
        "metadata": {
            "agent_class": "CodeActAgent",
            "llm_config": {"model": EVAL_MODEL, "api_key": "**********", "base_url": None, "temperature": 0.0, "top_p": 1.0, "max_message_chars": 30000, "drop_params": True, "caching_prompt": True, "native_tool_calling": None},
            "agent_config": None,
            "max_iterations": MAX_ITERATIONS,
            "eval_output_dir": "evaluation/evaluation_outputs/outputs/tinycalc-test/CodeActAgent/gpt-4o-2024-08-06_maxiter_8_N_v0.39.0-no-hint-run_1",
            "start_time": "2025-03-16 07:59:40",
            "git_commit": "4d3c2b1a0f9e8d7c6b5a4938271605f4e3d2c1b0",
            "dataset": "tinycalc-test",
            "data_split": None,
            "details": {},
            "condenser_config": {"type": "noop"},
        },
        "history": log.events,
        "metrics": log.metrics(),
        "error": error,
        "instance": {"repo": "tinycalc/tinycalc", "instance_id": instance_id, "problem_statement": issue(instance_id), "base_commit": "HEAD", "version": "0.1"},
    }


def solved_division(log, root):
    evaluator = f"{root}/tinycalc/evaluator.py"
    log.read("Let me look at the evaluator.", evaluator)
    log.run("Let me reproduce the issue.", f"cd {root} && python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'))\"")
    log.edit("`/` is implemented with floor division. I'll use true division.", evaluator, "value = value // right", "value = value / right")
    log.run("Let me check the examples and run the tests.", f"cd {root} && python3 -c \"from tinycalc import evaluate; print(evaluate('7 / 2'), evaluate('-7 / 2'))\" && python3 -m unittest 2>&1 | tail -n 1")
    log.finish("Division is now true division and the tests pass.", "Changed floor division to true division in tinycalc/evaluator.py.")


def stuck_on_decimals(log, root):
    tokenizer = f"{root}/tinycalc/tokenizer.py"
    repro = f"cd {root} && python3 -c \"from tinycalc import evaluate; print(evaluate('2.5 * 2'))\""
    log.read("Let me look at the tokenizer.", tokenizer)
    log.run("Let me reproduce the issue.", repro)
    log.edit(
        "Digits are the only characters allowed in numbers. I'll accept '.' and convert to float.",
        tokenizer,
        "        if char.isdigit():\n            number += char",
        "        if char.isdigit() or char == \".\":\n            number += char\n            if number.count(\".\") > 1:\n                raise ValueError(f\"bad number {number!r}\"",
    )
    log.run("Let me run the reproduction again.", repro)
    log.read("A SyntaxError. Is there a helper for parsing numbers I should use instead?", f"{root}/tinycalc/number_parser.py")
    log.edit(
        "No such file. I'll close the parenthesis I left open.",
        tokenizer,
        "raise ValueError(f\"bad number {number!r}\"",
        "raise ValueError(f\"bad number {number!r}\")",
    )
    log.run("Let me run the reproduction again.", repro)
    log.think("The tokenizer now keeps '2.5' as text but still converts it with int(), which fails. I need to convert with float() when the number has a dot, in both places where numbers are appended.")


def eval_run():
    one = eval_instance("tinycalc__tinycalc-1", solved_division)
    two = eval_instance(
        "tinycalc__tinycalc-2",
        stuck_on_decimals,
        error=f"RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: {MAX_ITERATIONS}, max iteration: {MAX_ITERATIONS}",
    )
    return [one, two]


def write(out):
    events = cli_run()
    dump_json(os.path.join(out, "openhands", "tinycalc__tinycalc-1.json"), events)
    lines = eval_run()
    path = os.path.join(out, "openhands", "eval-run", "output.jsonl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    return events, lines
