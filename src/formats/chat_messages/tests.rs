use super::*;
use serde_json::json;

fn load(bytes: &[u8]) -> Vec<Trajectory> {
    let mut ts = parse(Path::new("logs/chat.json"), bytes).unwrap();
    for t in &mut ts {
        t.number_steps();
    }
    ts
}

fn conversation() -> Value {
    json!([
        {"role": "system", "content": "You fix bugs."},
        {"role": "user", "content": [{"type": "text", "text": "<issue>\nmean([]) crashes\n</issue>"}]},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"cat stats.py\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "view_file", "arguments": "{\"path\": \"tests/test_stats.py\"}"}}
        ], "usage": {"prompt_tokens": 120, "completion_tokens": 30}},
        {"role": "tool", "tool_call_id": "c2", "content": "def test_mean(): ..."},
        {"role": "tool", "tool_call_id": "c1", "content": "def mean(v): return sum(v) / len(v)"},
        {"role": "assistant", "content": null, "reasoning_content": "Guard the empty case.",
         "function_call": {"name": "edit", "arguments": "{\"path\": \"stats.py\"}"}},
        {"role": "function", "name": "edit", "content": "ok"},
        {"role": "narrator", "content": "meanwhile"},
        {"role": "assistant", "content": "Done."}
    ])
}

#[test]
fn steps_from_assistant_messages_and_tool_answers() {
    let bytes = serde_json::to_vec(&conversation()).unwrap();
    let t = &load(&bytes)[0];
    assert_eq!(t.instance_id, "chat");
    assert_eq!(t.task.as_deref(), Some("mean([]) crashes"));
    assert_eq!(t.steps.len(), 3);
    let first = &t.steps[0];
    assert_eq!(first.thought, "Let me look.");
    assert_eq!(first.tool.as_deref(), Some("bash"));
    assert_eq!(
        first.action,
        "cat stats.py\nview_file(path=\"tests/test_stats.py\")"
    );
    // Answers in the order they came, each matched to its call by id.
    assert_eq!(
        first.observation,
        "def test_mean(): ...\ndef mean(v): return sum(v) / len(v)"
    );
    assert_eq!(first.usage.tokens_in, Some(120));
    let second = &t.steps[1];
    assert_eq!(second.thought, "Guard the empty case.");
    assert_eq!(second.tool.as_deref(), Some("edit"));
    assert_eq!(second.observation, "ok");
    assert_eq!(t.steps[2].action, "");
    let ctx = t.steps[2].context.as_ref().unwrap();
    assert_eq!(ctx.exactness, Exactness::Reconstructed);
    assert_eq!(t.steps[2].context_messages(&t.messages).len(), 7);
    assert_eq!(t.warnings.len(), 1);
    assert!(t.warnings[0].contains("1 message(s) with a role other than"));
}

#[test]
fn object_with_messages_names_the_instance_and_model() {
    let value =
        json!({"instance_id": "psf__requests-863", "model": "gpt-4o", "messages": conversation()});
    let t = &load(&serde_json::to_vec(&value).unwrap())[0];
    assert_eq!(t.instance_id, "psf__requests-863");
    assert_eq!(t.model.as_deref(), Some("gpt-4o"));
    assert_eq!(t.steps.len(), 3);
}

#[test]
fn jsonl_of_messages_and_of_conversations() {
    let lines: Vec<String> = conversation()
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.to_string())
        .collect();
    let text = lines.join("\n") + "\n{\"role\": \"assistant\", \"content\": \"cut";
    let ts = load(text.as_bytes());
    assert_eq!(ts.len(), 1);
    assert_eq!(ts[0].steps.len(), 3);
    assert!(
        ts[0].warnings.iter().any(|w| w.contains("incomplete")),
        "{:?}",
        ts[0].warnings
    );

    let one = json!({"id": "a", "messages": conversation()}).to_string();
    let two = json!({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}).to_string();
    let ts = load(format!("{one}\n{two}\n").as_bytes());
    assert_eq!(ts.len(), 2);
    assert_eq!(ts[0].instance_id, "a");
    assert_eq!(ts[1].instance_id, "chat#2");
    assert_eq!(ts[1].source_index, Some(1));
    assert_eq!(ts[1].steps.len(), 1);
}

#[test]
fn wrong_shapes_are_errors() {
    let err = parse(Path::new("c.json"), b"{\"messages\": 5}")
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a list of chat messages"), "{err}");
    let err = parse(Path::new("c.json"), b"[{\"role\": \"user\",")
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("c.json:1:"), "{err}");
    assert!(parse(Path::new("c.json"), b"[]").is_err());
    let gemini = br#"{"kind": "chat", "messages": [{"type": "user", "content": "Hello"}, {"type": "gemini", "content": "Hi"}]}"#;
    let err = parse(Path::new("g.json"), gemini).unwrap_err().to_string();
    assert!(err.contains("no message has a chat role"), "{err}");
    // Items that are not messages are skipped, not fatal.
    let t = &load(b"[1, \"x\", {\"role\": \"assistant\", \"content\": \"hi\"}]")[0];
    assert_eq!(t.steps.len(), 1);
}
