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
use super::json::{JsonLine, content_text, each_json_line, json_line, str_field, u64_field};
use super::read_count::ReadCount;
use super::tool_steps::{CallOutput, call_action};
use super::turns::{Session, iso_from_millis, name_after_session};
use crate::model::{Format, Step, ToolCall, Trajectory, Usage};
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
    let mut events = Events::new(path);
    each_json_line(path, bytes, |line: Result<JsonLine, String>| {
        events.read(line)
    });
    events.finish()
}

/// A droid stream being read one event at a time, in file order: what the whole read
/// ([`parse`]) feeds every line to, and what the bounded read ([`crate::formats::stream`])
/// feeds as it cuts a big file's lines, its steps then let go as they finish
/// ([`Events::releasing`]). What the bounded read may leave out: a `completion`'s final
/// text is added as a step unless a step shows it; a step let go already is not looked at.
pub struct Events<'a> {
    path: &'a Path,
    session: Session,
    /// The model step output joins, until a tool result or a user turn.
    step: Option<usize>,
    answered: bool,
    session_id: Option<String>,
    count: ReadCount,
}

impl<'a> Events<'a> {
    pub fn new(path: &'a Path) -> Events<'a> {
        Events {
            path,
            session: Session::new(Trajectory::new(path, Format::Droid)),
            step: None,
            answered: false,
            session_id: None,
            count: ReadCount::default(),
        }
    }

    /// A reader that lets steps go as they finish ([`Events::take_released`]); the message
    /// pool is kept only if `keep_pool` (the lazy open, whose steps show their contexts).
    pub fn releasing(path: &'a Path, keep_pool: bool) -> Events<'a> {
        let mut events = Events::new(path);
        events.session.release_steps(keep_pool);
        events
    }

    /// Line `line_no` (1-based) of the file; `is_last` when nothing follows it.
    pub fn line(&mut self, line_no: usize, bytes: &[u8], is_last: bool) {
        self.read(json_line(self.path, line_no, bytes, is_last));
    }

    fn read(&mut self, line: Result<JsonLine, String>) {
        match self.count.line(line) {
            Ok(line) => self.event(line.line, &line.value),
            Err(warning) => self.session.steps.warn(warning),
        }
    }

    /// The steps finished since the last call (user turns among them), in order.
    pub fn take_released(&mut self) -> Vec<Step> {
        self.session.take_released()
    }

    /// The kept pool's messages that nothing later changes, taken from its front (none
    /// unless the pool is kept while steps are let go).
    pub fn take_settled(&mut self) -> Vec<crate::model::Message> {
        self.session.steps.take_settled()
    }

    pub fn finish(self) -> Result<Vec<Trajectory>, LoadError> {
        self.count
            .none_read(self.path, "droid stream-json events")?;
        let mut trajectory = self.session.finish();
        if let Some(id) = self.session_id {
            name_after_session(&mut trajectory, &id);
        }
        Ok(vec![trajectory])
    }

    /// The current step, or a new one when there is none or its calls were answered.
    fn current(&mut self, key: Option<&str>, time: Option<String>) -> usize {
        match self.step {
            Some(at) if !self.answered => at,
            _ => self.session.steps.start_step(None, key, time),
        }
    }

    fn event(&mut self, line: usize, e: &Value) {
        let path = self.path;
        if self.session_id.is_none() {
            self.session_id = str_field(e, "session_id").map(String::from);
        }
        let time = e.get("timestamp").and_then(|t| {
            t.as_i64()
                .and_then(iso_from_millis)
                .or_else(|| t.as_str().map(String::from))
        });
        match str_field(e, "type").unwrap_or("") {
            "system" => {
                if let Some(model) = str_field(e, "model") {
                    self.session.steps.trajectory.model = Some(model.to_string());
                }
            }
            "message" => {
                let text = e.get("text").map(content_text).unwrap_or_default();
                if str_field(e, "role") == Some("user") {
                    self.step = None;
                    self.session.user(&text, time);
                } else {
                    let at = self.current(str_field(e, "id"), time);
                    self.step = Some(at);
                    self.answered = false;
                    self.session.steps.add_text(at, &text);
                }
            }
            "reasoning" | "thinking" => {
                let at = self.current(None, time);
                self.step = Some(at);
                self.answered = false;
                let text = e.get("text").map(content_text).unwrap_or_default();
                self.session.steps.add_thought(at, &text);
            }
            "tool_call" => {
                let at = self.current(str_field(e, "messageId"), time);
                self.step = Some(at);
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
                self.session.steps.add_call(at, call, action, true);
            }
            "tool_result" => {
                let b = &mut self.session.steps;
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
                        self.answered = true;
                    }
                    None => b.orphan_result(None, Some(id), outcome.text),
                }
            }
            "error" => {
                let message = str_field(e, "message").unwrap_or("error").to_string();
                self.session.steps.trajectory.exit_status = Some("error".into());
                match self.step {
                    Some(at) => self.session.step_error(at, message),
                    None => self
                        .session
                        .steps
                        .warn(format!("{}:{line}: {message}", path.display())),
                }
            }
            "completion" => self.completion(e, time),
            _ => {}
        }
    }

    /// The run's end: its usage, its status, and its final answer when no step shows it.
    fn completion(&mut self, e: &Value, time: Option<String>) {
        let b = &mut self.session.steps;
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
        self.step = None;
    }
}

#[cfg(test)]
mod tests;
