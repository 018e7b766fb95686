use super::*;
use crate::formats::{Kind, detect};

fn event(kind: &str, id: &str, parent: &str, data: &str) -> String {
    format!(
        r#"{{"type":"{kind}","data":{data},"id":"{id}","timestamp":"2025-12-18T21:32:0{id}.000Z","parentId":"{parent}"}}"#
    ) + "\n"
}

fn session() -> String {
    [
        event("session.start", "1", "", r#"{"sessionId":"c0ffee","copilotVersion":"0.0.369","selectedModel":"claude-sonnet-4.5"}"#),
        event("user.message", "2", "1", r#"{"content":"Fix 7 / 2","attachments":[]}"#),
        event("assistant.turn_start", "3", "2", r#"{"turnId":"0"}"#),
        event("assistant.reasoning", "4", "3", r#"{"reasoningId":"r","content":"Look at the evaluator."}"#),
        event("assistant.message", "5", "4", r#"{"messageId":"m","content":"Reading it.","toolRequests":[{"toolCallId":"t1","name":"bash","arguments":{"command":"cat calc.py"}},{"toolCallId":"t2","name":"view","arguments":"{\"path\":\"ops.py\"}"}]}"#),
        event("tool.execution_start", "6", "5", r#"{"toolCallId":"t1","toolName":"bash","arguments":{"command":"cat calc.py"}}"#),
        event("tool.execution_complete", "7", "6", r#"{"toolCallId":"t1","success":true,"result":{"content":"value // right"}}"#),
        event("tool.execution_complete", "8", "7", r#"{"toolCallId":"t2","success":false,"error":{"message":"Path does not exist"}}"#),
        event("assistant.usage", "9", "8", r#"{"model":"claude-sonnet-4.5","inputTokens":90,"cacheReadTokens":10,"outputTokens":20}"#),
        event("assistant.message", "a", "9", r#"{"messageId":"m2","content":"Fixed.","toolRequests":[],"outputTokens":4}"#),
        event("assistant.turn_end", "b", "a", r#"{"turnId":"0"}"#),
        event("session.mystery", "c", "b", r#"{}"#),
    ]
    .concat()
}

#[test]
fn events_become_turns_steps_and_results() {
    let text = session();
    let path = Path::new("events.jsonl");
    assert_eq!(
        detect(path, text.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::CopilotCli))
    );
    let t = parse(path, text.as_bytes()).unwrap().remove(0);
    assert_eq!(
        t.instance_id, "c0ffee",
        "events.jsonl is named by its session"
    );
    assert_eq!(t.model.as_deref(), Some("claude-sonnet-4.5"));
    assert_eq!(t.steps.len(), 3);
    assert_eq!(t.steps[0].kind, crate::model::StepKind::User);
    let s = &t.steps[1];
    assert_eq!(s.thought, "Look at the evaluator.\n\nReading it.");
    assert_eq!(s.action, "cat calc.py\nview {\"path\":\"ops.py\"}");
    assert_eq!(s.observation, "value // right\nPath does not exist");
    assert!(s.failed);
    assert_eq!(
        (s.usage.tokens_in, s.usage.tokens_out),
        (Some(100), Some(20))
    );
    assert_eq!(t.steps[2].response, "Fixed.");
    assert_eq!(t.steps[2].usage.tokens_out, Some(4));
    assert_eq!(t.warnings, ["event types not read: session.mystery ×1"]);
}

#[test]
fn envelopes_without_parent_ids_are_not_copilot() {
    let text = "{\"type\":\"user.message\",\"data\":{}}\n{\"type\":\"x\",\"data\":{}}\n";
    assert_ne!(
        detect(Path::new("e.jsonl"), text.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::CopilotCli))
    );
    assert!(parse(Path::new("e.jsonl"), b"not json\n").is_err());
}

#[test]
fn absurd_token_counts_saturate_instead_of_overflowing() {
    // The overflow fuzzing found in OpenCode's sum, here in input + cache reads.
    let text = session().replace(
        r#""inputTokens":90,"cacheReadTokens":10"#,
        r#""inputTokens":18446744073709551615,"cacheReadTokens":10,"cacheWriteTokens":1e40"#,
    );
    let t = parse(Path::new("events.jsonl"), text.as_bytes())
        .unwrap()
        .remove(0);
    assert_eq!(t.total_usage().tokens_in, Some(u64::MAX));
}
