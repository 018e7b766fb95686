//! Factory Droid headless runs (`droid exec --output-format stream-json`), read as the droid
//! CLI (0.x, 2025–2026) prints them: one event per line, `{"type": …, "session_id": …}`.
//!
//! `system` / `init` names the model and session; `message` lines carry a `role` and `text`
//! (`user`: a user turn; `assistant`: model output, which joins the current step until a
//! tool result or a user turn); `tool_call` (`toolName`, `parameters`, linked by `toolId`)
//! and `tool_result` (`value`, `isError`) are a step's calls and what came back; `error` is a
//! failure of the run; `completion` ends it with `finalText`, `numTurns`, `durationMs` and the
//! run's token `usage` (the only usage droid reports: a run total, not per step).

use super::LoadError;
use super::json::{content_text, str_field, u64_field};
use super::tool_steps::{CallOutput, call_action};
use super::turns::{Session, iso_from_millis, name_after_session, session_lines};
use crate::model::{Format, ToolCall, Trajectory, Usage};
use serde_json::Value;
use std::path::Path;

/// Whether the first records of a JSON Lines file are a droid stream.
pub fn is_stream_lines(lines: &[Value]) -> bool {
    lines.iter().take(8).any(|l| match str_field(l, "type") {
        Some("message") => {
            l.get("role").is_some() && l.get("text").is_some() && l.get("content").is_none()
        }
        Some("tool_call") => l.get("toolName").is_some(),
        Some("completion") => l.get("finalText").is_some(),
        _ => false,
    })
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let (lines, warnings) = session_lines(path, bytes, "droid stream-json events")?;
    let mut session = Session::new(Trajectory::new(path, Format::Droid));
    for warning in warnings {
        session.steps.warn(warning);
    }
    let mut step: Option<usize> = None;
    let mut answered = false;
    let mut session_id = None;
    for line in &lines {
        let e = &line.value;
        if session_id.is_none() {
            session_id = str_field(e, "session_id").map(String::from);
        }
        let time = e.get("timestamp").and_then(|t| {
            t.as_i64()
                .and_then(iso_from_millis)
                .or_else(|| t.as_str().map(String::from))
        });
        let b = &mut session.steps;
        match str_field(e, "type").unwrap_or("") {
            "system" => {
                if let Some(model) = str_field(e, "model") {
                    b.trajectory.model = Some(model.to_string());
                }
            }
            "message" => {
                let text = e.get("text").map(content_text).unwrap_or_default();
                if str_field(e, "role") == Some("user") {
                    step = None;
                    session.user(&text, time);
                } else {
                    let at = match step {
                        Some(at) if !answered => at,
                        _ => b.start_step(None, str_field(e, "id"), time),
                    };
                    step = Some(at);
                    answered = false;
                    b.add_text(at, &text);
                }
            }
            "reasoning" | "thinking" => {
                let at = match step {
                    Some(at) if !answered => at,
                    _ => b.start_step(None, None, time),
                };
                step = Some(at);
                answered = false;
                let text = e.get("text").map(content_text).unwrap_or_default();
                b.add_thought(at, &text);
            }
            "tool_call" => {
                let at = match step {
                    Some(at) if !answered => at,
                    _ => b.start_step(None, str_field(e, "messageId"), time),
                };
                step = Some(at);
                let arguments = e
                    .get("parameters")
                    .map(Value::to_string)
                    .unwrap_or_default();
                let call = ToolCall {
                    id: str_field(e, "toolId")
                        .or_else(|| str_field(e, "id"))
                        .map(String::from),
                    name: str_field(e, "toolName").unwrap_or("tool").to_string(),
                    arguments,
                };
                let action = call_action(&call);
                b.add_call(at, call, action, true);
            }
            "tool_result" => {
                let id = str_field(e, "toolId")
                    .or_else(|| str_field(e, "id"))
                    .unwrap_or("");
                let outcome = CallOutput {
                    text: e.get("value").map(content_text).unwrap_or_default(),
                    failed: e.get("isError").and_then(Value::as_bool) == Some(true),
                    ..CallOutput::default()
                };
                match b.call_at(id).or_else(|| b.pending_call(None)) {
                    Some(at) => {
                        b.add_result(at, outcome);
                        answered = true;
                    }
                    None => b.orphan_result(None, Some(id), outcome.text),
                }
            }
            "error" => {
                let message = str_field(e, "message").unwrap_or("error").to_string();
                b.trajectory.exit_status = Some("error".into());
                match step {
                    Some(at) => session.step_error(at, message),
                    None => b.warn(format!("{}:{}: {message}", path.display(), line.line)),
                }
            }
            "completion" => {
                let usage = e.get("usage");
                let field = |k: &str| usage.and_then(|u| u64_field(u, k));
                // Saturating: counts come from the file.
                let cached = field("cache_read_input_tokens")
                    .unwrap_or(0)
                    .saturating_add(field("cache_creation_input_tokens").unwrap_or(0));
                b.trajectory.usage = Usage {
                    tokens_in: field("input_tokens").map(|i| i.saturating_add(cached)),
                    tokens_out: field("output_tokens"),
                    api_calls: None,
                    tokens_cached: None,
                    tokens_reasoning: None,
                    cost: None,
                };
                if b.trajectory.exit_status.is_none() {
                    b.trajectory.exit_status = Some("completed".into());
                }
                // The final answer is usually the last message already; keep it when not.
                if let Some(text) = str_field(e, "finalText") {
                    let shown = b
                        .trajectory
                        .steps
                        .iter()
                        .any(|s| s.response.contains(text.trim()));
                    if !shown && !text.trim().is_empty() {
                        let at = b.start_step(None, None, time);
                        b.add_text(at, text);
                    }
                }
                step = None;
            }
            _ => {}
        }
    }
    if let Some(id) = session_id {
        name_after_session(&mut session.steps.trajectory, &id);
    }
    Ok(vec![session.finish()])
}

#[cfg(test)]
mod tests;
