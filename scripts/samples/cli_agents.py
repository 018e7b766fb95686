"""The interactive agents' logs: Gemini CLI, GitHub Copilot CLI, Cursor, Kimi CLI, OpenCode,
Factory Droid, a Hugging Face trace (STS-Format) and OpenTelemetry GenAI spans (OTLP JSON).

All eight tell the chat sample's story (tinycalc__tinycalc-1: read the evaluator, reproduce,
an edit that is a SyntaxError, a missing helper module, the fix, the tests), each in its
agent's own shape and tool names, and each with what the user typed as a turn of its own
(the task, and a second message near the end). The commands run for real in a fresh copy of
the repository; the model's words, ids, times and token counts are scripted.
"""

import json
import os

from .chat import FINAL, STEPS
from .workspace import Workspace, ident, issue, uuid_for

INSTANCE = "tinycalc__tinycalc-1"
FOLLOW_UP = "Also run the whole test suite once more before you finish."
FOLLOW_UP_ANSWER = "Ran it again: all tests pass."
T0 = 1_767_600_000_000  # 2026-01-05T08:00:00Z, in milliseconds


def run():
    """(thought, command, exit code, output) per step, executed in a fresh copy."""
    out = []
    with Workspace(shown_as="/home/dev/tinycalc") as ws:
        for thought, command in STEPS:
            code, output = ws.bash(command)
            out.append((thought, command, code, output))
        code, output = ws.bash("python3 -m unittest 2>&1 | tail -n 1")
        out.append(("Running the suite again.", "python3 -m unittest 2>&1 | tail -n 1", code, output))
    return out


def hexid(name, length):
    """A stable lowercase hex id, as OpenTelemetry writes trace and span ids."""
    import hashlib

    return hashlib.sha256(name.encode()).hexdigest()[:length]


def iso(ms):
    import datetime

    return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def lines(path, records):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def document(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def gemini(out, steps, task):
    session = uuid_for("gemini")
    messages = [{"id": ident("", "g-u1", 8), "timestamp": iso(T0), "type": "user", "content": task}]
    for n, (thought, command, code, output) in enumerate(steps[:-1], 1):
        call = f"run_shell_command-{T0 + n}-{ident('', f'g{n}', 8)}"
        messages.append({
            "id": ident("", f"g{n}", 8), "timestamp": iso(T0 + n * 4000), "type": "gemini", "content": thought,
            "thoughts": [{"subject": "Next step", "description": thought, "timestamp": iso(T0 + n * 4000 - 500)}],
            "tokens": {"input": 2400 + 600 * n, "output": 60 + n, "cached": 1800 * (n > 1), "thoughts": 20, "tool": 0, "total": 2480 + 601 * n},
            "model": "gemini-2.5-pro",
            "toolCalls": [{
                "id": call, "name": "run_shell_command", "args": {"command": command, "description": thought},
                "result": [{"functionResponse": {"id": call, "name": "run_shell_command", "response": {
                    "output": f"Command: {command}\nDirectory: (root)\nOutput: {output}\nError: (none)\nExit Code: {code}\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: {4100 + n}"}}}],
                "status": "success" if code == 0 else "error", "timestamp": iso(T0 + n * 4000 + 900),
                "displayName": "Shell", "description": command, "resultDisplay": output, "renderOutputAsMarkdown": False}],
        })
    messages.append({"id": ident("", "g-u2", 8), "timestamp": iso(T0 + 40000), "type": "user", "content": FOLLOW_UP})
    messages.append({"id": ident("", "g-final", 8), "timestamp": iso(T0 + 44000), "type": "gemini", "content": FOLLOW_UP_ANSWER + " " + FINAL,
                     "thoughts": [], "tokens": {"input": 6100, "output": 48, "cached": 5200, "thoughts": 0, "tool": 0, "total": 6148}, "model": "gemini-2.5-pro"})
    document(os.path.join(out, "gemini-cli", f"session-2026-01-05T08-00-{session[:8]}.json"), {
        "sessionId": session, "projectHash": ident("", "tinycalc-project", 32), "startTime": iso(T0),
        "lastUpdated": iso(T0 + 44000), "messages": messages})


def copilot(out, steps, task):
    events, parent = [], None

    def emit(kind, data, at):
        nonlocal parent
        eid = uuid_for(f"copilot-{len(events)}")
        events.append({"type": kind, "data": data, "id": eid, "timestamp": iso(at), "parentId": parent})
        parent = eid

    emit("session.start", {"sessionId": uuid_for("copilot"), "version": 1, "producer": "copilot-agent", "copilotVersion": "0.0.369",
                           "startTime": iso(T0), "selectedModel": "claude-sonnet-4.5", "context": {"cwd": "/home/dev/tinycalc"}}, T0)
    emit("user.message", {"content": task, "transformedContent": task, "attachments": []}, T0 + 500)
    emit("assistant.turn_start", {"turnId": "0"}, T0 + 600)
    for n, (thought, command, code, output) in enumerate(steps[:-1], 1):
        at = T0 + n * 4000
        call = "toolu_" + ident("", f"cp{n}", 22)
        emit("assistant.message", {"messageId": uuid_for(f"cp-m{n}"), "content": thought,
                                   "toolRequests": [{"toolCallId": call, "name": "bash", "arguments": {"command": command, "description": thought}, "type": "function"}],
                                   "outputTokens": 70 + n}, at)
        emit("assistant.usage", {"model": "claude-sonnet-4.5", "inputTokens": 300 + 50 * n, "cacheReadTokens": 2000 * n, "outputTokens": 70 + n}, at + 10)
        emit("tool.execution_start", {"toolCallId": call, "toolName": "bash", "arguments": {"command": command}}, at + 20)
        emit("tool.execution_complete", {"toolCallId": call, "success": code == 0, "result": {"content": f"{output}\n<exited with exit code {code}>"}}, at + 900)
    emit("assistant.turn_end", {"turnId": "0"}, T0 + 30000)
    emit("user.message", {"content": FOLLOW_UP, "transformedContent": FOLLOW_UP, "attachments": []}, T0 + 40000)
    emit("assistant.turn_start", {"turnId": "1"}, T0 + 40100)
    thought, command, code, output = steps[-1]
    call = "toolu_" + ident("", "cp-last", 22)
    emit("assistant.message", {"messageId": uuid_for("cp-last"), "content": thought,
                               "toolRequests": [{"toolCallId": call, "name": "bash", "arguments": {"command": command}, "type": "function"}], "outputTokens": 40}, T0 + 41000)
    emit("tool.execution_complete", {"toolCallId": call, "success": True, "result": {"content": f"{output}\n<exited with exit code {code}>"}}, T0 + 42000)
    emit("assistant.message", {"messageId": uuid_for("cp-final"), "content": FOLLOW_UP_ANSWER + " " + FINAL, "toolRequests": [], "outputTokens": 45}, T0 + 43000)
    emit("assistant.turn_end", {"turnId": "1"}, T0 + 43100)
    emit("session.shutdown", {"shutdownType": "routine"}, T0 + 50000)
    lines(os.path.join(out, "copilot-cli", "session-state", uuid_for("copilot"), "events.jsonl"), events)


def cursor(out, steps, task):
    rows = [{"role": "user", "message": {"content": [{"type": "text", "text": f"<user_query>\n{task}\n</user_query>"}]}}]
    for n, (thought, command, code, output) in enumerate(steps[:-1], 1):
        call = "toolu_" + ident("", f"cu{n}", 22)
        rows.append({"role": "assistant", "message": {"content": [{"type": "text", "text": thought},
                                                                  {"type": "tool_use", "id": call, "name": "Shell", "input": {"command": command}}]}})
        rows.append({"role": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": call, "content": f"Exit code: {code}\n{output}"}]}})
    rows.append({"role": "assistant", "message": {"content": [{"type": "text", "text": FINAL}]}})
    rows.append({"type": "turn_ended", "status": "success"})
    rows.append({"role": "user", "message": {"content": [{"type": "text", "text": f"<user_query>\n{FOLLOW_UP}\n</user_query>"}]}})
    thought, command, code, output = steps[-1]
    rows.append({"role": "assistant", "message": {"content": [{"type": "text", "text": thought},
                                                              {"type": "tool_use", "id": "toolu_last", "name": "Shell", "input": {"command": command}}]}})
    rows.append({"role": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "toolu_last", "content": f"Exit code: {code}\n{output}"}]}})
    rows.append({"role": "assistant", "message": {"content": [{"type": "text", "text": FOLLOW_UP_ANSWER}]}})
    rows.append({"type": "turn_ended", "status": "success"})
    lines(os.path.join(out, "cursor", "agent-transcripts", uuid_for("cursor") + ".jsonl"), rows)


def kimi(out, steps, task):
    rows = [{"type": "metadata", "protocol_version": "1.4", "created_at": T0},
            {"type": "config.update", "modelAlias": "moonshot-ai/kimi-k2.7-code", "systemPrompt": "You are Kimi Code CLI, an interactive coding agent.", "time": T0}]

    def turn(text, at, steps_, final, turn_id):
        rows.append({"type": "turn.prompt", "input": [{"type": "text", "text": text}], "origin": {"kind": "user"}, "time": at, "agentId": "main"})
        for n, (thought, command, code, output) in enumerate(steps_, 1):
            t = at + n * 4000
            call = f"Bash:{turn_id}{n}"
            ev = lambda e, dt=0: rows.append({"type": "context.append_loop_event", "event": e, "time": t + dt, "agentId": "main"})
            ev({"type": "step.begin", "uuid": uuid_for(f"kimi-{turn_id}-{n}"), "turnId": str(turn_id), "step": n})
            rows.append({"type": "llm.request", "kind": "loop", "provider": "kimi", "model": "kimi-k2.7-code", "messageCount": 2 * n, "turnStep": f"{turn_id}.{n}", "time": t + 1})
            ev({"type": "content.part", "part": {"type": "think", "think": thought}}, 100)
            ev({"type": "tool.call", "toolCallId": call, "name": "Bash", "args": {"command": command}}, 200)
            ev({"type": "tool.result", "toolCallId": call, "result": {"output": [{"type": "text", "text": output}], "isError": code != 0}}, 900)
            ev({"type": "step.end", "model": "kimi-k2.7-code", "finishReason": "tool_calls", "usage": {"inputOther": 400, "inputCacheRead": 1500 * n, "output": 60 + n}}, 950)
        t = at + (len(steps_) + 1) * 4000
        rows.append({"type": "context.append_loop_event", "event": {"type": "step.begin", "uuid": uuid_for(f"kimi-{turn_id}-end"), "turnId": str(turn_id), "step": len(steps_) + 1}, "time": t})
        rows.append({"type": "context.append_loop_event", "event": {"type": "content.part", "part": {"type": "text", "text": final}}, "time": t + 100})
        rows.append({"type": "context.append_loop_event", "event": {"type": "step.end", "model": "kimi-k2.7-code", "finishReason": "stop", "usage": {"inputOther": 300, "inputCacheRead": 6000, "output": 50}}, "time": t + 200})
        rows.append({"type": "turn.ended", "turnId": turn_id, "reason": "completed", "time": t + 300, "agentId": "main"})

    turn(task, T0, steps[:-1], FINAL, 0)
    turn(FOLLOW_UP, T0 + 60000, steps[-1:], FOLLOW_UP_ANSWER, 1)
    lines(os.path.join(out, "kimi-cli", "wd_tinycalc_0a1b2c3d4e5f", "session_" + uuid_for("kimi"), "agents", "main", "wire.jsonl"), rows)


def opencode(out, steps, task):
    root = os.path.join(out, "opencode", "storage")
    session = "ses_" + ident("", "opencode-session", 26)
    counter = iter(range(1, 1000))

    def message(role, at, extra, parts):
        mid = f"msg_{next(counter):04d}" + ident("", f"oc-{at}", 8)
        document(os.path.join(root, "message", session, mid + ".json"),
                 {"id": mid, "sessionID": session, "role": role, "time": {"created": at, **({"completed": at + 3000} if role == "assistant" else {})}, **extra})
        for k, part in enumerate(parts, 1):
            pid = f"prt_{k:03d}" + ident("", f"oc-{mid}-{k}", 8)
            document(os.path.join(root, "part", mid, pid + ".json"), {"id": pid, "sessionID": session, "messageID": mid, **part})

    assistant = {"modelID": "claude-sonnet-4-5", "providerID": "anthropic", "mode": "build", "path": {"cwd": "/home/dev/tinycalc", "root": "/home/dev/tinycalc"}}
    message("user", T0, {"agent": "build", "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}}, [{"type": "text", "text": task}])
    for n, (thought, command, code, output) in enumerate(steps, 1):
        at = T0 + n * 4000
        if n == len(steps):
            message("user", at - 1000, {"agent": "build"}, [{"type": "text", "text": FOLLOW_UP}])
        tool_state = {"status": "completed" if code == 0 else "error", "input": {"command": command, "description": thought},
                      "time": {"start": at + 200, "end": at + 900}}
        tool_state["output" if code == 0 else "error"] = output
        message("assistant", at, {**assistant, "cost": 0.004 * n, "tokens": {"input": 350, "output": 70 + n, "reasoning": 0, "cache": {"read": 1900 * n, "write": 300}}},
                [{"type": "step-start"}, {"type": "text", "text": thought},
                 {"type": "tool", "callID": "toolu_" + ident("", f"oc{n}", 22), "tool": "bash", "state": tool_state}, {"type": "step-finish", "reason": "tool-calls"}])
    message("assistant", T0 + 60000, {**assistant, "cost": 0.006, "tokens": {"input": 200, "output": 40, "reasoning": 0, "cache": {"read": 9000, "write": 0}}},
            [{"type": "text", "text": FOLLOW_UP_ANSWER + " " + FINAL}])


def droid(out, steps, task):
    sid = uuid_for("droid")
    rows = [{"type": "system", "subtype": "init", "cwd": "/home/dev/tinycalc", "session_id": sid, "tools": ["Read", "Execute", "Edit"], "model": "glm-4.6"},
            {"type": "message", "role": "user", "id": uuid_for("dr-u"), "text": task, "timestamp": T0, "session_id": sid}]
    for n, (thought, command, code, output) in enumerate(steps, 1):
        mid = uuid_for(f"dr-m{n}")
        rows.append({"type": "message", "role": "assistant", "id": mid, "text": thought, "timestamp": T0 + n * 4000, "session_id": sid})
        rows.append({"type": "tool_call", "id": uuid_for(f"dr-c{n}"), "messageId": mid, "toolId": "toolu_" + ident("", f"dr{n}", 22), "toolName": "Execute",
                     "parameters": {"command": command}, "timestamp": T0 + n * 4000 + 100, "session_id": sid})
        rows.append({"type": "tool_result", "id": uuid_for(f"dr-r{n}"), "messageId": mid, "toolId": "toolu_" + ident("", f"dr{n}", 22), "isError": code != 0,
                     "value": f"Command completed with exit code {code}\n{output}", "timestamp": T0 + n * 4000 + 900, "session_id": sid})
    rows.append({"type": "message", "role": "assistant", "id": uuid_for("dr-final"), "text": FINAL, "timestamp": T0 + 40000, "session_id": sid})
    rows.append({"type": "completion", "finalText": FINAL, "numTurns": len(steps) + 1, "durationMs": 41000, "session_id": sid,
                 "usage": {"input_tokens": 4200, "output_tokens": 610, "cache_read_input_tokens": 18500, "cache_creation_input_tokens": 2100}})
    lines(os.path.join(out, "droid", f"{INSTANCE}.jsonl"), rows)


def hf_trace(out, steps, task):
    rows = [{"type": "session", "harness": "llama.app", "id": uuid_for("hf"), "name": "Fix true division in tinycalc"},
            {"type": "message", "message": {"role": "system", "content": "You are a coding agent working in a git repository. Use the bash tool."}},
            {"type": "message", "message": {"role": "user", "content": task, "timestamp": T0}}]
    for n, (thought, command, code, output) in enumerate(steps, 1):
        if n == len(steps):
            rows.append({"type": "message", "message": {"role": "user", "content": FOLLOW_UP, "timestamp": T0 + n * 4000 - 1000}})
        call = "call_" + ident("", f"hf{n}", 24)
        rows.append({"type": "message", "message": {"role": "assistant", "content": "", "reasoningContent": thought, "model": "Qwen3-Coder-30B-A3B-Instruct",
                                                    "toolCalls": [{"id": call, "function": {"name": "bash", "arguments": json.dumps({"command": command})}}], "timestamp": T0 + n * 4000}})
        rows.append({"type": "message", "message": {"role": "tool", "content": f"exit code {code}\n{output}", "toolCallId": call, "timestamp": T0 + n * 4000 + 900}})
    rows.append({"type": "message", "message": {"role": "assistant", "content": FOLLOW_UP_ANSWER + " " + FINAL, "model": "Qwen3-Coder-30B-A3B-Instruct", "timestamp": T0 + 60000}})
    lines(os.path.join(out, "hf-trace", f"{INSTANCE}.jsonl"), rows)


def otel(out, steps, task):
    trace = hexid("otel-trace", 32)
    system = [{"type": "text", "content": "You are a coding agent working in a git repository. Use the bash tool."}]
    history = [{"role": "user", "parts": [{"type": "text", "content": task}]}]
    spans = []

    def attr(key, value):
        if isinstance(value, int):
            return {"key": key, "value": {"intValue": str(value)}}
        return {"key": key, "value": {"stringValue": value if isinstance(value, str) else json.dumps(value)}}

    def span(name, at, dur, attrs, status=None):
        spans.append({"traceId": trace, "spanId": hexid(f"span{len(spans)}", 16), "parentSpanId": hexid("span-root", 16),
                      "name": name, "kind": 3, "startTimeUnixNano": str(at * 1_000_000), "endTimeUnixNano": str((at + dur) * 1_000_000),
                      "attributes": [attr(k, v) for k, v in attrs], "status": status or {}})

    def chat(at, n, parts):
        out_msgs = [{"role": "assistant", "parts": parts, "finish_reason": "tool_call" if any(p["type"] == "tool_call" for p in parts) else "stop"}]
        span("chat gpt-4.1", at, 1500, [("gen_ai.operation.name", "chat"), ("gen_ai.provider.name", "openai"), ("gen_ai.request.model", "gpt-4.1"),
                                       ("gen_ai.response.model", "gpt-4.1-2025-04-14"), ("gen_ai.system_instructions", system),
                                       ("gen_ai.input.messages", list(history)), ("gen_ai.output.messages", out_msgs),
                                       ("gen_ai.usage.input_tokens", 900 + 400 * n), ("gen_ai.usage.output_tokens", 60 + n)])
        history.extend(out_msgs)

    span("invoke_agent tinycalc-fixer", T0, 60000, [("gen_ai.operation.name", "invoke_agent"), ("gen_ai.agent.name", "tinycalc-fixer")])
    for n, (thought, command, code, output) in enumerate(steps, 1):
        at = T0 + n * 4000
        if n == len(steps):
            history.append({"role": "user", "parts": [{"type": "text", "content": FOLLOW_UP}]})
        call = "call_" + ident("", f"ot{n}", 24)
        chat(at, n, [{"type": "reasoning", "content": thought}, {"type": "tool_call", "id": call, "name": "bash", "arguments": {"command": command}}])
        status = {"code": 2, "message": f"exit code {code}"} if code != 0 else {"code": 1}
        span("execute_tool bash", at + 1600, 700, [("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", "bash"), ("gen_ai.tool.call.id", call),
                                                  ("gen_ai.tool.call.arguments", {"command": command}), ("gen_ai.tool.call.result", output)], status)
        history.append({"role": "tool", "parts": [{"type": "tool_call_response", "id": call, "response": output}]})
    chat(T0 + 60000, len(steps) + 1, [{"type": "text", "content": FOLLOW_UP_ANSWER + " " + FINAL}])
    document(os.path.join(out, "otel-genai", f"{INSTANCE}.json"), {"resourceSpans": [{
        "resource": {"attributes": [attr("service.name", "tinycalc-fixer")]},
        "scopeSpans": [{"scope": {"name": "opentelemetry.instrumentation.openai_agents", "version": "0.1.0"}, "spans": spans}]}]})


def write(out):
    steps = run()
    task = issue(INSTANCE).strip()
    for writer in (gemini, copilot, cursor, kimi, opencode, droid, hf_trace, otel):
        writer(out, steps, task)
