//! How an OpenHands action reads in a step list: the command, the code, the edit.
//!
//! Pure rendering of one action's arguments (and the model's tool call, which for editor
//! actions says more than the action: `command`, `file_text`). Knows nothing of steps.

use super::event::RawEvent;
use crate::formats::json::to_text;
use crate::model::ToolCall;
use serde_json::{Map, Value};

/// Arguments OpenHands adds for its own bookkeeping: noise in a rendered action.
const INTERNAL_ARGS: &[&str] = &[
    "thought",
    "impl_source",
    "translated_ipython_code",
    "confirmation_state",
    "security_risk",
    "blocking",
    "hidden",
    "is_static",
    "is_input",
    "cwd",
    "include_extra",
    "kernel_init_code",
    "wait_for_response",
    "image_urls",
    "start",
    "end",
];

/// The action as a human reads it. `call` is the model's tool call behind it, if logged.
pub fn render(event: &RawEvent, kind: &str, call: Option<&ToolCall>) -> String {
    match kind {
        "run" => event.arg_text("command"),
        "run_ipython" => event.arg_text("code"),
        "browse" => event.arg_text("url"),
        "browse_interactive" => event.arg_text("browser_actions"),
        "read" | "write" | "edit" => editor(event, kind, call),
        "finish" => finish(event),
        "think" | "message" => String::new(),
        "delegate" => format!(
            "{} {}",
            event.arg_text("agent"),
            event.args.get("inputs").map(to_text).unwrap_or_default()
        )
        .trim()
        .to_string(),
        _ => match call {
            Some(call) => call.arguments.clone(),
            None => public_args(&event.args)
                .map(|a| a.to_string())
                .unwrap_or_default(),
        },
    }
}

/// The action's arguments without OpenHands' bookkeeping, as JSON: the tool call
/// arguments of a reconstructed assistant message when the model response is not logged.
pub fn public_args(args: &Value) -> Option<Value> {
    let map = args.as_object()?;
    let kept: Map<String, Value> = map
        .iter()
        .filter(|(k, v)| !INTERNAL_ARGS.contains(&k.as_str()) && !v.is_null())
        .filter(|(_, v)| v.as_str() != Some(""))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Some(Value::Object(kept))
}

/// `str_replace /path` followed by the strings involved. The model's call is read first:
/// OpenHands' own `edit` args leave `command` and `file_text` out in some versions.
fn editor(event: &RawEvent, kind: &str, call: Option<&ToolCall>) -> String {
    let from_call = call.and_then(ToolCall::arguments_json);
    let get = |key: &str| -> Option<String> {
        let value = from_call
            .as_ref()
            .and_then(|a| a.get(key))
            .filter(|v| !v.is_null())
            .or_else(|| event.args.get(key).filter(|v| !v.is_null()))?;
        let text = to_text(value);
        (!text.is_empty()).then_some(text)
    };
    let command = get("command").unwrap_or_else(|| {
        match kind {
            "read" => "view",
            "write" => "create",
            _ => "edit",
        }
        .to_string()
    });
    let mut out = format!("{command} {}", get("path").unwrap_or_default());
    for key in ["view_range", "insert_line"] {
        if let Some(value) = get(key) {
            out.push_str(&format!(" {key}={value}"));
        }
    }
    for key in ["old_str", "new_str", "file_text", "content"] {
        if let Some(value) = get(key) {
            out.push_str(&format!("\n{key}:\n{value}"));
        }
    }
    out.trim_end().to_string()
}

/// Whether the agent thought it completed the task, and its closing words.
fn finish(event: &RawEvent) -> String {
    let mut out = String::new();
    if let Some(done) = event.args.get("task_completed").filter(|v| !v.is_null()) {
        out.push_str(&format!("task_completed: {}\n", to_text(done)));
    }
    let words = event
        .arg("final_thought")
        .filter(|t| !t.is_empty())
        .or_else(|| event.arg("message"))
        .unwrap_or("");
    out.push_str(words);
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(value: Value) -> RawEvent {
        serde_json::from_str(&value.to_string()).unwrap()
    }

    #[test]
    fn commands_and_code_as_they_are() {
        let e = event(json!({"action": "run", "args": {"command": "ls -la", "thought": "t"}}));
        assert_eq!(render(&e, "run", None), "ls -la");
        let e = event(json!({"action": "run_ipython", "args": {"code": "print(1)"}}));
        assert_eq!(render(&e, "run_ipython", None), "print(1)");
    }

    #[test]
    fn editor_prefers_the_models_call() {
        let e = event(
            json!({"action": "edit", "args": {"path": "/w/a.py", "content": "", "start": 1}}),
        );
        let call = ToolCall::new(
            "str_replace_editor",
            r#"{"command": "create", "path": "/w/a.py", "file_text": "x = 1\n"}"#,
        );
        assert_eq!(
            render(&e, "edit", Some(&call)),
            "create /w/a.py\nfile_text:\nx = 1"
        );
        let e = event(
            json!({"action": "edit", "args": {"path": "/w/a.py", "command": "str_replace", "old_str": "a", "new_str": "b"}}),
        );
        assert_eq!(
            render(&e, "edit", None),
            "str_replace /w/a.py\nold_str:\na\nnew_str:\nb"
        );
        let e = event(json!({"action": "read", "args": {"path": "/w", "view_range": [1, 5]}}));
        assert_eq!(render(&e, "read", None), "view /w view_range=[1,5]");
    }

    #[test]
    fn finish_says_whether_the_task_was_completed() {
        let e = event(
            json!({"action": "finish", "args": {"final_thought": "Could not build.", "task_completed": "partial"}}),
        );
        assert_eq!(
            render(&e, "finish", None),
            "task_completed: partial\nCould not build."
        );
    }

    #[test]
    fn unknown_actions_show_their_public_arguments() {
        let e = event(
            json!({"action": "call_tool_mcp", "args": {"name": "fetch", "arguments": {"url": "u"}, "thought": "t", "hidden": false}}),
        );
        assert_eq!(
            render(&e, "call_tool_mcp", None),
            r#"{"arguments":{"url":"u"},"name":"fetch"}"#
        );
    }
}
