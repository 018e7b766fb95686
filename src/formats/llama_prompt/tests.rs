use super::*;
use crate::model::Exactness;

fn message(role: &str, content: &str) -> String {
    format!("<|start_header_id|>{role}<|end_header_id|>\n\n{content}<|eot_id|>")
}

fn load(text: &str) -> Trajectory {
    let mut t = parse(
        Path::new("logs/astropy__astropy-12907-prompt.txt"),
        text.as_bytes(),
    )
    .unwrap()
    .remove(0);
    t.number_steps();
    t
}

#[test]
fn steps_observations_and_exact_contexts() {
    let text = format!(
        "<|begin_of_text|>{}{}{}{}{}{}<|start_header_id|>assistant<|end_header_id|>\n\n",
        message("system", "You can call tools."),
        message(
            "user",
            "<problem_statement>\nIt breaks\n</problem_statement>\nGo."
        ),
        message("assistant", "[list_files(path=\"/workspace/astropy\")]"),
        message("ipython", "Result: setup.py\nastropy/"),
        message(
            "assistant",
            "Now look.\n[view_file(path=\"/workspace/astropy/nope.py\")]"
        ),
        message(
            "tool",
            "Result: ERROR - File /workspace/astropy/nope.py does not exist"
        ),
    );
    let t = load(&text);
    assert_eq!(t.instance_id, "astropy__astropy-12907");
    assert_eq!(t.task.as_deref(), Some("It breaks"));
    assert_eq!(t.steps.len(), 2);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    let first = &t.steps[0];
    assert_eq!(first.tool.as_deref(), Some("list_files"));
    assert_eq!(first.action, "list_files(path=\"/workspace/astropy\")");
    assert_eq!(first.observation, "Result: setup.py\nastropy/");
    assert!(!first.failed);
    let second = &t.steps[1];
    assert_eq!(second.thought, "Now look.");
    assert!(second.failed);
    let ctx = second.context.as_ref().unwrap();
    assert_eq!(ctx.exactness, Exactness::Exact);
    let roles: Vec<Role> = second
        .context_messages(&t.messages)
        .iter()
        .map(|m| m.role)
        .collect();
    assert_eq!(
        roles,
        vec![Role::System, Role::User, Role::Assistant, Role::Tool]
    );
    assert_eq!(t.messages[2].tool_calls[0].name, "list_files");
    assert!(t.exit_status.is_none());
}

#[test]
fn malformed_calls_warn_and_keep_the_raw_text() {
    let text = format!(
        "{}{}{}",
        message("user", "fix"),
        message("assistant", "[edit_file(path=\"/w/a.py\", new_str=\"oops)]"),
        message("ipython", "ERROR - Could not parse tool call"),
    );
    let t = load(&text);
    assert_eq!(t.steps.len(), 1);
    let step = &t.steps[0];
    assert!(step.tool_calls.is_empty());
    assert_eq!(step.tool.as_deref(), Some("edit_file"));
    assert!(step.action.starts_with("[edit_file(path="));
    assert!(step.failed);
    assert_eq!(t.warnings.len(), 1);
    assert!(
        t.warnings[0].starts_with("step 1: could not parse tool call `[edit_file(path="),
        "{}",
        t.warnings[0]
    );
    assert!(
        t.warnings[0].contains("unterminated string"),
        "{}",
        t.warnings[0]
    );
}

#[test]
fn finish_eom_and_cut_off_endings() {
    let text = format!(
        "{}<|start_header_id|>assistant<|end_header_id|>\n\n<|python_tag|>{{\"name\": \"finish\", \"parameters\": {{}}}}<|eom_id|>{}<|start_header_id|>assistant<|end_header_id|>\n\nI was cut",
        message("user", "do it"),
        message("ipython", "Task marked as finished"),
    );
    let t = load(&text);
    assert_eq!(t.steps.len(), 2);
    assert_eq!(t.steps[0].tool.as_deref(), Some("finish"));
    assert_eq!(t.steps[0].observation, "Task marked as finished");
    assert_eq!(t.exit_status.as_deref(), Some("finished"));
    assert_eq!(t.steps[1].thought, "I was cut");
    assert!(
        t.warnings.iter().any(|w| w.contains("cut off")),
        "{:?}",
        t.warnings
    );
}

#[test]
fn odd_framing_is_reported_not_fatal() {
    let text = format!(
        "junk before{}{}<|start_header_id|>assist",
        message("narrator", "once upon a time"),
        message("assistant", "[finish()]"),
    );
    let t = load(&text);
    assert_eq!(t.steps.len(), 1);
    assert_eq!(t.messages[0].role, Role::User);
    let warnings = t.warnings.join("\n");
    assert!(warnings.contains("unknown role `narrator`"), "{warnings}");
    assert!(warnings.contains("outside any message"), "{warnings}");
    assert!(warnings.contains("header is cut off"), "{warnings}");
    assert!(parse(Path::new("p.txt"), b"no messages here").is_err());
}
