//! How Codex tool calls read (the shell command, the patched files) and what their outputs
//! say (text, exit code, wall time), across the shapes CLI versions have written.

use crate::formats::json::{as_f64, content_text, str_field, to_text};
use crate::formats::tool_steps::{CallOutput, generic_action};
use serde_json::Value;

/// One line per call, or the full command / patch when it spans several.
pub fn render(name: &str, arguments: &str) -> String {
    let args: Option<Value> = serde_json::from_str(arguments).ok();
    let arg = |key: &str| args.as_ref().and_then(|a| a.get(key));
    let rendered = match name {
        "shell" | "container.exec" | "local_shell" => arg("command").and_then(command_line),
        "shell_command" => arg("command").and_then(command_line),
        "exec_command" => arg("cmd").or_else(|| arg("command")).and_then(command_line),
        "apply_patch" => Some(patch_action(
            arg("input")
                .and_then(Value::as_str)
                .or_else(|| args.is_none().then_some(arguments))
                .unwrap_or(arguments),
        )),
        "web_search" => arg("query")
            .and_then(Value::as_str)
            .map(|q| format!("web_search {q}")),
        _ => None,
    };
    rendered.unwrap_or_else(|| generic_action(name, arguments))
}

/// A command given as a string, or as argv: `["bash", "-lc", "script"]` reads as the script.
fn command_line(command: &Value) -> Option<String> {
    if let Some(s) = command.as_str() {
        return Some(s.to_string());
    }
    let argv: Vec<&str> = command
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if let ["apply_patch", patch] = argv.as_slice() {
        return Some(patch_action(patch));
    }
    let shell = argv.first().map(|a| a.rsplit('/').next().unwrap_or(a));
    if argv.len() == 3
        && matches!(shell, Some("bash" | "sh" | "zsh"))
        && matches!(argv[1], "-c" | "-lc")
    {
        return Some(argv[2].to_string());
    }
    (!argv.is_empty()).then(|| argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" "))
}

fn quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// `apply_patch a.py, b.py` then the patch itself.
fn patch_action(patch: &str) -> String {
    let files: Vec<&str> = patch
        .lines()
        .filter_map(|l| {
            ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
                .iter()
                .find_map(|p| l.strip_prefix(p))
        })
        .map(str::trim)
        .collect();
    format!("apply_patch {}\n{}", files.join(", "), patch.trim_end())
}

/// A tool output as logged: a JSON string `{output, metadata: {exit_code,
/// duration_seconds}}`, plain text with `Exit code:` / `Wall time:` headers, content items,
/// or an object.
pub fn output_outcome(raw: &Value) -> CallOutput {
    match raw {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(wrapped) if wrapped.get("output").is_some() => {
                let metadata = wrapped.get("metadata").unwrap_or(&Value::Null);
                let text = to_text(wrapped.get("output").unwrap_or(&Value::Null));
                CallOutput {
                    exit_code: metadata
                        .get("exit_code")
                        .and_then(Value::as_i64)
                        .or_else(|| exit_code_in(&text)),
                    duration_s: metadata.get("duration_seconds").and_then(as_f64),
                    text,
                    ..CallOutput::default()
                }
            }
            _ => CallOutput {
                exit_code: exit_code_in(s),
                duration_s: wall_time(s),
                text: s.clone(),
                ..CallOutput::default()
            },
        },
        Value::Object(map) if map.contains_key("stdout") || map.contains_key("stderr") => {
            let text = [str_field(raw, "stdout"), str_field(raw, "stderr")]
                .into_iter()
                .flatten()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            CallOutput {
                exit_code: ["exitCode", "exit_code"]
                    .iter()
                    .find_map(|k| raw.get(*k).and_then(Value::as_i64)),
                text,
                ..CallOutput::default()
            }
        }
        other => {
            let text = content_text(other);
            CallOutput {
                failed: other.get("success").and_then(Value::as_bool) == Some(false),
                exit_code: exit_code_in(&text),
                text,
                ..CallOutput::default()
            }
        }
    }
}

/// The exit code that shell tools print in their output's first lines.
pub fn exit_code_in(text: &str) -> Option<i64> {
    text.lines().take(6).find_map(|line| {
        let rest = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "))?;
        rest.trim().parse().ok()
    })
}

fn wall_time(text: &str) -> Option<f64> {
    text.lines().take(6).find_map(|line| {
        let rest = line.strip_prefix("Wall time: ")?;
        rest.trim_end_matches("seconds").trim().parse().ok()
    })
}

/// `{secs, nanos}` (Rust `Duration`) or seconds.
pub fn duration_of(value: &Value) -> Option<f64> {
    match value {
        Value::Object(_) => {
            let secs = value.get("secs").and_then(Value::as_f64)?;
            let nanos = value.get("nanos").and_then(Value::as_f64).unwrap_or(0.0);
            Some(secs + nanos / 1e9)
        }
        other => as_f64(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shell_calls_read_as_commands() {
        assert_eq!(
            render(
                "shell",
                r#"{"command":["bash","-lc","ls -la src"],"workdir":"/r"}"#
            ),
            "ls -la src"
        );
        assert_eq!(
            render("shell", r#"{"command":["rg","-n","fn main","src"]}"#),
            "rg -n 'fn main' src"
        );
        assert_eq!(
            render("shell_command", r#"{"command":"cargo test"}"#),
            "cargo test"
        );
        assert_eq!(
            render("exec_command", r#"{"cmd":"pytest -q"}"#),
            "pytest -q"
        );
        assert_eq!(
            render("update_plan", r#"{"plan":[]}"#),
            r#"update_plan {"plan":[]}"#
        );
    }

    #[test]
    fn patches_name_their_files() {
        let patch = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** Add File: b.py\n+z\n*** End Patch";
        let action = render("apply_patch", patch);
        assert!(
            action.starts_with("apply_patch src/a.py, b.py\n*** Begin Patch"),
            "{action}"
        );
        let wrapped = json!({"input": patch}).to_string();
        assert_eq!(render("apply_patch", &wrapped), action);
    }

    #[test]
    fn outputs_in_every_shape() {
        let o = output_outcome(&json!(
            "{\"output\":\"a\\nb\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.5}}"
        ));
        assert_eq!(
            (o.text.as_str(), o.exit_code, o.duration_s),
            ("a\nb\n", Some(1), Some(0.5))
        );
        let o = output_outcome(&json!(
            "Exit code: 2\nWall time: 1.5 seconds\nOutput:\nboom"
        ));
        assert_eq!((o.exit_code, o.duration_s), (Some(2), Some(1.5)));
        let o = output_outcome(&json!(
            "Chunk ID: 7\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nok"
        ));
        assert_eq!(o.exit_code, Some(0));
        let o = output_outcome(&json!([{"type": "input_text", "text": "a.txt\n"}]));
        assert_eq!(o.text, "a.txt\n");
        let o = output_outcome(&json!({"stdout": "x", "stderr": "", "exitCode": 3}));
        assert_eq!((o.text.as_str(), o.exit_code), ("x", Some(3)));
        let o = output_outcome(&json!({"content": "denied", "success": false}));
        assert!(o.failed);
        assert_eq!(o.text, "denied");
        assert_eq!(
            duration_of(&json!({"secs": 2, "nanos": 500000000})),
            Some(2.5)
        );
    }
}
