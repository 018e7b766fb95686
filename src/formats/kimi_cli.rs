//! Kimi CLI wire logs (`wire.jsonl` of a Kimi CLI / Kimi Code session), read as kimi-cli
//! writes them: a `metadata` line carrying `protocol_version`, then records.
//!
//! Protocol 1.x (Kimi Code) records have a top-level `type` and a `time` in milliseconds:
//! `turn.prompt` and `turn.steer` are what the user typed (user turns); the agent loop's
//! `context.append_loop_event` events make the model steps (`step.begin`, `content.part`
//! text and `think`, `tool.call` with `args`, `tool.result` with `output` / `isError`,
//! `step.end` with `usage` and `model`); `llm.request` names the model and counts retried
//! attempts; `turn.cancel` ends a turn the user stopped. Older wire logs wrap each record as
//! `{timestamp, message: {type, payload}}` (`TurnBegin`, `ContentPart`, `ToolCall`,
//! `ToolResult`, `StatusUpdate`, `TurnEnd`): read the same way.

use super::LoadError;
use super::json::{
    JsonLine, content_text, each_json_line, json_line, str_field, to_text, u64_field,
};
use super::read_count::ReadCount;
use super::tool_steps::{CallOutput, call_action};
use super::turns::{Session, iso_from_millis};
use crate::model::{Format, Message, Step, ToolCall, Trajectory, Usage};
use serde_json::Value;
use std::path::Path;

/// Whether the first records of a JSON Lines file are a Kimi CLI wire log.
pub fn is_wire_lines(lines: &[Value]) -> bool {
    let metadata = lines.first().is_some_and(|l| {
        l.get("protocol_version").is_some() && str_field(l, "type") == Some("metadata")
    });
    metadata
        || lines.iter().take(4).any(|l| {
            let legacy = l
                .get("message")
                .and_then(|m| str_field(m, "type"))
                .is_some_and(|t| matches!(t, "TurnBegin" | "StepBegin" | "ContentPart"))
                && l.get("timestamp").is_some();
            let current = matches!(
                str_field(l, "type"),
                Some("turn.prompt" | "context.append_loop_event")
            ) && l.get("time").is_some_and(Value::is_number);
            legacy || current
        })
}

struct Reader<'a> {
    path: &'a Path,
    session: Session,
    step: Option<usize>,
    /// Model calls retried before an answer (or a cancel): `attempt` of `llm.request`.
    retries: u64,
    cancelled: usize,
    /// The model step last marked as cancelled, so that a second cancel does not mark it again.
    cancelled_step: Option<usize>,
    /// Whether the model known is only a configured alias.
    alias_only: bool,
    /// System prompts already in the pool (which a releasing read does not keep).
    prompts: Vec<String>,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let mut lines = Lines::new(path);
    each_json_line(path, bytes, |line| lines.read(line));
    lines.finish()
}

/// A wire log read one line at a time, by the whole read ([`parse`]) and by the bounded read
/// ([`super::stream`]), which cuts the lines as they come and lets the steps go as they
/// finish ([`Lines::releasing`]): both give the same steps, warnings and header. A tool
/// result logged more than 512 steps after its call is lost to the bounded read
/// ([`super::tool_steps`] gives up waiting then).
pub struct Lines<'a> {
    reader: Reader<'a>,
    count: ReadCount,
}

impl<'a> Lines<'a> {
    pub fn new(path: &'a Path) -> Lines<'a> {
        Lines {
            reader: Reader {
                path,
                session: Session::new(Trajectory::new(path, Format::KimiCli)),
                step: None,
                retries: 0,
                cancelled: 0,
                alias_only: false,
                cancelled_step: None,
                prompts: Vec::new(),
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
            Ok(line) => self.reader.record(&line),
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
        self.count.none_read(self.reader.path, "Kimi CLI records")?;
        Ok(vec![self.reader.finish()])
    }
}

impl Reader<'_> {
    fn record(&mut self, line: &JsonLine) {
        let r = &line.value;
        let time = r
            .get("time")
            .and_then(Value::as_i64)
            .and_then(iso_from_millis)
            .or_else(|| str_field(r, "timestamp").map(String::from))
            .or_else(|| {
                r.get("timestamp")
                    .and_then(Value::as_f64)
                    .map(|s| s.to_string())
            });
        if let Some(message) = r.get("message").filter(|_| r.get("type").is_none()) {
            let kind = str_field(message, "type").unwrap_or("");
            let payload = message.get("payload").unwrap_or(&Value::Null);
            return self.legacy(kind, payload, time);
        }
        let b = &mut self.session.steps;
        match str_field(r, "type").unwrap_or("") {
            "metadata" => {
                if let Some(v) = r.get("protocol_version") {
                    b.trajectory.format_detail = Some(format!("protocol {}", to_text(v)));
                }
            }
            "config.update" | "profile.bind" => {
                // The alias until a request names the model itself.
                if let Some(model) = str_field(r, "modelAlias")
                    && (b.trajectory.model.is_none() || self.alias_only)
                {
                    b.trajectory.model = Some(model.to_string());
                    self.alias_only = true;
                }
                if let Some(prompt) = str_field(r, "systemPrompt")
                    && !self.prompts.iter().any(|p| p == prompt)
                {
                    self.prompts.push(prompt.to_string());
                    b.push_message(None, Message::system(prompt));
                }
            }
            "turn.prompt" | "turn.steer" => {
                self.step = None;
                let text = input_text(r.get("input").unwrap_or(&Value::Null));
                self.session.user(&text, time);
            }
            "turn.cancel" => {
                self.cancelled += 1;
                // A model step the user stopped before it said anything: say so.
                if let Some(step) = b.last_step(None)
                    && self.cancelled_step != Some(step)
                {
                    self.cancelled_step = Some(step);
                    let silent = b.step_mut(step).is_some_and(|s| {
                        s.thought.is_empty() && s.response.is_empty() && s.tool_calls.is_empty()
                    });
                    if silent {
                        self.session.step_error(
                            step,
                            "[cancelled by the user before the model answered]".into(),
                        );
                    }
                }
                let b = &mut self.session.steps;
                b.trajectory.exit_status = Some("cancelled".into());
                b.close(None);
                self.step = None;
            }
            "turn.ended" => {
                if let Some(reason) = str_field(r, "reason") {
                    b.trajectory.exit_status = Some(reason.to_string());
                }
                b.close(None);
                self.step = None;
            }
            "llm.request" => {
                if let Some(model) = str_field(r, "model") {
                    b.trajectory.model = Some(model.to_string());
                    self.alias_only = false;
                }
                if r.get("attempt").is_some() {
                    self.retries += 1;
                }
            }
            "usage.record" => {
                if let (Some(step), Some(usage)) = (self.step, r.get("usage")) {
                    b.merge_usage(step, native_usage(usage));
                }
            }
            "context.append_loop_event" => {
                let event = r.get("event").unwrap_or(&Value::Null);
                self.loop_event(event, time);
            }
            _ => {}
        }
    }

    fn loop_event(&mut self, event: &Value, time: Option<String>) {
        match str_field(event, "type").unwrap_or("") {
            "step.begin" => {
                let key = str_field(event, "uuid");
                let step = self.session.steps.start_step(None, key, time);
                self.step = Some(step);
            }
            "content.part" => {
                let part = event.get("part").unwrap_or(&Value::Null);
                self.part(part, time);
            }
            "tool.call" => {
                let step = self.current(time);
                let id = str_field(event, "toolCallId");
                let name = str_field(event, "name").unwrap_or("tool");
                self.call(step, id, name, event.get("args"));
            }
            "tool.result" => {
                let id = str_field(event, "toolCallId").unwrap_or("");
                let result = event.get("result").unwrap_or(&Value::Null);
                let mut text = result.get("output").map(content_text).unwrap_or_default();
                if text.is_empty() {
                    text = str_field(result, "message").unwrap_or("").to_string();
                }
                let failed = result.get("isError").and_then(Value::as_bool) == Some(true);
                self.result(id, text, failed);
            }
            "step.end" => {
                let step = self.current(time);
                let b = &mut self.session.steps;
                if let Some(model) = str_field(event, "model") {
                    b.trajectory.model = Some(model.to_string());
                    self.alias_only = false;
                }
                let usage = event.get("usage").map(native_usage).unwrap_or_default();
                b.merge_usage(
                    step,
                    Usage {
                        api_calls: Some(1),
                        ..usage
                    },
                );
            }
            _ => {}
        }
    }

    fn legacy(&mut self, kind: &str, payload: &Value, time: Option<String>) {
        match kind {
            "TurnBegin" => {
                self.step = None;
                let text = input_text(payload.get("user_input").unwrap_or(&Value::Null));
                self.session.user(&text, time);
            }
            "StepBegin" => {
                let step = self.session.steps.start_step(None, None, time);
                self.step = Some(step);
            }
            "ContentPart" => self.part(payload, time),
            "ToolCall" => {
                let step = self.current(time);
                let function = payload.get("function").unwrap_or(&Value::Null);
                let name = str_field(function, "name").unwrap_or("tool");
                self.call(
                    step,
                    str_field(payload, "id"),
                    name,
                    function.get("arguments"),
                );
            }
            "ToolResult" => {
                let id = str_field(payload, "tool_call_id").unwrap_or("");
                let value = payload.get("return_value").unwrap_or(&Value::Null);
                let mut text = value.get("output").map(content_text).unwrap_or_default();
                if text.is_empty() {
                    text = str_field(value, "message").unwrap_or("").to_string();
                }
                let failed = value.get("is_error").and_then(Value::as_bool) == Some(true);
                self.result(id, text, failed);
            }
            "StatusUpdate" => {
                if let (Some(step), Some(usage)) = (self.step, payload.get("token_usage")) {
                    let u = Usage {
                        // Saturating: counts come from the file.
                        tokens_in: Some(
                            u64_field(usage, "input_other")
                                .unwrap_or(0)
                                .saturating_add(u64_field(usage, "input_cache_read").unwrap_or(0))
                                .saturating_add(
                                    u64_field(usage, "input_cache_creation").unwrap_or(0),
                                ),
                        ),
                        tokens_out: u64_field(usage, "output"),
                        api_calls: Some(1),
                        tokens_cached: None,
                        tokens_reasoning: None,
                        cost: None,
                    };
                    self.session.steps.merge_usage(step, u);
                }
            }
            "TurnEnd" => {
                self.session.steps.close(None);
                self.step = None;
            }
            _ => {}
        }
    }

    fn current(&mut self, time: Option<String>) -> usize {
        match self.step {
            Some(step) => step,
            None => {
                let step = self.session.steps.start_step(None, None, time);
                self.step = Some(step);
                step
            }
        }
    }

    fn part(&mut self, part: &Value, time: Option<String>) {
        let step = self.current(time);
        let b = &mut self.session.steps;
        match str_field(part, "type").unwrap_or("") {
            "think" => {
                let text = str_field(part, "think").or_else(|| str_field(part, "text"));
                b.add_thought(step, text.unwrap_or(""));
            }
            _ => b.add_text(step, &content_text(part)),
        }
    }

    fn call(&mut self, step: usize, id: Option<&str>, name: &str, args: Option<&Value>) {
        let arguments = match args {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        let call = ToolCall {
            id: id.map(String::from),
            name: name.to_string(),
            arguments,
        };
        let action = call_action(&call);
        self.session.steps.add_call(step, call, action, true);
    }

    fn result(&mut self, id: &str, text: String, failed: bool) {
        let b = &mut self.session.steps;
        let outcome = CallOutput {
            text,
            failed,
            ..CallOutput::default()
        };
        match b.call_at(id).or_else(|| b.pending_call(None)) {
            Some(at) => b.add_result(at, outcome),
            None => b.orphan_result(None, Some(id), outcome.text),
        }
    }

    fn finish(mut self) -> Trajectory {
        let b = &mut self.session.steps;
        // Every session's file is `wire.jsonl`: its folders name the session
        // (`…/session_<id>/agents/<agent>/wire.jsonl`, or `…/<session-id>/wire.jsonl`).
        if b.trajectory.instance_id == "wire" {
            let folders: Vec<String> = self
                .path
                .ancestors()
                .skip(1)
                .take(3)
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            let session = folders
                .iter()
                .find(|n| n.starts_with("session_"))
                .or_else(|| {
                    folders
                        .first()
                        .filter(|_| folders.get(1).is_none_or(|n| n != "agents"))
                });
            if let Some(session) = session {
                b.trajectory.instance_id = session.clone();
            }
        }
        if self.retries > 0 {
            b.warn(format!(
                "{}: {} model request(s) were retries of a failed attempt",
                self.path.display(),
                self.retries
            ));
        }
        if self.cancelled > 0 {
            b.warn(format!(
                "{}: {} turn(s) cancelled by the user",
                self.path.display(),
                self.cancelled
            ));
        }
        self.session.finish()
    }
}

/// The user's input: a list of parts (`{"type":"text","text":…}`) or a string.
fn input_text(input: &Value) -> String {
    content_text(input)
}

/// Kimi's token usage: input split into `inputOther`, `inputCacheRead` and
/// `inputCacheCreation` (summed: the whole prompt), and `output`.
fn native_usage(usage: &Value) -> Usage {
    let parts = ["inputOther", "inputCacheRead", "inputCacheCreation"];
    let known: Vec<u64> = parts.iter().filter_map(|k| u64_field(usage, k)).collect();
    Usage {
        tokens_in: (!known.is_empty()).then(|| known.iter().sum()),
        tokens_out: u64_field(usage, "output"),
        ..Usage::default()
    }
}

#[cfg(test)]
mod tests;
