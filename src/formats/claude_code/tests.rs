//! Unit tests of the Claude Code loader on small inline logs, each read the way users'
//! files are: detected by content, then parsed.

use crate::formats::{Loaded, load_bytes};
use crate::model::{Format, Role, Step, StepKind, Trajectory};
use std::path::Path;

fn load_as(name: &str, text: &str) -> Trajectory {
    match load_bytes(Path::new(name), text.as_bytes()) {
        Ok(Loaded::Trajectories(mut ts)) => {
            assert_eq!(ts.len(), 1);
            let t = ts.remove(0);
            assert_eq!(t.format, Format::ClaudeCode);
            t
        }
        Ok(Loaded::Results(_)) => panic!("read as results"),
        Err(err) => panic!("{err}"),
    }
}

fn load(text: &str) -> Trajectory {
    load_as("p/s.jsonl", text)
}

/// The agent's own steps: what a person said, and compactions, are steps of other kinds.
fn agent(t: &Trajectory) -> Vec<&Step> {
    t.steps
        .iter()
        .filter(|s| s.kind == StepKind::Agent)
        .collect()
}

/// One API response written as three records (thinking, text, tool call), a result, then a
/// fourth record of the same response with a second call: one step.
const SPLIT_RESPONSE: &str = r#"{"type":"user","sessionId":"s-1","version":"1.0.80","uuid":"u1","timestamp":"2025-08-01T10:00:00Z","message":{"role":"user","content":"Fix the failing test in calc.py"}}
{"type":"assistant","sessionId":"s-1","uuid":"a1","timestamp":"2025-08-01T10:00:02Z","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"thinking","thinking":"Run the tests first."}],"usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":2}}}
{"type":"assistant","sessionId":"s-1","uuid":"a2","timestamp":"2025-08-01T10:00:03Z","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"text","text":"Let me run the tests."}],"usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":20}}}
{"type":"assistant","sessionId":"s-1","uuid":"a3","timestamp":"2025-08-01T10:00:04Z","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"pytest -q","description":"Run tests"}}],"usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":45}}}
{"type":"user","sessionId":"s-1","uuid":"u2","timestamp":"2025-08-01T10:00:09Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Exit code 1\nFAILED test_calc.py::test_add","is_error":true}]},"toolUseResult":{"stdout":"FAILED","stderr":"","interrupted":false}}
{"type":"assistant","sessionId":"s-1","uuid":"a4","timestamp":"2025-08-01T10:00:10Z","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"/r/calc.py"}}],"usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":45}}}
{"type":"user","sessionId":"s-1","uuid":"u3","timestamp":"2025-08-01T10:00:11Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"     1\tdef add(a, b):\n     2\t    return a - b"}]},"toolUseResult":{"type":"text","file":{"filePath":"/r/calc.py","content":"def add(a, b):\n    return a - b"}}}
{"type":"assistant","sessionId":"s-1","uuid":"a5","timestamp":"2025-08-01T10:00:15Z","message":{"id":"msg_2","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"tool_use","id":"toolu_3","name":"Edit","input":{"file_path":"/r/calc.py","old_string":"a - b","new_string":"a + b"}}],"usage":{"input_tokens":5,"output_tokens":30}}}
{"type":"user","sessionId":"s-1","uuid":"u4","timestamp":"2025-08-01T10:00:16Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"The file /r/calc.py has been updated."}]},"toolUseResult":{"filePath":"/r/calc.py","oldString":"a - b","newString":"a + b","structuredPatch":[{"oldStart":2,"oldLines":1,"newStart":2,"newLines":1,"lines":["-    return a - b","+    return a + b"]}]}}
{"type":"assistant","sessionId":"s-1","uuid":"a6","timestamp":"2025-08-01T10:00:20Z","message":{"id":"msg_3","role":"assistant","model":"claude-sonnet-4-20250514","content":[{"type":"text","text":"Fixed: add() subtracted."}],"usage":{"input_tokens":5,"output_tokens":8}}}
"#;

#[test]
fn records_of_one_response_merge_into_one_step() {
    // Claude Code names session files after the session.
    let t = load_as("projects/-r/s-1.jsonl", SPLIT_RESPONSE);
    assert_eq!(t.instance_id, "s-1");
    assert_eq!(t.format_detail.as_deref(), Some("session v1.0.80"));
    assert_eq!(t.model.as_deref(), Some("claude-sonnet-4-20250514"));
    assert_eq!(t.task.as_deref(), Some("Fix the failing test in calc.py"));
    assert_eq!(t.steps.len(), 4, "{:#?}", t.steps);
    assert_eq!(t.steps[0].kind, StepKind::User);
    assert_eq!(t.steps[0].user, "Fix the failing test in calc.py");
    assert_eq!(
        t.steps[0].timestamp.as_deref(),
        Some("2025-08-01T10:00:00Z")
    );
    let s = agent(&t)[0];
    assert_eq!(s.thought, "Run the tests first.\n\nLet me run the tests.");
    assert_eq!(s.response, "Let me run the tests.");
    assert_eq!(s.action, "pytest -q\nRead /r/calc.py");
    assert_eq!(s.tool.as_deref(), Some("Bash"));
    assert_eq!(s.tool_calls.len(), 2);
    assert_eq!(
        s.tool_calls[0].argument("command").as_deref(),
        Some("pytest -q")
    );
    assert!(
        s.observation.starts_with("Exit code 1\nFAILED"),
        "{}",
        s.observation
    );
    assert!(s.observation.ends_with("return a - b"), "{}", s.observation);
    assert!(s.failed);
    assert_eq!(s.exit_code, Some(1));
    assert_eq!(s.timestamp.as_deref(), Some("2025-08-01T10:00:02Z"));
    // Repeated per record, counted once; cached prompt tokens are tokens in.
    assert_eq!(s.usage.tokens_in, Some(1110));
    assert_eq!(s.usage.tokens_out, Some(45));
    assert_eq!(t.total_usage().tokens_in, Some(1120));
    assert_eq!(t.total_usage().tokens_out, Some(83));
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
}

#[test]
fn file_tool_results_are_kept_for_diffs() {
    let t = load(SPLIT_RESPONSE);
    let steps = agent(&t);
    // Read's file content and Edit's structuredPatch; Bash's duplicate stdout is dropped.
    assert_eq!(steps[0].tool_results.len(), 1);
    assert_eq!(steps[0].tool_results[0].tool, "Read");
    let edit = &steps[1].tool_results[0];
    assert_eq!(edit.call_id.as_deref(), Some("toolu_3"));
    assert_eq!(edit.data["structuredPatch"][0]["newStart"], 2);
    assert_eq!(
        steps[1].observation,
        "The file /r/calc.py has been updated."
    );
    assert!(!steps[1].failed);
}

#[test]
fn context_is_the_conversation_so_far() {
    let t = load(SPLIT_RESPONSE);
    let steps = agent(&t);
    let ctx = steps[1].context_messages(&t.messages);
    let roles: Vec<Role> = ctx.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool, Role::Tool]);
    assert_eq!(ctx[1].tool_calls.len(), 2);
    assert_eq!(ctx[2].tool_call_id.as_deref(), Some("toolu_1"));
    let exactness = steps[1].context.as_ref().map(|c| c.exactness.as_str());
    assert_eq!(exactness, Some("reconstructed"));
    assert_eq!(steps[2].context_messages(&t.messages).len(), 6);
}

#[test]
fn a_torn_last_line_is_a_warning() {
    let torn =
        format!("{SPLIT_RESPONSE}{{\"type\":\"assistant\",\"message\":{{\"id\":\"msg_4\",\"con");
    let t = load(&torn);
    assert_eq!(agent(&t).len(), 3);
    assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
    assert!(
        t.warnings[0].contains("p/s.jsonl:11: last line is incomplete"),
        "{}",
        t.warnings[0]
    );
}

#[test]
fn replies_prompts_and_unknown_records() {
    let t = load(concat!(
        r#"{"type":"user","sessionId":"s","isMeta":true,"message":{"role":"user","content":"Caveat: The messages below were generated by the user while running local commands."}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"<command-name>/model</command-name>"}]}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"What does calc.py do?"}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"It adds numbers."}]}}"#,
        "\n",
        r#"{"type":"file-history-snapshot","messageId":"m1","snapshot":{}}"#,
        "\n",
        r#"{"type":"hologram","sessionId":"s"}"#,
        "\n",
        r#"{"type":"hologram","sessionId":"s"}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"Now make it subtract."}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Done."}]}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","message":"error"}"#,
        "\n",
        r#"{"type":"summary","summary":"Calc questions","leafUuid":"x"}"#,
        "\n",
    ));
    assert_eq!(t.task.as_deref(), Some("What does calc.py do?"));
    // Each prompt is a step of its own; local command echoes are context only.
    let kinds: Vec<StepKind> = t.steps.iter().map(|s| s.kind).collect();
    use StepKind::{Agent, User};
    assert_eq!(kinds, [User, Agent, User, Agent]);
    assert_eq!(t.steps[0].user, "What does calc.py do?");
    assert_eq!(t.steps[2].user, "Now make it subtract.");
    assert_eq!(t.steps[2].summary(), "Now make it subtract.");
    assert_eq!(t.steps[1].summary(), "It adds numbers.");
    assert_eq!(
        t.steps[1].observation, "",
        "the next prompt is no observation"
    );
    // The second answer saw both prompts.
    let seen = t.steps[3].context_messages(&t.messages);
    assert!(seen.iter().any(|m| m.content == "Now make it subtract."));
    assert_eq!(t.warnings.len(), 2, "{:?}", t.warnings);
    assert!(
        t.warnings[0].contains("p/s.jsonl:10: a user record without a message object"),
        "{:?}",
        t.warnings
    );
    assert_eq!(
        t.warnings[1],
        "p/s.jsonl:6: skipped 2 record(s) of unknown type `hologram`"
    );
}

#[test]
fn results_without_ids_answer_the_pending_call_and_strays_are_reported() {
    let t = load(concat!(
        r#"{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"tool_use","name":"bash","input":{"command":"ls"}}]}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","content":"a.txt"}]}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_nowhere","content":"?"}]}}"#,
        "\n",
        r#"{"type":"tool_use","sessionId":"s","name":"bash","input":{"command":"cat README.md"}}"#,
        "\n",
        r##"{"type":"tool_result","sessionId":"s","name":"bash","output":"# Title"}"##,
        "\n",
    ));
    assert_eq!(t.steps.len(), 2);
    assert_eq!(t.steps[0].observation, "a.txt");
    assert_eq!(t.steps[1].action, "cat README.md");
    assert_eq!(t.steps[1].observation, "# Title");
    assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
    assert!(
        t.warnings[0].contains(":3: 1 tool result(s) answer no tool call"),
        "{:?}",
        t.warnings
    );
}

#[test]
fn sidechains_and_compaction_have_their_own_context() {
    let t = load(concat!(
        r#"{"type":"user","sessionId":"s","isSidechain":false,"message":{"role":"user","content":"Find the bug"}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","isSidechain":true,"message":{"role":"user","content":"Search for add()"}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","isSidechain":true,"message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Grep","input":{"pattern":"def add"}}]}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","isSidechain":true,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"calc.py:1"}]}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","isSidechain":false,"message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"It is in calc.py"}]}}"#,
        "\n",
        r#"{"type":"system","sessionId":"s","subtype":"compact_boundary","content":"Conversation compacted"}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","isCompactSummary":true,"message":{"role":"user","content":"Summary: bug is in calc.py"}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"Continuing."}]}}"#,
        "\n",
    ));
    let kinds: Vec<StepKind> = t.steps.iter().map(|s| s.kind).collect();
    use StepKind::{Agent, Compaction, User};
    assert_eq!(kinds, [User, Agent, Agent, Compaction, Agent]);
    let compaction = &t.steps[3];
    assert_eq!(compaction.user, "Summary: bug is in calc.py");
    assert_eq!(compaction.summary(), "Summary: bug is in calc.py");
    let steps = agent(&t);
    assert_eq!(steps[0].agent.as_deref(), Some("sidechain"));
    assert_eq!(steps[0].action, "Grep def add");
    assert_eq!(steps[0].observation, "calc.py:1");
    let side = steps[0].context_messages(&t.messages);
    assert_eq!(side.len(), 1);
    assert_eq!(side[0].content, "Search for add()");
    assert_eq!(steps[1].agent, None);
    assert_eq!(
        steps[1].context_messages(&t.messages)[0].content,
        "Find the bug"
    );
    let after = steps[2].context_messages(&t.messages);
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].content, "Summary: bug is in calc.py");
    assert!(after[0].compaction);
}

#[test]
fn old_usage_only_records_carry_cost() {
    let t = load(concat!(
        r#"{"timestamp":"2026-01-09T10:00:00.000Z","sessionId":"alpha","message":{"role":"assistant","id":"m1","model":"claude-sonnet-4-20250514","usage":{"input_tokens":100,"output_tokens":50,"cache_creation_input_tokens":25,"cache_read_input_tokens":10}},"requestId":"r1","costUSD":0.12,"version":"1.0.0"}"#,
        "\n",
        r#"{"timestamp":"2026-01-09T12:30:00.000Z","sessionId":"alpha","message":{"role":"assistant","id":"m2","model":"claude-opus-4-20250514","usage":{"input_tokens":200,"output_tokens":75}},"requestId":"r2","costUSD":0.34,"version":"1.0.0"}"#,
        "\n",
    ));
    // A file named by someone else keeps its name: eval results join on it.
    assert_eq!(t.instance_id, "s");
    assert_eq!(t.steps.len(), 2);
    let usage = t.total_usage();
    assert!((usage.cost.unwrap_or(0.0) - 0.46).abs() < 1e-9, "{usage:?}");
    assert_eq!(usage.tokens_in, Some(335));
    assert_eq!(usage.tokens_out, Some(125));
    assert_eq!(t.model.as_deref(), Some("claude-sonnet-4-20250514"));
}

const STREAM_JSON: &str = r#"{"type":"system","subtype":"init","cwd":"/r","session_id":"9f1c","tools":["Task","Bash","Edit"],"mcp_servers":[],"model":"claude-sonnet-4-5-20250929","permissionMode":"bypassPermissions","apiKeySource":"none"}
{"type":"assistant","message":{"id":"msg_a","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_task","name":"Task","input":{"description":"Find add()","prompt":"Where is add defined?","subagent_type":"Explore"}}],"usage":{"input_tokens":3,"cache_creation_input_tokens":500,"output_tokens":60}},"parent_tool_use_id":null,"session_id":"9f1c"}
{"type":"assistant","message":{"id":"msg_b","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"tool_use","id":"toolu_grep","name":"Grep","input":{"pattern":"def add"}}],"usage":{"input_tokens":9,"output_tokens":7}},"parent_tool_use_id":"toolu_task","session_id":"9f1c"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_grep","type":"tool_result","content":"calc.py:1:def add(a, b):"}]},"parent_tool_use_id":"toolu_task","session_id":"9f1c"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_task","type":"tool_result","content":[{"type":"text","text":"add() is defined in calc.py line 1"}]}]},"parent_tool_use_id":null,"session_id":"9f1c"}
{"type":"assistant","message":{"id":"msg_c","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"add() lives in calc.py."}],"usage":{"input_tokens":3,"cache_read_input_tokens":500,"output_tokens":12}},"parent_tool_use_id":null,"session_id":"9f1c"}
{"type":"result","subtype":"success","is_error":false,"duration_ms":8123,"duration_api_ms":7900,"num_turns":3,"result":"add() lives in calc.py.","session_id":"9f1c","total_cost_usd":0.0213,"usage":{"input_tokens":15,"cache_creation_input_tokens":500,"cache_read_input_tokens":500,"output_tokens":79}}
"#;

#[test]
fn stream_json_output() {
    let t = load_as("run/django__django-11133.jsonl", STREAM_JSON);
    assert_eq!(t.format_detail.as_deref(), Some("stream-json"));
    assert_eq!(t.instance_id, "django__django-11133");
    assert_eq!(t.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    assert_eq!(t.exit_status.as_deref(), Some("success"));
    assert_eq!(t.steps.len(), 3);
    assert_eq!(t.steps[0].action, "Task (Explore): Find add()");
    assert_eq!(t.steps[0].observation, "add() is defined in calc.py line 1");
    assert_eq!(t.steps[1].agent.as_deref(), Some("Explore"));
    assert_eq!(t.steps[1].observation, "calc.py:1:def add(a, b):");
    assert_eq!(t.steps[2].response, "add() lives in calc.py.");
    let usage = t.total_usage();
    assert_eq!(usage.cost, Some(0.0213));
    assert_eq!(usage.tokens_in, Some(1015));
    assert_eq!(usage.tokens_out, Some(79));
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
}

#[test]
fn web_session_loglines() {
    let text = r#"{"loglines": [
      {"type": "user", "timestamp": "2025-12-24T10:00:00.000Z", "message": {"content": "Add two numbers", "role": "user"}},
      {"type": "assistant", "timestamp": "2025-12-24T10:00:05.000Z", "message": {"role": "assistant", "content": [{"type": "text", "text": "Writing it."}, {"type": "tool_use", "id": "toolu_w", "name": "Write", "input": {"file_path": "/p/m.py", "content": "def add(a, b):\n    return a + b\n"}}]}},
      {"type": "user", "timestamp": "2025-12-24T10:00:10.000Z", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_w", "content": "File written successfully", "is_error": false}]}},
      7
    ]}"#;
    let t = load_as("t/sample_session.json", text);
    assert_eq!(t.format_detail.as_deref(), Some("web session"));
    assert_eq!(t.instance_id, "sample_session");
    assert_eq!(t.steps.len(), 2);
    assert_eq!(t.steps[0].user, "Add two numbers");
    assert_eq!(t.steps[1].action, "Write /p/m.py");
    assert_eq!(t.steps[1].observation, "File written successfully");
    assert_eq!(
        t.warnings,
        ["t/sample_session.json: logline 4: not a JSON object; skipped"]
    );
}

#[test]
fn garbage_is_an_error_naming_the_file() {
    let err = super::parse(Path::new("g.jsonl"), b"{\"type\":\nnot json\n")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.starts_with("g.jsonl:"), "{err}");
    let err = super::parse(Path::new("h.json"), b"{\"loglines\": 3}")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert_eq!(err, "h.json: `loglines` is not a list");
    assert!(super::parse(Path::new("i.json"), b"\xff\xfe garbage").is_err());
}
