//! Small valid files of every format, for tests that break them: one per JSON document
//! format, one per JSON Lines format, and reproducible noise.

#![allow(dead_code, clippy::unwrap_used)]

use serde_json::json;
use trajscope::model::{Format, Trajectory};

/// One small, valid file per JSON-based format, pretty-printed so that cuts land mid-line.
pub fn json_documents() -> Vec<(&'static str, String)> {
    let pretty = |v: serde_json::Value| serde_json::to_string_pretty(&v).unwrap();
    vec![
        (
            "django__django-11099.traj",
            pretty(json!({
                "environment": "swe_main",
                "trajectory": [{"action": "ls", "observation": "a.py", "response": "ls", "thought": "look"}],
                "history": [
                    {"role": "system", "content": "You are an agent."},
                    {"role": "user", "content": "ISSUE:\nIt breaks\n\nINSTRUCTIONS:\nfix"},
                    {"role": "assistant", "content": "ls", "action": "ls", "thought": "look"}
                ],
                "info": {"exit_status": "submitted", "submission": "diff --git a/a.py b/a.py"}
            })),
        ),
        (
            "django__django-11099.traj.json",
            pretty(json!({
                "info": {"exit_status": "Submitted"},
                "messages": [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": "<pr_description>Fix it</pr_description>"},
                    {"role": "assistant", "content": "THOUGHT: look\n```bash\nls\n```"},
                    {"role": "user", "content": "<returncode>0</returncode>\n<output>a.py</output>"}
                ],
                "trajectory_format": "mini-swe-agent-1"
            })),
        ),
        (
            "events.json",
            pretty(json!([
                {"id": 0, "source": "user", "action": "message", "args": {"content": "Fix the bug"}, "message": "Fix the bug"},
                {"id": 1, "source": "agent", "action": "run", "args": {"command": "ls"}, "message": "Running command: ls"},
                {"id": 2, "source": "agent", "observation": "run", "content": "a.py", "cause": 1, "extras": {"exit_code": 0}}
            ])),
        ),
        (
            "2024-05-29T12-38-43_math.json",
            pretty(json!({
                "version": 2, "status": "success",
                "eval": {"task": "math", "model": "openai/gpt-4o", "created": "2024-05-29T12:38:43"},
                "samples": [{"id": 1, "epoch": 1, "input": "2+2?", "target": "4",
                             "messages": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]}]
            })),
        ),
        (
            "chat.json",
            pretty(json!({"messages": [
                {"role": "user", "content": "Fix the bug in a.py"},
                {"role": "assistant", "content": "Looking.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"cat a.py\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "print(1"}
            ]})),
        ),
        (
            "session-2025-10-01T10-00-3f2a.json",
            pretty(json!({
                "sessionId": "3f2a", "projectHash": "ab", "startTime": "2025-10-01T10:00:00Z",
                "messages": [
                    {"id": "u", "timestamp": "t", "type": "user", "content": "fix it"},
                    {"id": "g", "timestamp": "t", "type": "gemini", "content": "Done.", "model": "gemini-2.5-pro"}
                ]
            })),
        ),
        (
            "msg_0001.json",
            pretty(
                json!({"id": "msg_0001", "sessionID": "ses_1", "role": "user", "time": {"created": 1}, "summary": {"title": "fix it"}}),
            ),
        ),
        (
            "traces.json",
            pretty(json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
                "traceId": "ab", "spanId": "cd", "name": "chat", "startTimeUnixNano": "1",
                "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]
            }]}]}]})),
        ),
        (
            "fork.json",
            serde_json::to_string_pretty(&Trajectory::new("fork.json", Format::Trajscope)).unwrap(),
        ),
    ]
}

/// One small file per JSON Lines format.
pub fn json_lines_documents() -> Vec<(&'static str, String)> {
    let lines = |values: Vec<serde_json::Value>| {
        values
            .iter()
            .map(|v| v.to_string() + "\n")
            .collect::<String>()
    };
    vec![
        (
            "session.jsonl",
            lines(vec![
                json!({"type": "user", "sessionId": "s1", "uuid": "u1", "timestamp": "2025-01-01T00:00:00Z", "message": {"role": "user", "content": "fix the bug"}}),
                json!({"type": "assistant", "sessionId": "s1", "uuid": "u2", "parentUuid": "u1", "timestamp": "2025-01-01T00:00:01Z", "message": {"id": "msg_1", "role": "assistant", "content": [{"type": "text", "text": "Looking at it."}]}}),
                json!({"type": "assistant", "sessionId": "s1", "uuid": "u3", "parentUuid": "u2", "timestamp": "2025-01-01T00:00:02Z", "message": {"id": "msg_2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}}),
            ]),
        ),
        (
            "rollout-2025-01-01T00-00-00.jsonl",
            lines(vec![
                json!({"timestamp": "2025-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "r1", "cwd": "/w"}}),
                json!({"timestamp": "2025-01-01T00:00:01Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix"}]}}),
                json!({"timestamp": "2025-01-01T00:00:02Z", "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}}),
            ]),
        ),
        (
            "output.jsonl",
            lines(vec![
                json!({"instance_id": "a__b-1", "instruction": "fix", "history": [], "test_result": {"git_patch": ""}}),
                json!({"instance_id": "a__b-2", "instruction": "fix", "history": [], "test_result": {"git_patch": ""}}),
            ]),
        ),
        (
            "events.jsonl",
            lines(vec![
                json!({"type": "session.start", "data": {"sessionId": "c1"}, "id": "e1", "timestamp": "t", "parentId": null}),
                json!({"type": "user.message", "data": {"content": "fix it"}, "id": "e2", "timestamp": "t", "parentId": "e1"}),
                json!({"type": "assistant.message", "data": {"content": "Done.", "toolRequests": []}, "id": "e3", "timestamp": "t", "parentId": "e2"}),
            ]),
        ),
        (
            "transcript.jsonl",
            lines(vec![
                json!({"role": "user", "message": {"content": [{"type": "text", "text": "fix it"}]}}),
                json!({"role": "assistant", "message": {"content": [{"type": "text", "text": "Looking."}]}}),
                json!({"role": "user", "message": {"content": [{"type": "text", "text": "and?"}]}}),
            ]),
        ),
        (
            "wire.jsonl",
            lines(vec![
                json!({"type": "metadata", "protocol_version": "1.4"}),
                json!({"type": "turn.prompt", "input": [{"type": "text", "text": "fix it"}], "time": 1}),
                json!({"type": "turn.prompt", "input": [{"type": "text", "text": "again"}], "time": 2}),
            ]),
        ),
        (
            "droid.jsonl",
            lines(vec![
                json!({"type": "system", "subtype": "init", "session_id": "d", "model": "m"}),
                json!({"type": "message", "role": "user", "text": "fix it", "session_id": "d"}),
                json!({"type": "message", "role": "assistant", "text": "Done.", "session_id": "d"}),
            ]),
        ),
        (
            "trace.jsonl",
            lines(vec![
                json!({"type": "session", "harness": "h", "id": "s"}),
                json!({"type": "message", "message": {"role": "user", "content": "fix it"}}),
                json!({"type": "message", "message": {"role": "assistant", "content": "Done."}}),
            ]),
        ),
        (
            "chat.jsonl",
            lines(vec![
                json!({"role": "user", "content": "fix it"}),
                json!({"role": "assistant", "content": "Looking."}),
                json!({"role": "assistant", "content": "Done."}),
            ]),
        ),
    ]
}

/// Deterministic noise (xorshift), so that a failure can be reproduced.
pub fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.max(1);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}
