//! GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`), read as the
//! CLI writes them (events of copilot-agent 0.0.3xx–1.0.x): one event per line, an envelope
//! `{type, data, id, timestamp, parentId}`.
//!
//! `user.message` is a user turn; `system.message` the system prompt. A model step starts at
//! `assistant.turn_start` or at the first `assistant.reasoning` / `assistant.message` after a
//! tool result; `assistant.message` brings its `content` and `toolRequests` (name, arguments,
//! call id), `assistant.reasoning` the reasoning text, `assistant.usage` the call's tokens
//! (and `outputTokens` on the message when no usage event follows). `tool.execution_complete`
//! answers a call by `toolCallId` (`result.content`, `success`, `error`). `session.error` marks
//! the current step failed; `session.start` and `session.model_change` name the model.

use super::LoadError;
use super::json::{JsonLine, content_text, each_json_line, json_line, str_field, u64_field};
use super::read_count::ReadCount;
use super::tool_steps::{CallOutput, generic_action};
use super::turns::{Session, name_after_session};
use crate::model::{Format, Message, Step, ToolCall, Trajectory, Usage};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Whether the first records of a JSON Lines file are Copilot CLI events.
pub fn is_event_lines(lines: &[Value]) -> bool {
    lines.iter().take(4).any(|l| {
        let kind = str_field(l, "type").unwrap_or("");
        l.get("data").is_some_and(Value::is_object)
            && l.get("parentId").is_some()
            && l.get("id").is_some()
            && (kind.starts_with("session.")
                || kind.starts_with("user.")
                || kind.starts_with("assistant.")
                || kind.starts_with("tool.")
                || kind.starts_with("hook.")
                || kind.starts_with("system."))
    })
}

/// Events that hold nothing a step shows (docs/other-cli-agents.md lists them): not warned
/// about. Any other unknown type is named in a warning.
const NOT_SHOWN: &[&str] = &[
    "session.info",
    "session.usage_checkpoint",
    "session.auto_mode_resolved",
    "session.truncation",
    "session.compaction_start",
    "session.compaction_complete",
    "session.resume",
    "hook.start",
    "hook.end",
    "tool.execution_start",
    "tool.execution_partial_result",
    "tool.user_requested",
    "assistant.message_delta",
    "assistant.reasoning_delta",
    "assistant.intent",
    "abort",
    "subagent.started",
    "subagent.completed",
    "subagent.selected",
    "system.notification",
];

/// The agent of events a sub-agent (a `task` tool call) wrote: they carry `parentToolCallId`.
const SUBAGENT: &str = "subagent";

struct Reader<'a> {
    path: &'a Path,
    session: Session,
    /// Per agent (the main one, or sub-agents): the current model step, open until a user
    /// turn or the turn's end, and whether a tool result came in since it started (then the
    /// next model output is the model's next call).
    current: HashMap<Option<&'static str>, (usize, bool)>,
    session_id: Option<String>,
    ignored: BTreeMap<String, usize>,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let mut lines = Lines::new(path);
    each_json_line(path, bytes, |line| lines.read(line));
    lines.finish()
}

/// A session's events read one line at a time, by the whole read ([`parse`]) and by the
/// bounded read ([`super::stream`]), which cuts the lines as they come and lets the steps go
/// as they finish ([`Lines::releasing`]): both give the same steps, warnings and header. A
/// tool result logged more than 512 steps after its call, or a `session.error` for a step
/// already let go, is lost to the bounded read.
pub struct Lines<'a> {
    reader: Reader<'a>,
    count: ReadCount,
}

impl<'a> Lines<'a> {
    pub fn new(path: &'a Path) -> Lines<'a> {
        Lines {
            reader: Reader {
                path,
                session: Session::new(Trajectory::new(path, Format::CopilotCli)),
                current: HashMap::new(),
                session_id: None,
                ignored: BTreeMap::new(),
            },
            count: ReadCount::default(),
        }
    }

    /// Lines whose steps are let go as they finish ([`Lines::take_released`]); the message
    /// pool is kept only if `keep_pool`.
    pub fn releasing(path: &'a Path, keep_pool: bool) -> Lines<'a> {
        let mut lines = Lines::new(path);
        lines.reader.session.release_steps(keep_pool);
        lines
    }

    /// Line `line_no` (1-based) of the file; `is_last` when nothing follows it.
    pub fn line(&mut self, line_no: usize, bytes: &[u8], is_last: bool) {
        self.read(json_line(self.reader.path, line_no, bytes, is_last));
    }

    fn read(&mut self, line: Result<JsonLine, String>) {
        match self.count.line(line) {
            Ok(line) => self.reader.event(&line),
            Err(warning) => self.reader.session.steps.warn(warning),
        }
    }

    /// The steps let go since the last call (none unless [`Lines::releasing`]).
    pub fn take_released(&mut self) -> Vec<Step> {
        self.reader.session.take_released()
    }

    /// The kept pool's messages that nothing later changes, taken from its front (none
    /// unless the pool is kept while steps are let go).
    pub fn take_settled(&mut self) -> Vec<crate::model::Message> {
        self.reader.session.steps.take_settled()
    }

    /// The trajectory, with the steps not let go; an error when no line was readable.
    pub fn finish(self) -> Result<Vec<Trajectory>, LoadError> {
        self.count
            .none_read(self.reader.path, "Copilot CLI events")?;
        Ok(vec![self.reader.finish()])
    }
}

impl Reader<'_> {
    fn event(&mut self, line: &JsonLine) {
        let record = &line.value;
        let kind = str_field(record, "type").unwrap_or("");
        let data = record.get("data").unwrap_or(&Value::Null);
        let timestamp = str_field(record, "timestamp").map(String::from);
        let agent = data.get("parentToolCallId").map(|_| SUBAGENT);
        let b = &mut self.session.steps;
        match kind {
            "session.start" => {
                if self.session_id.is_none() {
                    self.session_id = str_field(data, "sessionId").map(String::from);
                }
                if let Some(model) = str_field(data, "selectedModel") {
                    b.trajectory.model = Some(model.to_string());
                }
                if let Some(version) = str_field(data, "copilotVersion") {
                    b.trajectory.format_detail = Some(format!("copilot {version}"));
                }
            }
            "session.model_change" => {
                if let Some(model) = str_field(data, "newModel") {
                    b.trajectory.model = Some(model.to_string());
                }
            }
            "system.message" => {
                b.push_message(None, Message::system(text_of(data, "content")));
            }
            "user.message" => {
                self.current.clear();
                let text = text_of(data, "content");
                self.session.user(&text, timestamp);
            }
            "assistant.turn_start" => {
                self.new_step(agent, timestamp);
                self.set_model(data);
            }
            "assistant.reasoning" => {
                let step = self.current_step(agent, timestamp);
                let text = text_of(data, "content");
                self.session.steps.add_thought(step, &text);
            }
            "assistant.message" => self.message(agent, data, timestamp),
            // Usage reports the call behind the latest model output, wherever the CLI logs
            // it (before or after the call's tool results).
            "assistant.usage" => {
                let latest = self.current.get(&agent).map(|c| c.0);
                let step = match latest.or_else(|| b.last_step(agent)) {
                    Some(step) => step,
                    None => self.new_step(agent, timestamp),
                };
                self.set_model(data);
                // Saturating: counts come from the file (an absurd one overflowed OpenCode's sum).
                let cached = u64_field(data, "cacheReadTokens")
                    .unwrap_or(0)
                    .saturating_add(u64_field(data, "cacheWriteTokens").unwrap_or(0));
                let usage = Usage {
                    tokens_in: u64_field(data, "inputTokens").map(|i| i.saturating_add(cached)),
                    tokens_out: u64_field(data, "outputTokens"),
                    cost: super::json::f64_field(data, "cost"),
                    api_calls: Some(1),
                    tokens_cached: None,
                    tokens_reasoning: None,
                };
                self.session.steps.merge_usage(step, usage);
            }
            "tool.execution_complete" => self.tool_result(agent, line.line, data),
            "assistant.turn_end" => {
                self.session.steps.close(agent);
                self.current.remove(&agent);
            }
            "session.error" => {
                let message = str_field(data, "message").unwrap_or("error");
                let text = match str_field(data, "errorType") {
                    Some(kind) => format!("[{kind} error] {message}"),
                    None => message.to_string(),
                };
                let current = self.current.get(&None).map(|c| c.0);
                match current.or_else(|| b.last_step(None)) {
                    Some(step) => self.session.step_error(step, text),
                    None => b.warn(format!("{}: {text}", self.path.display())),
                }
            }
            "session.shutdown" => {
                if let Some(kind) = str_field(data, "shutdownType") {
                    b.trajectory.exit_status = Some(kind.to_string());
                }
            }
            "" => b.warn(format!(
                "{}:{}: event without a type skipped",
                self.path.display(),
                line.line
            )),
            other if NOT_SHOWN.contains(&other) => {}
            other => *self.ignored.entry(other.to_string()).or_default() += 1,
        }
    }

    fn new_step(&mut self, agent: Option<&'static str>, timestamp: Option<String>) -> usize {
        let step = self.session.steps.start_step(agent, None, timestamp);
        self.current.insert(agent, (step, false));
        step
    }

    /// The step model output joins: the current one, unless tool results came in since.
    fn current_step(&mut self, agent: Option<&'static str>, timestamp: Option<String>) -> usize {
        match self.current.get(&agent) {
            Some(&(step, false)) => step,
            _ => self.new_step(agent, timestamp),
        }
    }

    fn set_model(&mut self, data: &Value) {
        if let Some(model) = str_field(data, "model") {
            self.session.steps.trajectory.model = Some(model.to_string());
        }
    }

    fn message(&mut self, agent: Option<&'static str>, data: &Value, timestamp: Option<String>) {
        let step = self.current_step(agent, timestamp);
        self.set_model(data);
        let b = &mut self.session.steps;
        if let Some(reasoning) = str_field(data, "reasoningText") {
            b.add_thought(step, reasoning);
        }
        b.add_text(step, &text_of(data, "content"));
        if let Some(out) = u64_field(data, "outputTokens").filter(|&n| n > 0) {
            b.merge_usage(
                step,
                Usage {
                    tokens_out: Some(out),
                    api_calls: Some(1),
                    ..Usage::default()
                },
            );
        }
        let Some(Value::Array(requests)) = data.get("toolRequests") else {
            return;
        };
        for request in requests {
            let name = str_field(request, "name").unwrap_or("tool").to_string();
            let arguments = match request.get("arguments") {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            let call = ToolCall {
                id: str_field(request, "toolCallId").map(String::from),
                name,
                arguments,
            };
            let action = match call.argument("command") {
                Some(command) => command,
                None => generic_action(&call.name, &call.arguments),
            };
            b.add_call(step, call, action, true);
        }
    }

    fn tool_result(&mut self, agent: Option<&'static str>, line: usize, data: &Value) {
        let b = &mut self.session.steps;
        let id = str_field(data, "toolCallId").unwrap_or("");
        let result = data.get("result").unwrap_or(&Value::Null);
        let mut text = text_of(result, "content");
        if let Some(error) = data.get("error").filter(|e| !e.is_null()) {
            let message =
                str_field(error, "message").map_or_else(|| error.to_string(), String::from);
            append_line(&mut text, &message);
        }
        let failed = data.get("success").and_then(Value::as_bool) == Some(false);
        let outcome = CallOutput {
            text,
            failed,
            ..CallOutput::default()
        };
        match b.call_at(id) {
            Some(at) if !b.has_output(at) => {
                b.add_result(at, outcome);
                if let Some(current) = self.current.get_mut(&agent) {
                    current.1 = true;
                }
            }
            Some(_) => {}
            None => {
                b.orphan_result(agent, Some(id), outcome.text);
                let note = format!(
                    "{}:{line}: a tool result answers no call in the log",
                    self.path.display()
                );
                b.warn(note);
            }
        }
    }

    fn finish(mut self) -> Trajectory {
        if let Some(id) = self.session_id.take() {
            name_after_session(&mut self.session.steps.trajectory, &id);
        }
        if !self.ignored.is_empty() {
            let kinds: Vec<String> = self
                .ignored
                .iter()
                .map(|(k, n)| format!("{k} ×{n}"))
                .collect();
            let note = format!("event types not read: {}", kinds.join(", "));
            self.session.steps.warn(note);
        }
        self.session.finish()
    }
}

fn text_of(value: &Value, key: &str) -> String {
    value.get(key).map(content_text).unwrap_or_default()
}

fn append_line(to: &mut String, text: &str) {
    if !to.is_empty() {
        to.push('\n');
    }
    to.push_str(text);
}

#[cfg(test)]
mod tests;
