//! How a Claude Code tool call reads in a step list: the command, the file, the pattern.

use crate::formats::json::str_field;
use crate::formats::tool_steps::generic_action;
use serde_json::Value;

/// One line (or, for a multi-line shell command, the command) describing a call.
pub fn render(name: &str, input: &Value) -> String {
    let arg = |key: &str| str_field(input, key).filter(|s| !s.is_empty());
    let rendered = match name {
        "Bash" | "bash" | "BashOutput" => arg("command").map(String::from),
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "NotebookRead" | "LS" => {
            arg("file_path")
                .or_else(|| arg("notebook_path"))
                .or_else(|| arg("path"))
                .map(|path| format!("{name} {path}"))
        }
        "Glob" | "Grep" => arg("pattern").map(|pattern| match arg("path") {
            Some(path) => format!("{name} {pattern} in {path}"),
            None => format!("{name} {pattern}"),
        }),
        "WebFetch" => arg("url").map(|url| format!("WebFetch {url}")),
        "WebSearch" => arg("query").map(|query| format!("WebSearch {query}")),
        "Task" | "Agent" => arg("description").map(|d| match arg("subagent_type") {
            Some(kind) => format!("{name} ({kind}): {d}"),
            None => format!("{name}: {d}"),
        }),
        "TodoWrite" => input
            .get("todos")
            .and_then(Value::as_array)
            .map(|todos| format!("TodoWrite ({} items)", todos.len())),
        _ => None,
    };
    rendered.unwrap_or_else(|| match input {
        Value::Null => name.to_string(),
        other => generic_action(name, &other.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_read_like_what_they_do() {
        assert_eq!(
            render(
                "Bash",
                &json!({"command": "pytest -x", "description": "run"})
            ),
            "pytest -x"
        );
        assert_eq!(
            render("Edit", &json!({"file_path": "/p/a.py", "old_string": "a"})),
            "Edit /p/a.py"
        );
        assert_eq!(
            render("Grep", &json!({"pattern": "def f", "path": "/p"})),
            "Grep def f in /p"
        );
        assert_eq!(
            render(
                "Task",
                &json!({"description": "find tests", "subagent_type": "Explore"})
            ),
            "Task (Explore): find tests"
        );
        assert_eq!(
            render("TodoWrite", &json!({"todos": [1, 2]})),
            "TodoWrite (2 items)"
        );
        assert_eq!(render("Custom", &json!({"x": 1})), r#"Custom {"x":1}"#);
        assert_eq!(render("Bash", &json!({})), "Bash");
    }
}
