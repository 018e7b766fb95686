use super::*;
use crate::formats::{Kind, detect};

#[test]
fn lines_become_turns_steps_and_results() {
    let text = concat!(
        r#"{"role":"user","message":{"content":[{"type":"text","text":"<attached_files>a.py</attached_files>\n<user_query>\nFix 7 / 2\n</user_query>"}]}}"#,
        "\n",
        r#"{"role":"assistant","message":{"content":[{"type":"thinking","thinking":"Check the code."},{"type":"text","text":"Reading."},{"type":"tool_use","id":"t1","name":"Shell","input":{"command":"cat calc.py"}}]}}"#,
        "\n",
        r#"{"role":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"value // right"}]}}"#,
        "\n",
        r#"{"role":"assistant","message":{"content":[{"type":"text","text":"Found it."}]}}"#,
        "\n",
        r#"{"type":"turn_ended","status":"success"}"#,
        "\n",
    );
    let path = Path::new("0b9e.jsonl");
    assert_eq!(
        detect(path, text.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::Cursor))
    );
    let t = parse(path, text.as_bytes()).unwrap().remove(0);
    assert_eq!(t.steps.len(), 3, "{:?}", t.steps);
    assert_eq!(t.steps[0].user, "Fix 7 / 2");
    let s = &t.steps[1];
    assert_eq!(s.thought, "Check the code.\n\nReading.");
    assert_eq!(
        (s.action.as_str(), s.observation.as_str()),
        ("cat calc.py", "value // right")
    );
    assert_eq!(t.steps[2].response, "Found it.");
    assert_eq!(t.exit_status.as_deref(), Some("success"));
}

#[test]
fn chat_messages_and_claude_lines_are_not_cursor() {
    let chat =
        "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"yo\"}\n";
    assert_eq!(
        detect(Path::new("c.jsonl"), chat.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::ChatMessages))
    );
    let claude = "{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n{\"type\":\"assistant\",\"message\":{\"content\":[]}}\n";
    assert_eq!(
        detect(Path::new("c.jsonl"), claude.as_bytes()).ok(),
        Some(Kind::Trajectories(Format::ClaudeCode))
    );
}

#[test]
fn a_file_of_only_bad_lines_is_an_error_naming_the_file_and_the_first_bad_line() {
    // Not JSON, cut inside a line, torn at the end: no record at all.
    let text = "not json\n[1,\n{\"role\":";
    let err = parse(Path::new("x.jsonl"), text.as_bytes()).unwrap_err();
    let err = err.to_string();
    assert!(
        err.starts_with("x.jsonl: no readable Cursor transcript lines (x.jsonl:1:"),
        "{err}"
    );
}
