use super::*;
use crate::formats::{Kind, detect};

const TRACE: &str = concat!(
    r#"{"type":"session","harness":"llama.app","id":"b1a2c3","name":"Fix division"}"#,
    "\n",
    r#"{"type":"message","message":{"role":"system","content":"You are a coding agent."}}"#,
    "\n",
    r#"{"type":"message","message":{"role":"user","content":"Fix 7 / 2","timestamp":1760000000000}}"#,
    "\n",
    r#"{"type":"message","message":{"role":"assistant","content":"Reading.","reasoningContent":"Check the evaluator.","model":"qwen3-coder","toolCalls":[{"id":"c1","function":{"name":"bash","arguments":"{\"command\":\"cat calc.py\"}"}}]}}"#,
    "\n",
    r#"{"type":"message","message":{"role":"tool","content":"value // right","toolCallId":"c1"}}"#,
    "\n",
    r#"{"type":"message","message":{"role":"assistant","content":"Fixed."}}"#,
    "\n",
);

#[test]
fn a_trace_reads_its_messages_as_turns_and_steps() {
    let path = Path::new("b1a2c3.jsonl");
    assert_eq!(
        detect(path, TRACE.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::HfTrace))
    );
    let t = parse(path, TRACE.as_bytes()).unwrap().remove(0);
    assert_eq!(t.instance_id, "b1a2c3");
    assert_eq!(t.agent.as_deref(), Some("llama.app"));
    assert_eq!(t.model.as_deref(), Some("qwen3-coder"));
    assert_eq!(t.steps.len(), 3);
    assert_eq!(
        t.steps[0].timestamp.as_deref(),
        Some("2025-10-09T08:53:20.000Z")
    );
    let s = &t.steps[1];
    assert_eq!(s.thought, "Check the evaluator.\n\nReading.");
    assert_eq!(
        (s.action.as_str(), s.observation.as_str()),
        ("cat calc.py", "value // right")
    );
    let ctx = t.steps[2].context_messages(&t.messages);
    assert_eq!(
        ctx.first().map(|m| m.content.as_str()),
        Some("You are a coding agent.")
    );
}

#[test]
fn a_header_alone_is_not_enough_without_message_envelopes() {
    let text = "{\"type\":\"session\",\"harness\":\"x\",\"id\":\"1\"}\n{\"type\":\"other\"}\n";
    assert_ne!(
        detect(Path::new("t.jsonl"), text.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::HfTrace))
    );
    let err = parse(Path::new("t.jsonl"), b"{\"type\":\"message\"}\n").unwrap_err();
    assert!(err.to_string().contains("t.jsonl"), "{err}");
}
