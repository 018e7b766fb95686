use super::*;
use crate::formats::{Kind, detect};

#[test]
fn a_stream_reads_turns_calls_results_and_run_usage() {
    let text = concat!(
        r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"d1","tools":["Read","Execute"],"model":"claude-sonnet-4-5"}"#,
        "\n",
        r#"{"type":"message","role":"user","id":"m0","text":"Fix 7 / 2","timestamp":1760000000000,"session_id":"d1"}"#,
        "\n",
        r#"{"type":"message","role":"assistant","id":"m1","text":"Reading.","timestamp":1760000001000,"session_id":"d1"}"#,
        "\n",
        r#"{"type":"tool_call","id":"c1","messageId":"m1","toolId":"t1","toolName":"Execute","parameters":{"command":"cat calc.py"},"session_id":"d1"}"#,
        "\n",
        r#"{"type":"tool_result","id":"r1","messageId":"m1","toolId":"t1","isError":false,"value":"value // right","session_id":"d1"}"#,
        "\n",
        r#"{"type":"message","role":"assistant","id":"m2","text":"Fixed.","session_id":"d1"}"#,
        "\n",
        r#"{"type":"completion","finalText":"Fixed.","numTurns":2,"durationMs":900,"session_id":"d1","usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":50,"cache_creation_input_tokens":0}}"#,
        "\n",
    );
    let path = Path::new("run.jsonl");
    assert_eq!(
        detect(path, text.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::Droid))
    );
    let t = parse(path, text.as_bytes()).unwrap().remove(0);
    assert_eq!(t.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(t.steps.len(), 3);
    assert_eq!(t.steps[0].user, "Fix 7 / 2");
    assert_eq!(
        (t.steps[1].action.as_str(), t.steps[1].observation.as_str()),
        ("cat calc.py", "value // right")
    );
    assert_eq!(t.steps[2].response, "Fixed.");
    assert_eq!(t.exit_status.as_deref(), Some("completed"));
    let total = t.total_usage();
    assert_eq!((total.tokens_in, total.tokens_out), (Some(150), Some(20)));
}

#[test]
fn claude_stream_json_stays_claude() {
    let claude = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"model\":\"m\"}\n{\"type\":\"result\",\"subtype\":\"success\",\"session_id\":\"s\"}\n";
    assert_eq!(
        detect(Path::new("c.jsonl"), claude.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::ClaudeCode))
    );
    let err = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"d\"}\n{\"type\":\"error\",\"source\":\"cli\",\"message\":\"Authentication failed\"}\n{\"type\":\"completion\",\"finalText\":\"\",\"session_id\":\"d\"}\n";
    let t = parse(Path::new("e.jsonl"), err.as_bytes())
        .unwrap()
        .remove(0);
    assert_eq!(t.exit_status.as_deref(), Some("error"));
    assert!(
        t.warnings
            .iter()
            .any(|w| w.contains("Authentication failed"))
    );
}

#[test]
fn absurd_token_counts_saturate_instead_of_overflowing() {
    // The overflow fuzzing found in OpenCode's sum, here in input + cache counts.
    let text = concat!(
        r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"d1","tools":["Execute"],"model":"m"}"#,
        "\n",
        r#"{"type":"message","role":"user","id":"m0","text":"Fix","timestamp":1760000000000,"session_id":"d1"}"#,
        "\n",
        r#"{"type":"completion","finalText":"Done.","numTurns":1,"durationMs":9,"session_id":"d1","usage":{"input_tokens":1e40,"output_tokens":2,"cache_read_input_tokens":1e40,"cache_creation_input_tokens":1e40}}"#,
        "\n",
    );
    let t = parse(Path::new("run.jsonl"), text.as_bytes())
        .unwrap()
        .remove(0);
    assert_eq!(t.total_usage().tokens_in, Some(u64::MAX));
}
