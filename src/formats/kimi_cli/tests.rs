use super::*;
use crate::formats::{Kind, detect};

fn lines(records: &[&str]) -> String {
    records.iter().map(|r| format!("{r}\n")).collect()
}

/// A legacy wire log's first turn up to the model's text, which both legacy tests continue.
const LEGACY_TURN_OPENING: [&str; 3] = [
    r#"{"timestamp":1760000000.5,"message":{"type":"TurnBegin","payload":{"user_input":"list files"}}}"#,
    r#"{"timestamp":1760000001.0,"message":{"type":"StepBegin","payload":{"n":1}}}"#,
    r#"{"timestamp":1760000001.1,"message":{"type":"ContentPart","payload":{"type":"text","text":"Listing."}}}"#,
];

#[test]
fn protocol_1_records_become_turns_and_steps() {
    let text = lines(&[
        r#"{"type":"metadata","protocol_version":"1.4","created_at":1784950509920}"#,
        r#"{"type":"config.update","modelAlias":"moonshot-ai/kimi-k2","systemPrompt":"You are Kimi.","time":1784950509920}"#,
        r#"{"type":"turn.prompt","input":[{"type":"text","text":"Fix 7 / 2"}],"origin":{"kind":"user"},"time":1784950605093}"#,
        r#"{"type":"context.append_loop_event","event":{"type":"step.begin","uuid":"u1","turnId":"0","step":1},"time":1784950605097}"#,
        r#"{"type":"llm.request","model":"kimi-k2","messageCount":1,"time":1784950605100}"#,
        r#"{"type":"llm.request","model":"kimi-k2","attempt":"2/10","time":1784950605200}"#,
        r#"{"type":"context.append_loop_event","event":{"type":"content.part","part":{"type":"think","think":"Read the evaluator."}},"time":1784950606000}"#,
        r#"{"type":"context.append_loop_event","event":{"type":"tool.call","toolCallId":"c1","name":"Bash","args":{"command":"cat calc.py"}},"time":1784950606100}"#,
        r#"{"type":"context.append_loop_event","event":{"type":"tool.result","toolCallId":"c1","result":{"output":[{"type":"text","text":"value // right"}],"isError":false}},"time":1784950606200}"#,
        r#"{"type":"context.append_loop_event","event":{"type":"step.end","model":"kimi-k2","finishReason":"tool_calls","usage":{"inputOther":80,"inputCacheRead":20,"output":12}},"time":1784950606300}"#,
        r#"{"type":"turn.steer","input":[{"type":"text","text":"stop"}],"origin":{"kind":"user"},"time":1784950607000}"#,
        r#"{"type":"turn.cancel","time":1784950607100}"#,
    ]);
    let path = Path::new("wire.jsonl");
    assert_eq!(
        detect(path, text.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::KimiCli))
    );
    let t = parse(path, text.as_bytes()).unwrap().remove(0);
    assert_eq!(t.format_detail.as_deref(), Some("protocol 1.4"));
    assert_eq!(t.model.as_deref(), Some("kimi-k2"));
    assert_eq!(t.exit_status.as_deref(), Some("cancelled"));
    let kinds: Vec<crate::model::StepKind> = t.steps.iter().map(|s| s.kind).collect();
    let (u, a) = (crate::model::StepKind::User, crate::model::StepKind::Agent);
    assert_eq!(kinds, [u, a, u]);
    assert_eq!(
        t.steps[0].timestamp.as_deref(),
        Some("2026-07-25T03:36:45.093Z")
    );
    let s = &t.steps[1];
    assert_eq!(s.thought, "Read the evaluator.");
    assert_eq!(s.action, "cat calc.py");
    assert_eq!(s.observation, "value // right");
    assert_eq!(
        (s.usage.tokens_in, s.usage.tokens_out),
        (Some(100), Some(12))
    );
    assert_eq!(t.messages[0].content, "You are Kimi.");
    assert!(
        t.warnings
            .iter()
            .any(|w| w.contains("1 model request(s) were retries"))
    );
}

#[test]
fn legacy_wire_records_read_the_same_way() {
    let text = lines(&[
        &LEGACY_TURN_OPENING[..],
        &[
            r#"{"timestamp":1760000001.2,"message":{"type":"ToolCall","payload":{"type":"function","id":"t1","function":{"name":"Shell","arguments":"{\"command\":\"ls\"}"}}}}"#,
            r#"{"timestamp":1760000001.3,"message":{"type":"ToolResult","payload":{"tool_call_id":"t1","return_value":{"is_error":true,"output":"","message":"denied"}}}}"#,
            r#"{"timestamp":1760000001.4,"message":{"type":"StatusUpdate","payload":{"token_usage":{"input_other":50,"output":5}}}}"#,
            r#"{"timestamp":1760000001.5,"message":{"type":"TurnEnd","payload":{}}}"#,
        ],
    ]
    .concat());
    let path = Path::new("renamed.jsonl");
    assert_eq!(
        detect(path, text.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::KimiCli))
    );
    let t = parse(path, text.as_bytes()).unwrap().remove(0);
    assert_eq!(t.steps.len(), 2);
    assert_eq!(t.steps[0].user, "list files");
    let s = &t.steps[1];
    assert_eq!(
        (s.action.as_str(), s.observation.as_str()),
        ("ls", "denied")
    );
    assert!(s.failed);
    assert_eq!(s.usage.tokens_in, Some(50));
}

#[test]
fn absurd_token_counts_saturate_instead_of_overflowing() {
    // The overflow fuzzing found in OpenCode's sum, here in the three input counts.
    let text = lines(&[
        &LEGACY_TURN_OPENING[..],
        &[
            r#"{"timestamp":1760000001.4,"message":{"type":"StatusUpdate","payload":{"token_usage":{"input_other":1e40,"input_cache_read":1e40,"input_cache_creation":7,"output":5}}}}"#,
            r#"{"timestamp":1760000001.5,"message":{"type":"TurnEnd","payload":{}}}"#,
        ],
    ]
    .concat());
    let t = parse(Path::new("wire.jsonl"), text.as_bytes())
        .unwrap()
        .remove(0);
    assert_eq!(t.total_usage().tokens_in, Some(u64::MAX));
}
