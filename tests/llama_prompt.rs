//! A raw Llama-3 prompt log of the open-source SWE-bench agent's shape (written for this
//! project: tests/fixtures/llama-prompt), read end to end through detection.

use std::path::Path;
use trajscope::formats::{Loaded, load_file};
use trajscope::model::{Exactness, Format, Role, Trajectory};

fn fixture() -> Trajectory {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/llama-prompt/tinycalc__tinycalc-7-prompt.txt");
    let mut ts = match load_file(&path) {
        Ok(Loaded::Trajectories(ts)) => ts,
        Ok(Loaded::Results(_)) => panic!("{} read as eval results", path.display()),
        Err(err) => panic!("{err}"),
    };
    assert_eq!(ts.len(), 1);
    ts.remove(0)
}

#[test]
fn the_story_of_the_fixture() {
    let t = fixture();
    assert_eq!(t.format, Format::LlamaPrompt);
    assert_eq!(t.instance_id, "tinycalc__tinycalc-7");
    assert!(
        t.task
            .as_deref()
            .unwrap()
            .starts_with("mean() crashes on an empty list")
    );
    let tools: Vec<&str> = t.steps.iter().map(|s| s.tool_name()).collect();
    assert_eq!(
        tools,
        [
            "list_files",
            "view_file",
            "view_file",
            "edit_file",
            "edit_file",
            "finish"
        ]
    );
    assert_eq!(t.exit_status.as_deref(), Some("finished"));

    // A file that does not exist: the agent's own ERROR line marks the step.
    let missing = &t.steps[1];
    assert!(missing.failed);
    assert!(
        missing
            .observation
            .contains("ERROR - File /workspace/tinycalc/tinycalc/statistics.py does not exist")
    );
    assert!(!t.steps[0].failed && !t.steps[2].failed);

    // The first edit has a raw newline inside a string: unreadable, as it was for the agent.
    let broken = &t.steps[3];
    assert!(broken.failed);
    assert!(broken.tool_calls.is_empty());
    assert!(
        broken
            .action
            .starts_with("[edit_file(path=\"/workspace/tinycalc/tinycalc/stats.py\"")
    );
    assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
    assert!(
        t.warnings[0].starts_with("step 4: could not parse tool call `[edit_file("),
        "{}",
        t.warnings[0]
    );

    // The retry parses: escapes decoded, brackets and commas inside strings kept.
    let edit = &t.steps[4];
    assert!(!edit.failed);
    assert_eq!(
        edit.tool_calls[0].argument("old_str").as_deref(),
        Some("def mean(values):\n    return total(values) / len(values)")
    );
    assert_eq!(
        edit.tool_calls[0].argument("new_str").as_deref(),
        Some(
            "def mean(values):\n    if not values:\n        raise ValueError(\"mean() of an empty list, [] or ()\")\n    return total(values) / len(values)"
        )
    );
    assert!(
        edit.action.starts_with(
            "edit_file(path=\"/workspace/tinycalc/tinycalc/stats.py\")\n--- old_str\n"
        )
    );
    assert_eq!(
        edit.thought,
        "<thinking>I forgot to close the new_str string. Trying again.</thinking>"
    );
}

#[test]
fn contexts_are_the_exact_prompt_before_each_answer() {
    let t = fixture();
    for (k, step) in t.steps.iter().enumerate() {
        let context = step.context.as_ref().unwrap();
        assert_eq!(context.exactness, Exactness::Exact);
        let messages = step.context_messages(&t.messages);
        // system, user, then an (assistant, tool) pair per earlier step.
        assert_eq!(messages.len(), 2 + 2 * k);
        assert_eq!(messages[0].role, Role::System);
        assert_eq!(
            messages.last().unwrap().role,
            if k == 0 { Role::User } else { Role::Tool }
        );
    }
    // The trailing open `assistant` header (the model's turn) is not a step.
    assert_eq!(t.messages.len(), 14);
}
