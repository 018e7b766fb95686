"""A Claude Code session that starts a sub-agent, as current Claude Code writes it.

The session file is `<project>/<session>.jsonl`; the sub-agent its `Task` call starts writes
its own log, `<project>/<session>/subagents/agent-<id>.jsonl` (every record `isSidechain`,
with `agentId`), beside `agent-<id>.meta.json` (its type and description). The `Task`
result names the agent id, in `toolUseResult.agentId` and in its text. The user speaks
again mid-session ("Now add a test …"), and the session is compacted once
(`compact_boundary`, then the summary as a user record marked `isCompactSummary`).

The sub-agent's reads and greps run for real on a fresh copy of the sample repository.
"""

import json
import os

from .claude_code import MODEL, ROOT, VERSION, read_result
from .workspace import Clock, Workspace, ident, issue, tokens, uuid_for

INSTANCE = "tinycalc__tinycalc-2"
AGENT_TYPE = "Explore"
DESCRIPTION = "Find where numbers are tokenized"
PROMPT = (
    "Find where tinycalc turns the input text into number tokens and where the evaluator "
    "checks token types. Report file paths and line numbers; do not edit anything."
)
FOLLOW_UP = "Now add a test for `2.5 * 2` to the test suite."
SUMMARY = (
    "This session is being continued from a previous conversation that ran out of context. "
    "Summary: the user asked to fix decimal numbers in tinycalc (`2.5 * 2` raises ValueError). "
    "An Explore sub-agent found the tokenizer in tinycalc/tokenizer.py and the int-only checks "
    "in tinycalc/evaluator.py. The user then asked for a test of `2.5 * 2`."
)


def grep_result(ws, pattern):
    code, out = ws.bash(f"grep -rn {pattern!r} tinycalc")
    return out.rstrip("\n") if code == 0 else "No matches found"


class Log:
    """Lines of one log, each a record chained to the one before by `parentUuid`."""

    def __init__(self, session_id, clock, agent_id=None):
        self.session_id = session_id
        self.clock = clock
        self.agent_id = agent_id
        self.lines = []
        self.parent = None

    def base(self, kind, uuid):
        record = {
            "parentUuid": self.parent,
            "isSidechain": self.agent_id is not None,
            "userType": "external",
            "cwd": ROOT,
            "sessionId": self.session_id,
            "version": VERSION,
            "gitBranch": "main",
        }
        if self.agent_id is not None:
            record["agentId"] = self.agent_id
        record.update({"type": kind, "uuid": uuid, "timestamp": self.clock.iso()})
        return record

    def emit(self, record):
        self.lines.append(record)
        self.parent = record["uuid"]

    def user(self, name, content, **extra):
        self.emit({**self.base("user", uuid_for(name)), "message": {"role": "user", "content": content}, **extra})

    def assistant(self, name, blocks, usage, stop_reason=None):
        message_id = ident("msg_01", f"{name}-m", 22)
        for k, block in enumerate(blocks):
            self.clock.tick(0.7)
            self.emit(
                {
                    **self.base("assistant", uuid_for(f"{name}-{k}")),
                    "message": {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": MODEL,
                        "content": [block],
                        "stop_reason": stop_reason if k == len(blocks) - 1 else None,
                        "stop_sequence": None,
                        "usage": usage,
                    },
                    "requestId": ident("req_011C", f"{name}-r", 20),
                }
            )


def usage(read, written):
    return {"input_tokens": 4, "cache_creation_input_tokens": 120, "cache_read_input_tokens": read, "output_tokens": written, "service_tier": "standard"}


def subagent(ws, session_id, agent_id, clock):
    log = Log(session_id, clock, agent_id)
    log.user(f"{agent_id}-prompt", PROMPT)
    context = tokens(PROMPT) + 2200
    steps = [
        ("Grep", {"pattern": "isdigit", "path": f"{ROOT}/tinycalc"}, lambda: grep_result(ws, "isdigit")),
        ("Read", {"file_path": f"{ROOT}/tinycalc/tokenizer.py"}, lambda: read_result(ws, f"{ROOT}/tinycalc/tokenizer.py")[0]),
        ("Grep", {"pattern": "isinstance", "path": f"{ROOT}/tinycalc"}, lambda: grep_result(ws, "isinstance")),
    ]
    for n, (tool, tool_input, run) in enumerate(steps, 1):
        clock.tick(2)
        tool_id = ident("toolu_01", f"{agent_id}-t{n}", 22)
        log.assistant(
            f"{agent_id}-a{n}",
            [{"type": "tool_use", "id": tool_id, "name": tool, "input": tool_input}],
            usage(context, tokens(json.dumps(tool_input))),
        )
        result = run()
        clock.tick(0.4)
        log.user(
            f"{agent_id}-r{n}",
            [{"tool_use_id": tool_id, "type": "tool_result", "content": result}],
        )
        context += tokens(json.dumps(tool_input), result)
    report = (
        "Numbers are tokenized in tinycalc/tokenizer.py: the loop collects digits with "
        "`isdigit()` and turns them into `int`, so a `.` is an unexpected character. The "
        "evaluator (tinycalc/evaluator.py) accepts only `int` tokens as numbers."
    )
    clock.tick(3)
    log.assistant(f"{agent_id}-a9", [{"type": "text", "text": report}], usage(context, tokens(report)), "end_turn")
    return log.lines, report, sum(tokens(json.dumps(s[1])) for s in steps) + tokens(report)


def session():
    session_id = uuid_for("claude-code-subagents-" + INSTANCE)
    agent_id = ident("a", f"{session_id}-agent", 7).lower()
    clock = Clock("2025-03-19T09:00:00Z")
    log = Log(session_id, clock)
    prompt = f"Please fix this issue in the repository:\n\n{issue(INSTANCE).strip()}"
    log.user(f"{session_id}-u0", prompt)
    context = tokens(prompt) + 3500

    clock.tick(3)
    task_id = ident("toolu_01", f"{session_id}-task", 22)
    task_input = {"description": DESCRIPTION, "prompt": PROMPT, "subagent_type": AGENT_TYPE}
    text = "I'll have an Explore agent map the tokenizer and the evaluator first."
    log.assistant(
        f"{session_id}-a1",
        [{"type": "text", "text": text}, {"type": "tool_use", "id": task_id, "name": "Task", "input": task_input}],
        usage(context, tokens(text, json.dumps(task_input))),
    )
    with Workspace(shown_as=ROOT) as ws:
        sub_lines, report, sub_tokens = subagent(ws, session_id, agent_id, clock)
    clock.tick(1)
    result_text = f"{report}\nagentId: {agent_id} (for resuming to continue this agent's work if needed)"
    log.user(
        f"{session_id}-r1",
        [{"tool_use_id": task_id, "type": "tool_result", "content": [{"type": "text", "text": result_text}]}],
        toolUseResult={
            "status": "completed",
            "prompt": PROMPT,
            "agentId": agent_id,
            "content": [{"type": "text", "text": report}],
            "totalDurationMs": 9400,
            "totalTokens": sub_tokens,
            "totalToolUseCount": 3,
        },
    )
    context += tokens(text, json.dumps(task_input), result_text)

    clock.tick(4)
    answer = (
        "The tokenizer only reads digits, and the evaluator only accepts `int`. Both need to "
        "accept a decimal point: I'll extend the number scan to one `.` and parse with `float`."
    )
    log.assistant(f"{session_id}-a2", [{"type": "text", "text": answer}], usage(context, tokens(answer)), "end_turn")
    context += tokens(answer)

    clock.tick(30)
    log.user(f"{session_id}-u1", FOLLOW_UP)
    context += tokens(FOLLOW_UP)

    clock.tick(5)
    log.emit(
        {
            **log.base("system", uuid_for(f"{session_id}-compact")),
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "level": "info",
            "compactMetadata": {"trigger": "manual", "preTokens": context},
        }
    )
    log.user(f"{session_id}-summary", SUMMARY, isCompactSummary=True, isVisibleInTranscriptOnly=True)

    clock.tick(4)
    reply = (
        "I'll add `test_decimal_multiplication` to tests/test_evaluator.py, checking that "
        "`evaluate(\"2.5 * 2\")` returns `5.0`."
    )
    log.assistant(f"{session_id}-a3", [{"type": "text", "text": reply}], usage(tokens(SUMMARY) + 3500, tokens(reply)), "end_turn")
    return session_id, agent_id, log.lines, sub_lines


def write(out):
    session_id, agent_id, lines, sub_lines = session()
    folder = os.path.join(out, "claude-code", "subagents")
    agents = os.path.join(folder, session_id, "subagents")
    os.makedirs(agents, exist_ok=True)
    for path, records in (
        (os.path.join(folder, f"{session_id}.jsonl"), lines),
        (os.path.join(agents, f"agent-{agent_id}.jsonl"), sub_lines),
    ):
        with open(path, "w", encoding="utf-8") as f:
            for record in records:
                f.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
    with open(os.path.join(agents, f"agent-{agent_id}.meta.json"), "w", encoding="utf-8") as f:
        json.dump({"agentType": AGENT_TYPE, "description": DESCRIPTION}, f, indent=2)
        f.write("\n")
