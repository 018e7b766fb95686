//! Cursor agent transcripts (`~/.cursor/projects/<project>/agent-transcripts/*.jsonl`), read
//! as the Cursor agent (IDE 2.x and `cursor-agent` CLI, 2025–2026) writes them: one
//! `{role, message: {content: [blocks]}}` per line, Anthropic-style blocks (`text`,
//! `thinking`, `tool_use` with `name` and `input`, `tool_result` with `tool_use_id`), and
//! `{"type": "turn_ended", "status": …}` lines closing a turn.
//!
//! A `user` line's text is a user turn (the `<user_query>` the IDE wraps it in is unwrapped;
//! its `tool_result` blocks answer calls); an `assistant` line is model output that joins the
//! current step until a user line or a turn's end. Transcripts record no model, usage or
//! timestamps.

use super::LoadError;
use super::json::{JsonLine, content_text, each_json_line, json_line, str_field};
use super::read_count::ReadCount;
use super::tool_steps::{CallOutput, call_action};
use super::turns::Session;
use crate::model::{Format, Step, ToolCall, Trajectory};
use serde_json::Value;
use std::path::Path;

/// Whether the first records of a JSON Lines file are a Cursor agent transcript.
pub fn is_transcript_lines(lines: &[Value]) -> bool {
    let mut rows = lines
        .iter()
        .filter(|l| str_field(l, "type") != Some("turn_ended"));
    rows.next().is_some_and(is_row) && rows.take(3).all(is_row)
}

fn is_row(line: &Value) -> bool {
    matches!(str_field(line, "role"), Some("user" | "assistant"))
        && line
            .get("message")
            .is_some_and(|m| m.get("content").is_some())
        && line.get("content").is_none()
        && line.get("type").is_none()
        && line.get("uuid").is_none()
        && line.get("sessionId").is_none()
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let mut lines = Lines::new(path);
    each_json_line(path, bytes, |line| lines.read(line));
    lines.finish()
}

/// A transcript read one line at a time, by the whole read ([`parse`]) and by the bounded
/// read ([`super::stream`]), which cuts the lines as they come and lets the steps go as they
/// finish ([`Lines::releasing`]): both give the same steps, warnings and header. A tool
/// result logged more than 512 steps after its call is lost to the bounded read
/// ([`super::tool_steps`] gives up waiting then).
pub struct Lines<'a> {
    path: &'a Path,
    session: Session,
    /// The model step assistant lines join, until a user line or the turn's end.
    step: Option<usize>,
    count: ReadCount,
}

impl<'a> Lines<'a> {
    pub fn new(path: &'a Path) -> Lines<'a> {
        Lines {
            path,
            session: Session::new(Trajectory::new(path, Format::Cursor)),
            step: None,
            count: ReadCount::default(),
        }
    }

    /// Lines whose steps are let go as they finish ([`Lines::take_released`]); the message
    /// pool is kept only if `keep_pool`.
    pub fn releasing(path: &'a Path, keep_pool: bool) -> Lines<'a> {
        let mut lines = Lines::new(path);
        lines.session.release_steps(keep_pool);
        lines
    }

    /// Line `line_no` (1-based) of the file; `is_last` when nothing follows it.
    pub fn line(&mut self, line_no: usize, bytes: &[u8], is_last: bool) {
        self.read(json_line(self.path, line_no, bytes, is_last));
    }

    fn read(&mut self, line: Result<JsonLine, String>) {
        match self.count.line(line) {
            Ok(line) => self.record(&line),
            Err(warning) => self.session.steps.warn(warning),
        }
    }

    fn record(&mut self, line: &JsonLine) {
        let record = &line.value;
        let session = &mut self.session;
        if str_field(record, "type") == Some("turn_ended") {
            session.steps.close(None);
            self.step = None;
            if let Some(status) = str_field(record, "status") {
                session.steps.trajectory.exit_status = Some(status.to_string());
            }
            return;
        }
        let content = record
            .get("message")
            .and_then(|m| m.get("content"))
            .unwrap_or(&Value::Null);
        let blocks: Vec<&Value> = match content {
            Value::Array(blocks) => blocks.iter().collect(),
            other => vec![other],
        };
        match str_field(record, "role") {
            Some("user") => {
                self.step = None;
                user_line(session, &blocks);
            }
            Some("assistant") => {
                let at = match self.step {
                    Some(at) => at,
                    None => session.steps.start_step(None, None, None),
                };
                self.step = Some(at);
                assistant_line(session, at, &blocks);
            }
            other => session.steps.warn(format!(
                "{}:{}: line with role {:?} skipped",
                self.path.display(),
                line.line,
                other.unwrap_or("")
            )),
        }
    }

    /// The steps let go since the last call (none unless [`Lines::releasing`]).
    pub fn take_released(&mut self) -> Vec<Step> {
        self.session.take_released()
    }

    /// The kept pool's messages that nothing later changes, taken from its front (none
    /// unless the pool is kept while steps are let go).
    pub fn take_settled(&mut self) -> Vec<crate::model::Message> {
        self.session.steps.take_settled()
    }

    /// The trajectory, with the steps not let go; an error when no line was readable.
    pub fn finish(self) -> Result<Vec<Trajectory>, LoadError> {
        self.count.none_read(self.path, "Cursor transcript lines")?;
        Ok(vec![self.session.finish()])
    }
}

fn user_line(session: &mut Session, blocks: &[&Value]) {
    let mut texts = Vec::new();
    for block in blocks {
        if str_field(block, "type") == Some("tool_result") {
            let b = &mut session.steps;
            let id = str_field(block, "tool_use_id").unwrap_or("");
            let outcome = CallOutput {
                text: block.get("content").map(content_text).unwrap_or_default(),
                failed: block.get("is_error").and_then(Value::as_bool) == Some(true),
                ..CallOutput::default()
            };
            match b.call_at(id).or_else(|| b.pending_call(None)) {
                Some(at) => b.add_result(at, outcome),
                None => b.orphan_result(None, Some(id), outcome.text),
            }
        } else {
            texts.push(content_text(block));
        }
    }
    let text = texts.join("\n");
    session.user(unwrap_query(&text), None);
}

fn assistant_line(session: &mut Session, step: usize, blocks: &[&Value]) {
    let b = &mut session.steps;
    for block in blocks {
        match str_field(block, "type").unwrap_or("") {
            "thinking" | "reasoning" | "redacted_thinking" => {
                b.add_thought(step, &content_text(block));
            }
            "tool_use" | "tool_call" => {
                let name = str_field(block, "name").unwrap_or("tool").to_string();
                let arguments = block
                    .get("input")
                    .or_else(|| block.get("arguments"))
                    .map(|v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .unwrap_or_default();
                let call = ToolCall {
                    id: str_field(block, "id").map(String::from),
                    name,
                    arguments,
                };
                let action = call_action(&call);
                b.add_call(step, call, action, true);
            }
            _ => b.add_text(step, &content_text(block)),
        }
    }
}

/// The query the user typed, when the IDE wrapped it in `<user_query>` among attachments.
fn unwrap_query(text: &str) -> &str {
    let open = "<user_query>";
    match (text.find(open), text.find("</user_query>")) {
        (Some(start), Some(end)) if end > start + open.len() => {
            text[start + open.len()..end].trim()
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests;
