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
use super::json::{content_text, str_field};
use super::tool_steps::{CallOutput, call_action};
use super::turns::{Session, session_lines};
use crate::model::{Format, ToolCall, Trajectory};
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
    let (lines, warnings) = session_lines(path, bytes, "Cursor transcript lines")?;
    let mut session = Session::new(Trajectory::new(path, Format::Cursor));
    for warning in warnings {
        session.steps.warn(warning);
    }
    let mut step: Option<usize> = None;
    for line in &lines {
        let record = &line.value;
        if str_field(record, "type") == Some("turn_ended") {
            session.steps.close(None);
            step = None;
            if let Some(status) = str_field(record, "status") {
                session.steps.trajectory.exit_status = Some(status.to_string());
            }
            continue;
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
                step = None;
                user_line(&mut session, &blocks);
            }
            Some("assistant") => {
                let at = match step {
                    Some(at) => at,
                    None => session.steps.start_step(None, None, None),
                };
                step = Some(at);
                assistant_line(&mut session, at, &blocks);
            }
            other => session.steps.warn(format!(
                "{}:{}: line with role {:?} skipped",
                path.display(),
                line.line,
                other.unwrap_or("")
            )),
        }
    }
    Ok(vec![session.finish()])
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
