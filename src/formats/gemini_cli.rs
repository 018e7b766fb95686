//! Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-*.json`), read as written by
//! gemini-cli's `ChatRecordingService` (0.1x–0.40): one JSON document
//! `{sessionId, projectHash, startTime, lastUpdated, messages: […]}`, or its JSON Lines
//! variant (a first line with the session fields, then one message per line, `{"$set": …}`
//! lines updating the session fields, and a message re-written under the same `id` when it
//! changes, the last version winning).
//!
//! A `user` message is a user turn; a `gemini` message is one model step: its `thoughts`
//! (subject and description), its `content`, its `toolCalls` with their `args` and the
//! `result` each carries inline (`functionResponse.response.output` or `.error`, and the
//! call's `status`), its `tokens` and `model`. `info`, `warning` and `error` messages are what
//! the CLI told the user: errors mark the step before them as failed.

use super::LoadError;
use super::json::{content_text, each_json_line, str_field, u64_field};
use super::tool_steps::{CallOutput, StepBuilder, generic_action};
use super::turns::Session;
use crate::model::{ToolCall, Trajectory, Usage};
use serde_json::Value;
use std::path::Path;

mod messages;

pub use messages::Messages;

/// Whether a session document's top-level keys are Gemini CLI's.
pub fn is_session_document(has: &dyn Fn(&str) -> bool) -> bool {
    has("messages") && has("sessionId") && (has("projectHash") || has("startTime"))
}

/// Whether the first records of a JSON Lines file are a Gemini CLI session.
pub fn is_session_lines(lines: &[Value]) -> bool {
    let Some(first) = lines.first() else {
        return false;
    };
    let header = first.get("sessionId").is_some()
        && first.get("projectHash").is_some()
        && first.get("messages").is_none();
    header
        || lines.iter().take(4).all(|l| {
            l.get("$set").is_some()
                || (l.get("id").is_some()
                    && matches!(str_field(l, "type"), Some("user" | "gemini"))
                    && l.get("content").is_some()
                    && l.get("message").is_none())
        })
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    if super::detect::is_json_lines(bytes) {
        let mut messages = Messages::new(path, true);
        each_json_line(path, bytes, |line| messages.read_line(line));
        return messages.finish();
    }
    let mut doc: Value =
        serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
    let items = match doc.get_mut("messages") {
        Some(Value::Array(items)) => std::mem::take(items),
        _ => Vec::new(),
    };
    let mut messages = Messages::new(path, false);
    messages.document(doc)?;
    for item in &items {
        messages.item(item);
    }
    messages.finish()
}

pub(super) fn read_message(session: &mut Session, message: &Value) {
    let timestamp = str_field(message, "timestamp").map(String::from);
    let text = content_text(message.get("content").unwrap_or(&Value::Null));
    match str_field(message, "type").unwrap_or("") {
        "user" => session.user(&text, timestamp),
        "gemini" => read_model_turn(session, message, &text, timestamp),
        kind @ ("error" | "warning" | "info") => match session.steps.last_step(None) {
            Some(step) if kind == "error" => session.step_error(step, text),
            _ => session
                .steps
                .warn(format!("gemini-cli {kind}: {}", first_line(&text))),
        },
        other => session
            .steps
            .warn(format!("message of unknown type `{other}` skipped")),
    }
}

fn read_model_turn(session: &mut Session, message: &Value, text: &str, ts: Option<String>) {
    let b = &mut session.steps;
    let step = b.start_step(None, str_field(message, "id"), ts);
    if let Some(Value::Array(thoughts)) = message.get("thoughts") {
        for thought in thoughts {
            let subject = str_field(thought, "subject").unwrap_or("");
            let description = str_field(thought, "description").unwrap_or("");
            let joined = match (subject.is_empty(), description.is_empty()) {
                (false, false) => format!("**{subject}** {description}"),
                (false, true) => subject.to_string(),
                _ => description.to_string(),
            };
            b.add_thought(step, &joined);
        }
    }
    b.add_text(step, text);
    if let Some(model) = str_field(message, "model") {
        b.trajectory.model = Some(model.to_string());
    }
    let usage = message.get("tokens").map(tokens).unwrap_or_default();
    b.merge_usage(
        step,
        Usage {
            api_calls: Some(1),
            ..usage
        },
    );
    let Some(Value::Array(calls)) = message.get("toolCalls") else {
        return;
    };
    for call in calls {
        let name = str_field(call, "name").unwrap_or("tool").to_string();
        let args = call.get("args").map(Value::to_string).unwrap_or_default();
        let action = match call.get("args").and_then(|a| a.get("command")) {
            Some(Value::String(command)) => command.clone(),
            _ => generic_action(&name, &args),
        };
        let id = str_field(call, "id").map(String::from);
        let tool_call = ToolCall {
            id: id.clone(),
            name,
            arguments: args,
        };
        if !b.add_call(step, tool_call, action, true) {
            continue;
        }
        let status = str_field(call, "status").unwrap_or("");
        let Some(result) = call.get("result").filter(|r| !r.is_null()) else {
            if status == "cancelled" || status == "error" {
                let at = last_call(b, step);
                b.add_result(
                    at,
                    CallOutput {
                        text: format!("[{status}]"),
                        failed: true,
                        ..CallOutput::default()
                    },
                );
            }
            continue;
        };
        let (output, error) = result_text(result);
        let at = last_call(b, step);
        let failed = error || matches!(status, "error" | "cancelled");
        let exit_code = shell_exit_code(&output);
        b.add_result(
            at,
            CallOutput {
                text: output,
                failed,
                exit_code,
                ..CallOutput::default()
            },
        );
    }
}

/// Where the call just added to `step` sits.
fn last_call(b: &mut StepBuilder, step: usize) -> (usize, usize) {
    let calls = b.step_mut(step).map_or(0, |s| s.tool_calls.len());
    (step, calls.saturating_sub(1))
}

/// The text the model got back for a call: each `functionResponse`'s `output` (or `error`,
/// which marks the call failed), other parts as text.
fn result_text(result: &Value) -> (String, bool) {
    let parts: Vec<&Value> = match result {
        Value::Array(parts) => parts.iter().collect(),
        other => vec![other],
    };
    let mut texts = Vec::new();
    let mut error = false;
    for part in parts {
        let response = part.get("functionResponse").and_then(|f| f.get("response"));
        match response {
            Some(response) => {
                if let Some(e) = response.get("error") {
                    error = true;
                    texts.push(super::json::to_text(e));
                } else if let Some(o) = response.get("output") {
                    texts.push(super::json::to_text(o));
                } else {
                    texts.push(response.to_string());
                }
            }
            None => texts.push(content_text(part)),
        }
    }
    (texts.join("\n"), error)
}

/// `tokens`: `input` is the whole prompt (cached included), `output` the candidates; the
/// thoughts' tokens are output the model produced, so they count as output too.
fn tokens(value: &Value) -> Usage {
    let output = u64_field(value, "output");
    let thoughts = u64_field(value, "thoughts").unwrap_or(0);
    Usage {
        tokens_in: u64_field(value, "input"),
        tokens_out: output.map(|o| o + thoughts),
        ..Usage::default()
    }
}

/// The `Exit Code: N` line `run_shell_command` ends its output with.
fn shell_exit_code(output: &str) -> Option<i64> {
    output
        .lines()
        .rev()
        .take(6)
        .find_map(|l| l.strip_prefix("Exit Code: "))
        .and_then(|code| code.trim().parse().ok())
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

#[cfg(test)]
mod tests;
