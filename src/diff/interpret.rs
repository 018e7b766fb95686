//! From a step to the file edits it asked for: one interpreter per edit syntax, chosen by
//! the step's tool calls or its text action, and whether the observation says the tool
//! refused the edit.

mod apply_patch;
mod pythonic;
mod shell;
mod swe_agent;
mod tools;

use super::edit::{Attempt, Edit, EditOp};
use crate::model::{Step, ToolCall};
use serde_json::Value;

/// What a step's action means for files.
#[derive(Debug, Clone, Default)]
pub struct Intent {
    pub attempts: Vec<Attempt>,
    /// The shell command the step ran, for reading views out of its output.
    pub command: Option<String>,
    /// The action displayed a whole file (`str_replace_editor view` without a range).
    pub whole_view: bool,
    /// The tool refused the edits: why, as the observation says it.
    pub rejected: Option<String>,
    /// The edits may not have run (the command failed): why.
    pub maybe_not_run: Option<String>,
}

/// Tools whose call runs a command line (its `command` or `cmd` argument).
pub(super) const SHELL_TOOLS: &[&str] = &[
    "bash",
    "execute_bash",
    "shell",
    "Bash",
    "exec_command",
    "local_shell",
    "run",
    "run_command",
    "execute_command",
    "terminal",
];

/// Reads the step's action.
pub fn interpret(step: &Step) -> Intent {
    let mut intent = Intent::default();
    if step.tool_calls.is_empty() {
        let action = step.action.as_str();
        if let Some(attempts) = swe_agent::interpret(action) {
            intent.attempts = attempts;
        } else if action.contains("edit_file(") {
            for (name, args) in pythonic::calls(action, &["edit_file"]) {
                match args {
                    Some(args) => intent.attempts.extend(tools::interpret_call(&name, &args)),
                    None => intent.attempts.push(Err(super::edit::Uninterpreted::new(
                        name,
                        None,
                        "the call's arguments do not parse",
                    ))),
                }
            }
        } else if !action.trim().is_empty() {
            intent.attempts = shell::interpret(action);
            intent.command = Some(action.to_string());
        }
    } else {
        let single = step.tool_calls.len() == 1;
        for call in &step.tool_calls {
            if SHELL_TOOLS.contains(&call.name.as_str()) {
                let Some(command) = shell_command(&call.arguments) else {
                    continue;
                };
                if command.trim_start().starts_with("apply_patch") {
                    intent.attempts.extend(apply_patch::interpret(&command));
                } else {
                    intent.attempts.extend(shell::interpret(&command));
                }
                if single {
                    intent.command = Some(command);
                }
                continue;
            }
            let mut attempts = tools::interpret_call(&call.name, &call.arguments);
            if single && matches!(call.name.as_str(), "Edit" | "MultiEdit" | "Write") {
                use_structured_patch(&mut attempts, step, call);
            }
            intent.attempts.extend(attempts);
            if single {
                let args = call.arguments_json().unwrap_or(Value::Null);
                intent.whole_view = args.get("command").and_then(Value::as_str) == Some("view")
                    && args.get("view_range").is_none_or(Value::is_null);
            }
        }
    }
    if !intent.attempts.is_empty() {
        intent.rejected = rejection(step);
        if intent.rejected.is_none() && (step.failed || step.exit_code.is_some_and(|c| c != 0)) {
            intent.maybe_not_run = Some(match step.exit_code {
                Some(code) => {
                    format!("the command failed (exit {code}); its edits may not have run")
                }
                None => "the step failed; its edits may not have run".into(),
            });
        }
    }
    intent
}

/// The command of a shell tool call: `{"command": "…"}` or `{"command": ["bash", "-lc", "…"]}`.
fn shell_command(arguments: &str) -> Option<String> {
    let args: Value = serde_json::from_str(arguments).ok()?;
    match args.get("command").or(args.get("cmd"))? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let parts: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            match parts.as_slice() {
                ["apply_patch", patch] => Some(format!("apply_patch\n{patch}")),
                [shell, flag, script] if shell.ends_with("sh") && flag.starts_with('-') => {
                    Some(script.to_string())
                }
                _ => Some(parts.join(" ")),
            }
        }
        _ => None,
    }
}

/// Claude Code's result carries the exact hunks (`structuredPatch`): the loader keeps the
/// tool's result data beside the step (`Step::tool_results`, matched by call id); older
/// exports put the result JSON in the observation itself.
fn use_structured_patch(attempts: &mut [Attempt], step: &Step, call: &ToolCall) {
    let from_results = step
        .tool_results
        .iter()
        .filter(|r| match (&r.call_id, &call.id) {
            (Some(a), Some(b)) => a == b,
            _ => r.tool == call.name,
        })
        .find_map(|r| {
            r.data
                .get("structuredPatch")
                .and_then(tools::structured_patch)
        });
    let from_observation = || {
        serde_json::from_str::<Value>(step.observation.trim())
            .ok()?
            .get("structuredPatch")
            .and_then(tools::structured_patch)
    };
    let Some(hunks) = from_results.or_else(from_observation) else {
        return;
    };
    if let [Ok(edit)] = attempts {
        edit.op = EditOp::Hunks(hunks);
    } else if let Some(Ok(first)) = attempts.first() {
        let path = first.path.clone();
        let label = first.label.clone();
        attempts[0] = Ok(Edit::new(path, EditOp::Hunks(hunks), label));
    }
}

/// Phrases with which editing tools say they did not change the file.
const REFUSALS: &[&str] = &[
    "Your proposed edit has introduced new syntax error",
    "Your changes have NOT been applied",
    "No replacement was performed",
    "did not appear verbatim",
    "Multiple occurrences of old_str",
    "<tool_use_error>",
    "String to replace not found",
    "Found multiple matches",
    "already exists. Cannot overwrite",
    "Invalid `path` parameter",
    "Invalid `insert_line` parameter",
    "Usage: edit",
    "No changes made to",
];

fn rejection(step: &Step) -> Option<String> {
    let obs = step
        .observation
        .get(..step.observation.len().min(4096))
        .unwrap_or(&step.observation);
    let first_line = obs.trim_start().lines().next().unwrap_or("");
    if let Some(refusal) = REFUSALS.iter().find(|r| obs.contains(**r)) {
        return Some(format!(
            "the tool refused it: {}",
            refusal.trim_start_matches('<').trim_end_matches('>')
        ));
    }
    if first_line.starts_with("Error: File") && first_line.contains("already exists")
        || first_line.starts_with("ERROR:")
    {
        return Some(format!("the tool refused it: {first_line}"));
    }
    None
}

/// Python-syntax calls (`edit_file(path=…)`) in a text, as (name, JSON arguments).
pub fn pythonic_calls(text: &str, names: &[&str]) -> Vec<(String, Option<String>)> {
    pythonic::calls(text, names)
}

/// Script files a command line runs (`python fix.py`): (interpreter, path).
pub fn scripts_run(command: &str) -> Vec<(String, String)> {
    shell::scripts_run(command)
}

/// The opaque edits of a script's code when it writes files.
pub fn script_writes(code: &str, interpreter: &str) -> Vec<Attempt> {
    shell::script_writes(code, interpreter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolResult;
    use serde_json::json;

    #[test]
    fn claude_edit_uses_the_structured_patch_kept_beside_the_step() {
        let mut call = ToolCall::new(
            "Edit",
            r#"{"file_path":"/p/a.py","old_string":"x = 1","new_string":"x = 2"}"#,
        );
        call.id = Some("toolu_1".into());
        let step = Step {
            tool_calls: vec![call],
            observation: "The file /p/a.py has been updated.".into(),
            tool_results: vec![ToolResult {
                call_id: Some("toolu_1".into()),
                tool: "Edit".into(),
                data: json!({"filePath": "/p/a.py", "structuredPatch": [
                    {"oldStart": 7, "oldLines": 1, "newStart": 7, "newLines": 1, "lines": ["-x = 1", "+x = 2"]}
                ]}),
            }],
            ..Step::default()
        };
        let intent = interpret(&step);
        let [Ok(edit)] = intent.attempts.as_slice() else {
            panic!("one edit: {:?}", intent.attempts);
        };
        assert!(matches!(edit.op, EditOp::Hunks(_)), "{:?}", edit.op);

        let without = Step {
            tool_results: Vec::new(),
            ..step
        };
        let intent = interpret(&without);
        let [Ok(edit)] = intent.attempts.as_slice() else {
            panic!("one edit");
        };
        assert!(
            matches!(edit.op, EditOp::ReplaceText { .. }),
            "{:?}",
            edit.op
        );
    }
}
