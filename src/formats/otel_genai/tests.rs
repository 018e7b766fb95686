use super::*;
use crate::formats::{Kind, detect};
use attributes::Attrs;
use serde_json::json;

fn attr(key: &str, value: Value) -> Value {
    let v = match value {
        Value::String(s) => json!({"stringValue": s}),
        Value::Number(n) => json!({"intValue": n.to_string()}),
        other => json!({"stringValue": other.to_string()}),
    };
    json!({"key": key, "value": v})
}

fn span(trace: &str, id: &str, start: u64, attrs: Vec<Value>, status: Value) -> Value {
    json!({"traceId": trace, "spanId": id, "name": id, "kind": 3,
           "startTimeUnixNano": start.to_string(), "endTimeUnixNano": (start + 500_000_000).to_string(),
           "attributes": attrs, "status": status})
}

fn export() -> String {
    let t0 = 1_760_000_000_000_000_000u64;
    let input =
        json!([{"role": "user", "parts": [{"type": "text", "content": "Fix 7 / 2"}]}]).to_string();
    let output = json!([{"role": "assistant", "finish_reason": "tool_call", "parts": [
        {"type": "reasoning", "content": "Check the evaluator."},
        {"type": "tool_call", "id": "call_1", "name": "bash", "arguments": {"command": "cat calc.py"}}]}]).to_string();
    let input2 = json!([
        {"role": "user", "parts": [{"type": "text", "content": "Fix 7 / 2"}]},
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "bash", "arguments": {}}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": "value // right"}]},
        {"role": "user", "parts": [{"type": "text", "content": "Use true division"}]}]).to_string();
    let output2 =
        json!([{"role": "assistant", "parts": [{"type": "text", "content": "Done."}]}]).to_string();
    let spans = vec![
        span(
            "t1",
            "chat-1",
            t0,
            vec![
                attr("gen_ai.operation.name", json!("chat")),
                attr("gen_ai.request.model", json!("gpt-4.1")),
                attr("gen_ai.response.model", json!("gpt-4.1-2025-04-14")),
                attr("gen_ai.input.messages", json!(input)),
                attr("gen_ai.output.messages", json!(output)),
                attr("gen_ai.usage.input_tokens", json!(120)),
                attr("gen_ai.usage.output_tokens", json!(30)),
            ],
            json!({}),
        ),
        span(
            "t1",
            "tool-1",
            t0 + 1_000_000_000,
            vec![
                attr("gen_ai.operation.name", json!("execute_tool")),
                attr("gen_ai.tool.name", json!("bash")),
                attr("gen_ai.tool.call.id", json!("call_1")),
                attr("gen_ai.tool.call.result", json!("value // right")),
            ],
            json!({"code": 2, "message": "exit status 1"}),
        ),
        span(
            "t1",
            "chat-2",
            t0 + 2_000_000_000,
            vec![
                attr("gen_ai.operation.name", json!("chat")),
                attr("gen_ai.input.messages", json!(input2)),
                attr("gen_ai.output.messages", json!(output2)),
                attr("gen_ai.usage.input_tokens", json!(200)),
                attr("gen_ai.usage.output_tokens", json!(5)),
            ],
            json!({}),
        ),
        span(
            "t2",
            "other",
            t0,
            vec![attr("http.method", json!("GET"))],
            json!({}),
        ),
    ];
    json!({"resourceSpans": [{"resource": {"attributes": []},
        "scopeSpans": [{"scope": {"name": "openai-agents"}, "spans": spans}]}]})
    .to_string()
}

#[test]
fn a_trace_of_chat_and_tool_spans_is_one_trajectory() {
    let text = export();
    let path = Path::new("traces.json");
    assert_eq!(
        detect(path, text.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::OtelGenai))
    );
    let ts = parse(path, text.as_bytes()).unwrap();
    assert_eq!(ts.len(), 1, "the trace without GenAI spans is left out");
    let t = &ts[0];
    assert_eq!(t.instance_id, "t1");
    assert_eq!(t.model.as_deref(), Some("gpt-4.1-2025-04-14"));
    let kinds: Vec<crate::model::StepKind> = t.steps.iter().map(|s| s.kind).collect();
    let (u, a) = (crate::model::StepKind::User, crate::model::StepKind::Agent);
    assert_eq!(kinds, [u, a, u, a]);
    let s = &t.steps[1];
    assert_eq!(s.thought, "Check the evaluator.");
    assert_eq!(s.action, "cat calc.py");
    assert_eq!(s.observation, "value // right\nexit status 1");
    assert!(s.failed);
    assert_eq!(s.duration_s, Some(0.5));
    assert_eq!(t.steps[2].user, "Use true division");
    assert_eq!(t.steps[3].response, "Done.");
    let total = t.total_usage();
    assert_eq!(
        (total.tokens_in, total.tokens_out, total.api_calls),
        (Some(320), Some(35), Some(2))
    );
}

#[test]
fn otlp_without_genai_spans_is_named_as_such() {
    let text =
        r#"{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "a", "name": "GET /"}]}]}]}"#;
    let err = parse(Path::new("http.json"), text.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("http.json") && err.contains("without GenAI spans"),
        "{err}"
    );
}

#[test]
fn a_trace_keeps_each_input_message_once_however_many_requests_resend_it() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("sample-trajectories/otel-genai/tinycalc__tinycalc-1.json"),
    )
    .unwrap();
    let export: Value = serde_json::from_str(&text).unwrap();
    let spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap();
    let inputs = |s: &Value| -> Vec<Value> {
        let attrs = Attrs::of(s);
        match attrs.json("gen_ai.input.messages") {
            Some(Value::Array(m)) => m,
            _ => Vec::new(),
        }
    };
    // Each request resends the conversation: the last one holds every message.
    let resent: usize = spans.iter().map(|s| inputs(s).len()).sum();
    let last = spans.iter().map(inputs).max_by_key(Vec::len).unwrap();
    let distinct = last.iter().filter(|m| m["role"] != "assistant").count() + 1;
    let mut traces = Traces::default();
    traces.export(&export);
    assert_eq!(traces.pooled(), distinct, "once each, and the instructions");
    assert!(resent > 3 * distinct, "{resent} messages sent in all");
    traces.export(&export);
    assert_eq!(traces.pooled(), distinct, "the same export again adds none");
}
