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
use super::json::{JsonLine, content_text, each_json_line, json_line, str_field};
use super::tool_steps::{CallOutput, call_action};
use super::turns::{Session, iso_from_millis, name_after_session};
use crate::model::{Format, Message, Step, ToolCall, Trajectory};
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
    let mut messages = Messages::new(path);
    each_json_line(path, bytes, |line: Result<JsonLine, String>| {
        messages.read(line)
    });
    messages.finish()
}

/// A trace being read one line at a time, in file order: what the whole read ([`parse`])
/// feeds every line to, and what the bounded read ([`crate::formats::stream`]) feeds as it
/// cuts a big file's lines, its steps then let go as they finish ([`Messages::releasing`]).
pub struct Messages<'a> {
    path: &'a Path,
    session: Session,
    /// Whether the first readable line was read: `Some(false)` when it was not a `session`
    /// header (then nothing more is read, and the trace is refused).
    header: Option<bool>,
}

impl<'a> Messages<'a> {
    pub fn new(path: &'a Path) -> Messages<'a> {
        Messages {
            path,
            session: Session::new(Trajectory::new(path, Format::HfTrace)),
            header: None,
        }
    }

    /// A reader that lets steps go as they finish ([`Messages::take_released`]); the message
    /// pool is kept only if `keep_pool` (the lazy open, whose steps show their contexts).
    pub fn releasing(path: &'a Path, keep_pool: bool) -> Messages<'a> {
        let mut messages = Messages::new(path);
        messages.session.release_steps(keep_pool);
        messages
    }

    /// Line `line_no` (1-based) of the file; `is_last` when nothing follows it.
    pub fn line(&mut self, line_no: usize, bytes: &[u8], is_last: bool) {
        self.read(json_line(self.path, line_no, bytes, is_last));
    }

    fn read(&mut self, line: Result<JsonLine, String>) {
        match (line, self.header) {
            (_, Some(false)) => {}
            (Err(warning), _) => self.session.steps.warn(warning),
            (Ok(line), None) => self.session_header(&line.value),
            (Ok(line), Some(true)) => self.message(line.line, &line.value),
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
        if self.header != Some(true) {
            return Err(LoadError::invalid(
                self.path,
                "not a session trace: the first line is not a `session` header",
            ));
        }
        Ok(vec![self.session.finish()])
    }

    fn session_header(&mut self, h: &Value) {
        let is_session = str_field(h, "type") == Some("session");
        self.header = Some(is_session);
        if !is_session {
            return;
        }
        let trajectory = &mut self.session.steps.trajectory;
        trajectory.agent = str_field(h, "harness").map(String::from);
        if let Some(id) = str_field(h, "id") {
            name_after_session(trajectory, id);
        }
    }

    fn message(&mut self, line: usize, envelope: &Value) {
        let path = self.path;
        let session = &mut self.session;
        let Some(m) = envelope
            .get("message")
            .filter(|_| str_field(envelope, "type") == Some("message"))
        else {
            session.steps.warn(format!(
                "{}:{line}: a line that is not a message envelope; skipped",
                path.display(),
            ));
            return;
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
                line
            )),
        }
    }
}

#[cfg(test)]
mod tests;
