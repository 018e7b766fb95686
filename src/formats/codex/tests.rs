//! Unit tests of the Codex loader on small inline rollouts, detected by content and parsed.

use crate::formats::{Loaded, load_bytes};
use crate::model::{Format, Role, Trajectory};
use std::path::Path;

fn load(text: &str) -> Trajectory {
    load_as("s/rollout-1.jsonl", text)
}

fn load_as(name: &str, text: &str) -> Trajectory {
    match load_bytes(Path::new(name), text.as_bytes()) {
        Ok(Loaded::Trajectories(mut ts)) => {
            assert_eq!(ts.len(), 1);
            let t = ts.remove(0);
            assert_eq!(t.format, Format::Codex);
            t
        }
        Ok(Loaded::Results(_)) => panic!("read as results"),
        Err(err) => panic!("{err}"),
    }
}

/// A session in the 0.5x shape: fix a test with a shell call, a patch, a rerun, an answer.
const ROLLOUT: &str = r#"{"timestamp":"2025-10-31T17:00:00.000Z","type":"session_meta","payload":{"id":"019a3b7e","timestamp":"2025-10-31T17:00:00.000Z","cwd":"/r","originator":"codex_cli_rs","cli_version":"0.53.0","instructions":"You are Codex, a coding agent.","source":"cli"}}
{"timestamp":"2025-10-31T17:00:00.100Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/r</cwd>\n</environment_context>"}]}}
{"timestamp":"2025-10-31T17:00:00.200Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Fix the failing test"}]}}
{"timestamp":"2025-10-31T17:00:00.200Z","type":"event_msg","payload":{"type":"user_message","message":"Fix the failing test","kind":"plain"}}
{"timestamp":"2025-10-31T17:00:00.300Z","type":"turn_context","payload":{"cwd":"/r","approval_policy":"never","sandbox_policy":{"mode":"workspace-write"},"model":"gpt-5-codex","effort":"medium","summary":"auto"}}
{"timestamp":"2025-10-31T17:00:02.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Running the tests**"}],"content":null,"encrypted_content":"gAAAA"}}
{"timestamp":"2025-10-31T17:00:02.100Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"pytest -q\"],\"workdir\":\"/r\"}","call_id":"call_1"}}
{"timestamp":"2025-10-31T17:00:02.200Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":20,"total_tokens":1050},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":20,"total_tokens":1050},"model_context_window":272000}}}
{"timestamp":"2025-10-31T17:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"{\"output\":\"F\\nFAILED test_calc.py::test_add\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.8}}"}}
{"timestamp":"2025-10-31T17:00:03.100Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":20,"total_tokens":1050},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":20,"total_tokens":1050}},"rate_limits":{"primary":{"used_percent":3.0}}}}
{"timestamp":"2025-10-31T17:00:05.000Z","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch\n*** Update File: calc.py\n@@\n-    return a - b\n+    return a + b\n*** End Patch\n"}}
{"timestamp":"2025-10-31T17:00:05.100Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"call_2","stdout":"Success. Updated the following files:\nM calc.py\n","stderr":"","success":true,"changes":{"/r/calc.py":{"type":"update","unified_diff":"@@ -1,2 +1,2 @@\n-    return a - b\n+    return a + b\n","move_path":null}}}}
{"timestamp":"2025-10-31T17:00:05.200Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":2200,"output_tokens":120},"last_token_usage":{"input_tokens":1200,"output_tokens":70}}}}
{"timestamp":"2025-10-31T17:00:05.300Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_2","output":"{\"output\":\"Success. Updated the following files:\\nM calc.py\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"}}
{"timestamp":"2025-10-31T17:00:07.000Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"pytest -q\",\"workdir\":\"/r\"}","call_id":"call_3"}}
{"timestamp":"2025-10-31T17:00:08.500Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_3","stdout":"1 passed\n","stderr":"","aggregated_output":"1 passed\n","exit_code":0,"duration":{"secs":1,"nanos":500000000},"formatted_output":"1 passed\n"}}
{"timestamp":"2025-10-31T17:00:08.600Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":3500,"output_tokens":150},"last_token_usage":{"input_tokens":1300,"output_tokens":30}}}}
{"timestamp":"2025-10-31T17:00:08.700Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_3","output":"Exit code: 0\nWall time: 1.5 seconds\nOutput:\n1 passed\n"}}
{"timestamp":"2025-10-31T17:00:10.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Fixed add() in calc.py; the test passes."}]}}
{"timestamp":"2025-10-31T17:00:10.000Z","type":"event_msg","payload":{"type":"agent_message","message":"Fixed add() in calc.py; the test passes."}}
{"timestamp":"2025-10-31T17:00:10.100Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":4900,"output_tokens":170},"last_token_usage":{"input_tokens":1400,"output_tokens":20}}}}
{"timestamp":"2025-10-31T17:00:10.200Z","type":"event_msg","payload":{"type":"task_complete","last_agent_message":"Fixed add() in calc.py; the test passes."}}
"#;

#[test]
fn a_rollout_reads_as_steps() {
    let t = load_as(
        "sessions/rollout-2025-10-31T17-00-00-019a3b7e.jsonl",
        ROLLOUT,
    );
    assert_eq!(t.instance_id, "019a3b7e");
    assert_eq!(t.format_detail.as_deref(), Some("cli 0.53.0"));
    assert_eq!(t.model.as_deref(), Some("gpt-5-codex"));
    assert_eq!(t.task.as_deref(), Some("Fix the failing test"));
    assert_eq!(t.exit_status.as_deref(), Some("completed"));
    assert_eq!(t.steps.len(), 5, "{:#?}", t.steps);

    // What the person typed is a step of its own (the environment preamble is not).
    let s = &t.steps[0];
    assert_eq!(s.kind, crate::model::StepKind::User);
    assert_eq!(s.user, "Fix the failing test");
    assert_eq!(s.timestamp.as_deref(), Some("2025-10-31T17:00:00.200Z"));

    let s = &t.steps[1];
    assert_eq!(s.thought, "**Running the tests**");
    assert_eq!(s.action, "pytest -q");
    assert_eq!(s.tool.as_deref(), Some("shell"));
    assert_eq!(s.observation, "F\nFAILED test_calc.py::test_add\n");
    assert_eq!((s.exit_code, s.duration_s), (Some(1), Some(0.8)));
    assert_eq!(s.usage.tokens_in, Some(1000));

    let s = &t.steps[2];
    assert_eq!(s.tool.as_deref(), Some("apply_patch"));
    assert!(
        s.action.starts_with("apply_patch calc.py\n*** Begin Patch"),
        "{}",
        s.action
    );
    assert!(s.tool_calls[0].arguments.starts_with("*** Begin Patch"));
    assert_eq!(
        s.observation,
        "Success. Updated the following files:\nM calc.py\n"
    );
    assert_eq!(s.tool_results[0].data["/r/calc.py"]["type"], "update");
    assert_eq!(s.usage.tokens_out, Some(70));

    let s = &t.steps[3];
    assert_eq!(s.action, "pytest -q");
    assert!(
        s.observation.starts_with("Exit code: 0\nWall time"),
        "{}",
        s.observation
    );
    assert_eq!(
        (s.exit_code, s.duration_s),
        (Some(0), Some(1.5)),
        "timed twice, counted once"
    );

    assert_eq!(
        t.steps[4].response,
        "Fixed add() in calc.py; the test passes."
    );
    assert_eq!(
        t.steps[4].summary(),
        "Fixed add() in calc.py; the test passes."
    );
    // The repeated first report is not counted twice: steps sum to the session total.
    let from_steps: u64 = t.steps.iter().filter_map(|s| s.usage.tokens_in).sum();
    assert_eq!(from_steps, 4900);
    assert_eq!(t.total_usage().tokens_in, Some(4900));
    assert_eq!(t.total_usage().tokens_out, Some(170));
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
}

#[test]
fn context_holds_instructions_and_history() {
    let t = load(ROLLOUT);
    // The user's step saw the instructions and the environment; the first agent step also
    // saw what the user typed.
    let ctx = t.steps[0].context_messages(&t.messages);
    let roles: Vec<Role> = ctx.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::System, Role::User]);
    let ctx = t.steps[1].context_messages(&t.messages);
    let roles: Vec<Role> = ctx.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::System, Role::User, Role::User]);
    assert_eq!(ctx[0].content, "You are Codex, a coding agent.");
    let ctx = t.steps[4].context_messages(&t.messages);
    assert_eq!(ctx.len(), 9);
    assert_eq!(ctx[8].tool_call_id.as_deref(), Some("call_3"));
}

#[test]
fn a_torn_last_line_and_unknown_records_are_warnings() {
    let text = format!(
        "{ROLLOUT}{}\n{}\n{{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{{\"type\":\"mess",
        r#"{"timestamp":"t","type":"hologram","payload":{}}"#,
        r#"{"timestamp":"t","type":"hologram","payload":{}}"#,
    );
    let t = load(&text);
    assert_eq!(t.steps.len(), 5);
    assert_eq!(t.warnings.len(), 2, "{:?}", t.warnings);
    assert!(
        t.warnings[0].ends_with(":25: last line is incomplete (still being written?); skipped"),
        "{:?}",
        t.warnings
    );
    assert_eq!(
        t.warnings[1],
        "s/rollout-1.jsonl:23: skipped 2 record(s) of unknown type `hologram`"
    );
}

#[test]
fn replies_compaction_and_local_shell() {
    let t = load(concat!(
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s2","cli_version":"0.40.0"}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"What is in src?"}]}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","call_id":"c1","status":"completed","action":{"type":"exec","command":["ls","src"],"timeout_ms":10000}}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"main.rs\\n\",\"metadata\":{\"exit_code\":0}}"}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Just main.rs."}]}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Thanks, now add lib.rs"}]}}"#,
        "\n",
        r#"{"timestamp":"t","type":"compacted","payload":{"message":"User asked about src; it holds main.rs."}}"#,
        "\n",
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Adding lib.rs."}]}}"#,
        "\n",
    ));
    use crate::model::StepKind;
    let kinds: Vec<StepKind> = t.steps.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            StepKind::User,
            StepKind::Agent,
            StepKind::Agent,
            StepKind::User,
            StepKind::Compaction,
            StepKind::Agent
        ]
    );
    assert_eq!(t.steps[0].user, "What is in src?");
    assert_eq!(t.steps[1].tool.as_deref(), Some("local_shell"));
    assert_eq!(t.steps[1].action, "ls src");
    assert_eq!(t.steps[1].observation, "main.rs\n");
    assert_eq!(t.steps[2].response, "Just main.rs.");
    // A reply mid-session is the user's own step, not the answer's observation.
    assert_eq!(t.steps[2].observation, "");
    assert_eq!(t.steps[3].user, "Thanks, now add lib.rs");
    // The compaction is a step of its own, holding the summary that replaced the history.
    assert_eq!(t.steps[4].user, "User asked about src; it holds main.rs.");
    let ctx = t.steps[5].context_messages(&t.messages);
    assert_eq!(ctx.len(), 1);
    assert_eq!(ctx[0].content, "User asked about src; it holds main.rs.");
    assert!(ctx[0].compaction);
    assert_eq!(t.exit_status, None);
}

#[test]
fn usage_only_sessions_keep_their_totals() {
    let t = load(concat!(
        r#"{"timestamp":"2026-05-13T09:00:00.000Z","type":"turn_context","payload":{"model":"gpt-5.2-codex"}}"#,
        "\n",
        r#"{"timestamp":"2026-05-13T09:01:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1000,"output_tokens":125},"total_token_usage":{"input_tokens":1000,"output_tokens":125}}}}"#,
        "\n",
        r#"{"timestamp":"2026-05-14T10:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":2500,"output_tokens":300},"total_token_usage":{"input_tokens":3500,"output_tokens":425}}}}"#,
        "\n",
        r#"{"timestamp":"2026-05-14T10:00:01.000Z","type":"event_msg","payload":{"type":"error","message":"Rate limit exceeded\nretry later"}}"#,
        "\n",
    ));
    assert_eq!(t.instance_id, "rollout-1");
    assert_eq!(t.steps.len(), 0);
    assert_eq!(t.model.as_deref(), Some("gpt-5.2-codex"));
    assert_eq!(t.total_usage().tokens_in, Some(3500));
    assert_eq!(t.total_usage().tokens_out, Some(425));
    assert_eq!(t.exit_status.as_deref(), Some("error: Rate limit exceeded"));
}

#[test]
fn early_rollouts_without_an_envelope() {
    let t = load_as(
        "run/astropy__astropy-12907.jsonl",
        concat!(
            r#"{"id":"0b1c","timestamp":"2025-05-01T10:00:00Z","instructions":null}"#,
            "\n",
            r#"{"record_type":"state"}"#,
            "\n",
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"Run the tests"}]}"#,
            "\n",
            r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"pytest\"]}","call_id":"c1"}"#,
            "\n",
            r#"{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"2 failed\",\"metadata\":{\"exit_code\":1}}"}"#,
            "\n",
            r#"{"record_type":"state"}"#,
            "\n",
        ),
    );
    assert_eq!(
        t.instance_id, "astropy__astropy-12907",
        "the harness's name, not the session's"
    );
    assert_eq!(t.format_detail.as_deref(), Some("rollout"));
    assert_eq!(t.task.as_deref(), Some("Run the tests"));
    assert_eq!(t.steps.len(), 2);
    assert_eq!(t.steps[0].user, "Run the tests");
    assert_eq!(t.steps[1].action, "pytest");
    assert_eq!(t.steps[1].exit_code, Some(1));
    assert!(t.steps[1].is_error());
}

#[test]
fn nothing_readable_is_an_error_naming_the_file() {
    let err = super::parse(Path::new("x.jsonl"), b"nope\n{\"a\":")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        err.starts_with("x.jsonl: no readable Codex records (x.jsonl:1:"),
        "{err}"
    );
}
