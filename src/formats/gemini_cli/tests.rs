use super::*;
use crate::formats::{Kind, detect};
use crate::model::Format;

fn load(name: &str, text: &str) -> Trajectory {
    let path = Path::new(name);
    assert_eq!(
        detect(path, text.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::GeminiCli)),
        "{name}"
    );
    let mut ts = parse(path, text.as_bytes()).unwrap();
    assert_eq!(ts.len(), 1);
    ts.remove(0)
}

const SESSION: &str = r#"{
  "sessionId": "3f2a", "projectHash": "ab12", "startTime": "2025-10-01T10:00:00.000Z",
  "lastUpdated": "2025-10-01T10:00:09.000Z",
  "messages": [
    {"id": "u1", "timestamp": "2025-10-01T10:00:01.000Z", "type": "user", "content": "Fix 7 / 2"},
    {"id": "g1", "timestamp": "2025-10-01T10:00:02.000Z", "type": "gemini", "content": "",
     "thoughts": [{"subject": "Reading", "description": "the evaluator", "timestamp": "t"}],
     "tokens": {"input": 100, "output": 10, "cached": 40, "thoughts": 5, "tool": 0, "total": 115},
     "model": "gemini-2.5-pro",
     "toolCalls": [
       {"id": "c1", "name": "run_shell_command", "args": {"command": "cat calc.py"},
        "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                    "response": {"output": "value // right"}}}],
        "status": "success", "timestamp": "t"},
       {"id": "c2", "name": "read_file", "args": {"absolute_path": "/w/ops.py"},
        "result": [{"functionResponse": {"id": "c2", "name": "read_file",
                    "response": {"error": "File not found: /w/ops.py"}}}],
        "status": "error", "timestamp": "t"}
     ]},
    {"id": "e1", "timestamp": "t", "type": "error", "content": "API Error: quota"},
    {"id": "g2", "timestamp": "t", "type": "gemini", "content": "Use true division.",
     "tokens": {"input": 150, "output": 7, "cached": 0, "total": 157}, "model": "gemini-2.5-pro"}
  ]
}"#;

#[test]
fn a_session_document_reads_turns_thoughts_calls_and_results() {
    let t = load("session-2025-10-01T10-00-3f2a.json", SESSION);
    assert_eq!(t.instance_id, "3f2a");
    assert_eq!(t.model.as_deref(), Some("gemini-2.5-pro"));
    assert_eq!(t.task.as_deref(), Some("Fix 7 / 2"));
    assert_eq!(t.steps.len(), 3);
    assert_eq!(t.steps[0].kind, crate::model::StepKind::User);
    let s = &t.steps[1];
    assert_eq!(s.thought, "**Reading** the evaluator");
    assert_eq!(
        s.action,
        "cat calc.py\nread_file {\"absolute_path\":\"/w/ops.py\"}"
    );
    assert_eq!(
        s.observation,
        "value // right\nFile not found: /w/ops.py\nAPI Error: quota"
    );
    assert!(s.failed);
    assert_eq!(s.usage.tokens_in, Some(100));
    assert_eq!(s.usage.tokens_out, Some(15), "thought tokens are output");
    assert_eq!(t.steps[2].response, "Use true division.");
    let total = t.total_usage();
    assert_eq!((total.tokens_in, total.api_calls), (Some(250), Some(2)));
}

#[test]
fn the_jsonl_variant_applies_updates_and_rewrites() {
    let text = concat!(
        r#"{"sessionId":"s9","projectHash":"p","startTime":"t","lastUpdated":"t","kind":"main"}"#,
        "\n",
        r#"{"id":"u1","timestamp":"t","type":"user","content":[{"text":"list files"}]}"#,
        "\n",
        r#"{"$set":{"lastUpdated":"t2"}}"#,
        "\n",
        r#"{"id":"g1","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c","name":"run_shell_command","args":{"command":"ls"},"status":"executing"}]}"#,
        "\n",
        r#"{"id":"g1","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c","name":"run_shell_command","args":{"command":"ls"},"result":[{"functionResponse":{"id":"c","name":"run_shell_command","response":{"output":"a.py"}}}],"status":"success"}]}"#,
        "\n",
    );
    let t = load("renamed.log.jsonl", text);
    assert_eq!(t.format_detail.as_deref(), Some("jsonl"));
    assert_eq!(t.steps.len(), 2, "the re-written message is one step");
    assert_eq!(t.steps[0].user, "list files");
    assert_eq!(t.steps[1].observation, "a.py");
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
}

#[test]
fn other_documents_are_not_gemini_sessions() {
    let chat = r#"{"messages": [{"role": "user", "content": "hi"}]}"#;
    assert_eq!(
        detect(Path::new("c.json"), chat.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::ChatMessages))
    );
    let err = parse(Path::new("g.json"), br#"{"sessionId": "x", "messages": 3}"#).unwrap_err();
    assert!(err.to_string().contains("g.json"), "{err}");
}

#[test]
fn shell_outputs_give_their_exit_code() {
    let out = "Command: false\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 7";
    assert_eq!(shell_exit_code(out), Some(1));
    assert_eq!(shell_exit_code("value // right"), None);
}
