//! Hugging Face agent traces in the Hub's Session Trace Simple Format (STS-Format, as the Hub
//! documents it in `docs/hub/session-traces-format`, 2026): a JSONL file whose first line is
//! `{"type": "session", "harness", "id", "name"}` and every other line a message envelope
//! `{"type": "message", "message": {role, content, reasoningContent, toolCalls, toolCallId,
//! timestamp, model}}`.
//!
//! A `user` message is a user turn; an `assistant` message one model step (its
//! `reasoningContent` the thought, `toolCalls` `[{id, function: {name, arguments}}]` its
//! calls); a `tool` message answers the call named by `toolCallId`; `system` is context.
//! Timestamps are epoch milliseconds. The format records no usage.

use super::LoadError;
use super::json::{content_text, json_lines, str_field};
use super::tool_steps::{CallOutput, call_action};
use super::turns::{Session, iso_from_millis, name_after_session};
use crate::model::{Format, Message, ToolCall, Trajectory};
use serde_json::Value;
use std::path::Path;

/// Whether the first records of a JSON Lines file are an STS-Format trace.
pub fn is_trace_lines(lines: &[Value]) -> bool {
    lines.first().is_some_and(|l| {
        str_field(l, "type") == Some("session")
            && l.get("harness").is_some()
            && l.get("id").is_some()
    }) && lines.iter().skip(1).take(3).all(|l| {
        str_field(l, "type") == Some("message") && l.get("message").is_some_and(Value::is_object)
    })
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let (lines, warnings) = json_lines(path, bytes);
    let Some(header) = lines
        .first()
        .filter(|l| str_field(&l.value, "type") == Some("session"))
    else {
        return Err(LoadError::invalid(
            path,
            "not a session trace: the first line is not a `session` header",
        ));
    };
    let mut session = Session::new(Trajectory::new(path, Format::HfTrace));
    for warning in warnings {
        session.steps.warn(warning);
    }
    let h = &header.value;
    session.steps.trajectory.agent = str_field(h, "harness").map(String::from);
    if let Some(id) = str_field(h, "id") {
        name_after_session(&mut session.steps.trajectory, id);
    }
    for line in &lines[1..] {
        let Some(m) = line
            .value
            .get("message")
            .filter(|_| str_field(&line.value, "type") == Some("message"))
        else {
            session.steps.warn(format!(
                "{}:{}: a line that is not a message envelope; skipped",
                path.display(),
                line.line
            ));
            continue;
        };
        let time = m
            .get("timestamp")
            .and_then(Value::as_i64)
            .and_then(iso_from_millis);
        let text = m.get("content").map(content_text).unwrap_or_default();
        let b = &mut session.steps;
        match str_field(m, "role").unwrap_or("") {
            "user" => session.user(&text, time),
            "system" => {
                b.push_message(None, Message::system(text));
            }
            "assistant" => {
                let at = b.start_step(None, None, time);
                if let Some(model) = str_field(m, "model") {
                    b.trajectory.model = Some(model.to_string());
                }
                if let Some(reasoning) = m.get("reasoningContent") {
                    b.add_thought(at, &content_text(reasoning));
                }
                b.add_text(at, &text);
                if let Some(Value::Array(calls)) = m.get("toolCalls") {
                    for c in calls {
                        let function = c.get("function").unwrap_or(c);
                        let arguments = match function.get("arguments") {
                            Some(Value::String(s)) => s.clone(),
                            Some(Value::Null) | None => String::new(),
                            Some(other) => other.to_string(),
                        };
                        let call = ToolCall {
                            id: str_field(c, "id").map(String::from),
                            name: str_field(function, "name").unwrap_or("tool").to_string(),
                            arguments,
                        };
                        let action = call_action(&call);
                        b.add_call(at, call, action, true);
                    }
                }
            }
            "tool" => {
                let id = str_field(m, "toolCallId").unwrap_or("");
                let outcome = CallOutput {
                    text,
                    ..CallOutput::default()
                };
                match b.call_at(id).or_else(|| b.pending_call(None)) {
                    Some(at) => b.add_result(at, outcome),
                    None => b.orphan_result(None, Some(id), outcome.text),
                }
            }
            other => b.warn(format!(
                "{}:{}: message with role {other:?} skipped",
                path.display(),
                line.line
            )),
        }
    }
    Ok(vec![session.finish()])
}

#[cfg(test)]
mod tests;
