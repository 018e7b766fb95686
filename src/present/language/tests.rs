//! The guesses the TUI and the exports relied on when each had its own guesser; where they
//! disagreed, the comment says which one stands.

use super::*;
use crate::model::ToolCall;

fn step(tool: Option<&str>, action: &str) -> Step {
    Step {
        tool: tool.map(String::from),
        action: action.into(),
        ..Step::default()
    }
}

fn action(tool: Option<&str>, text: &str) -> Language {
    of_action(&step(tool, text), text, None)
}

fn observed(tool: &str, command: &str, observation: &str) -> Language {
    let step = Step {
        observation: observation.into(),
        ..step(Some(tool), command)
    };
    of_observation(&step, observation)
}

#[test]
fn actions_by_tool_and_shape() {
    assert_eq!(action(Some("bash"), "ls -la").label(), "shell");
    assert_eq!(action(Some("bash"), "ls -la").tag(), "bash");
    let json = r#"{"command": "view", "path": "/x.py"}"#;
    assert_eq!(action(Some("str_replace_editor"), json).label(), "json");
    assert_eq!(action(None, "{\"command\": \"ls\"}").tag(), "json");
    assert_eq!(
        action(Some("execute_ipython_cell"), "x=1").label(),
        "python"
    );
    assert_eq!(action(Some("python"), "python reproduce.py").tag(), "bash");
    assert_eq!(
        action(Some("python"), "import os\nprint(os.getcwd())").tag(),
        "python"
    );
    let diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b";
    assert_eq!(action(Some("submit"), diff), Language::Diff);
    assert_eq!(
        action(None, "diff --git a/x b/x\n--- a/x\n+++ b/x"),
        Language::Diff
    );
}

#[test]
fn an_edit_takes_the_edited_files_language() {
    let edit = step(Some("edit"), "edit 3:4\n    return x\nend_of_edit");
    assert_eq!(
        of_action(&edit, &edit.action, Some("a/b.py")).tag(),
        "python"
    );
    assert_eq!(of_action(&edit, &edit.action, Some("README")).tag(), "bash");
}

#[test]
fn a_generic_tool_call_is_not_shell() {
    // The exports' guess stands: `Read {"file_path": …}` is no shell command line.
    let mut call = step(Some("Read"), "Read {\"file_path\": \"/x\"}");
    call.tool_calls
        .push(ToolCall::new("Read", "{\"file_path\": \"/x\"}"));
    assert_eq!(of_action(&call, &call.action, None), Language::Plain);
    assert_eq!(of_action(&call, &call.action, None).tag(), "text");
}

#[test]
fn observations_by_what_they_show() {
    let tb = "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: no";
    assert_eq!(observed("python", "python x.py", tb), Language::Traceback);
    // An export writes a traceback as text.
    assert_eq!(observed("python", "python x.py", tb).tag(), "text");
    let open = "[File: /repo/src/app.py (120 lines total)]\n1:import os\n2:import sys\n";
    assert_eq!(
        observed("open", "open src/app.py", open),
        Language::Code {
            extension: "py".into(),
            numbered: true
        }
    );
    assert_eq!(observed("open", "open src/app.py", open).tag(), "text");
    let cat = "     1  fn main() {\n     2  }\n";
    assert_eq!(
        observed("cat", "cat -n src/main.rs", cat),
        Language::Code {
            extension: "rs".into(),
            numbered: true
        }
    );
    assert_eq!(
        observed("cat", "cat src/main.rs", "fn main() {}\n").tag(),
        "rust"
    );
    assert_eq!(observed("ls", "ls", "a.py\nb.py"), Language::Plain);
    assert_eq!(observed("x", "x", "{\"a\": 1}").label(), "json");
    assert_eq!(observed("x", "x", "[1, 2, {\"a\": null}]").tag(), "json");
    assert_eq!(observed("x", "x", "{not json}").tag(), "text");
    assert_eq!(
        observed("git", "git diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@"),
        Language::Diff
    );
    assert_eq!(observed("x", "x", "").tag(), "text");
}

#[test]
fn paths_by_extension() {
    assert_eq!(Language::of_path("src/x.rs").tag(), "rust");
    assert_eq!(Language::of_path("setup.PY").tag(), "python");
    assert_eq!(Language::of_path("Makefile"), Language::Plain);
    assert_eq!(Language::of_path("fix.patch"), Language::Diff);
    assert_eq!(Language::code("go").tag(), "go");
}

#[test]
fn line_number_prefixes() {
    assert_eq!(number_prefix("46:    def f():"), 3);
    assert_eq!(number_prefix("     1  import os"), 8);
    assert_eq!(number_prefix("1 2 3"), 0);
    assert_eq!(number_prefix("import os"), 0);
}
