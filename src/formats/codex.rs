//! Codex CLI rollout `.jsonl` files (`~/.codex/sessions/…/rollout-*.jsonl`).
//!
//! Each line is an envelope `{timestamp, type, payload}`: `session_meta` (session id, cwd,
//! CLI version, base instructions), `turn_context` (model, cwd, policies), `response_item`
//! (what went to or came from the model: messages, reasoning, function / custom / local
//! shell calls and their outputs, linked by `call_id`), `event_msg` (what the CLI saw:
//! token counts, command exits, patch results, turn ends) and `compacted` (a context
//! compaction). Older rollouts have no envelope: a first line `{id, timestamp,
//! instructions}`, then bare response items and `record_type` state lines.
//!
//! A step is one model response: its reasoning, text and tool calls, with the outputs that
//! answer them; a `token_count` event closes it. Contexts are reconstructed from the items
//! (the instructions are kept when the log has them). This module reads records;
//! [`super::tool_steps`] assembles steps.

mod action;
mod events;
mod items;
mod record;

#[cfg(test)]
mod tests;

use super::LoadError;
use super::json::{JsonLine, each_json_line, json_line};
use super::read_count::ReadCount;
use super::tool_steps::{CallOutput, StepBuilder};
use crate::model::{Format, Message, Trajectory, Usage};
use record::{Line, Payload, value};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::path::Path;

/// Envelope types that carry nothing about the agent's work.
const BOOKKEEPING: &[&str] = &["world_state", "inter_agent_communication_metadata"];

/// The state of one rollout being read.
struct Rollout<'a> {
    path: &'a Path,
    steps: StepBuilder,
    session_id: Option<String>,
    cli_version: Option<String>,
    instructions_seen: bool,
    /// The task from `user_message` events, for rollouts without user response items.
    event_task: Option<String>,
    /// The session's cumulative tokens: the largest running total reported.
    total: Option<Usage>,
    /// The last running total reported, to skip repeats and to take per-response figures
    /// from when a report has no `last_token_usage`.
    last_total: Option<Usage>,
    /// Per-call usage summed, for logs that report no totals.
    summed: Usage,
    /// Usage of `turn.completed` events, for logs without `token_count`.
    turn_usage: Usage,
    /// The step that last received a `token_count`, so a repeated report is not
    /// credited to it twice.
    usage_step: Option<usize>,
    /// Call outputs copied in events (call id, text), for calls the log has no output for.
    event_outputs: Vec<(String, String)>,
    /// Unknown record type → (first line, count).
    unknown: BTreeMap<String, (usize, usize)>,
    /// Outputs answering no call in the log: (first line, count).
    unmatched: Option<(usize, usize)>,
    /// Steps are let go as they finish ([`Lines::releasing`]).
    releasing: bool,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    // One record at a time: a long rollout never sits in memory as JSON values.
    let mut rollout = Rollout::new(path);
    let mut count = ReadCount::default();
    each_json_line(
        path,
        bytes,
        |line: Result<JsonLine<&RawValue>, String>| match count.line(line) {
            Ok(line) => rollout.record(line.line, line.value),
            Err(warning) => rollout.steps.warn(warning),
        },
    );
    count.none_read(path, "Codex records")?;
    Ok(vec![rollout.finish()])
}

/// A rollout's lines read one at a time as the bounded read ([`super::stream`]) cuts them,
/// its steps let go as they finish: what a listing or a tally of a big rollout reads, the
/// file's text never held. A call's output copied in an event and logged later than its
/// step's release is lost to this read (the whole read keeps it).
pub struct Lines<'a> {
    rollout: Rollout<'a>,
    count: ReadCount,
}

impl<'a> Lines<'a> {
    /// Lines whose steps are let go as they finish ([`Lines::take_released`]); the message
    /// pool is kept only if `keep_pool` (the lazy open, whose steps show their contexts).
    pub fn releasing(path: &'a Path, keep_pool: bool) -> Lines<'a> {
        let mut rollout = Rollout::new(path);
        rollout.steps.release_steps(keep_pool);
        rollout.releasing = true;
        Lines {
            rollout,
            count: ReadCount::default(),
        }
    }

    /// Reads line `line_no` (1-based) of the file; `is_last` when nothing follows it.
    pub fn line(&mut self, line_no: usize, line: &[u8], is_last: bool) {
        let path = self.rollout.path;
        match self
            .count
            .line(json_line::<&RawValue>(path, line_no, line, is_last))
        {
            Ok(line) => self.rollout.record(line.line, line.value),
            Err(warning) => self.rollout.steps.warn(warning),
        }
    }

    /// The steps finished since the last call.
    pub fn take_released(&mut self) -> Vec<crate::model::Step> {
        self.rollout.steps.take_released()
    }

    /// The kept pool's messages that nothing later changes, taken from its front (none
    /// unless the pool is kept while steps are let go).
    pub fn take_settled(&mut self) -> Vec<crate::model::Message> {
        self.rollout.steps.take_settled()
    }

    pub fn finish(self) -> Result<Vec<Trajectory>, LoadError> {
        self.count.none_read(self.rollout.path, "Codex records")?;
        Ok(vec![self.rollout.finish()])
    }
}

impl<'a> Rollout<'a> {
    fn new(path: &'a Path) -> Rollout<'a> {
        Rollout {
            path,
            steps: StepBuilder::new(Trajectory::new(path, Format::Codex)),
            session_id: None,
            cli_version: None,
            instructions_seen: false,
            event_task: None,
            total: None,
            last_total: None,
            summed: Usage::default(),
            turn_usage: Usage::default(),
            usage_step: None,
            event_outputs: Vec::new(),
            unknown: BTreeMap::new(),
            unmatched: None,
            releasing: false,
        }
    }

    fn warn_at(&mut self, line: usize, what: &str) {
        let text = format!("{}:{line}: {what}", self.path.display());
        self.steps.warn(text);
    }

    fn note_unknown(&mut self, line: usize, kind: String) {
        self.unknown.entry(kind).or_insert((line, 0)).1 += 1;
    }

    fn record(&mut self, line: usize, raw: &RawValue) {
        let Ok(record) = serde_json::from_str::<Line>(raw.get()) else {
            self.warn_at(line, "not a JSON object; skipped");
            return;
        };
        let timestamp = record.timestamp.get().map(String::from);
        let payload = record.payload.map_or(raw.get(), RawValue::get);
        let Some(payload) = Payload::parse(payload) else {
            self.warn_at(line, "a payload that is not a JSON object; skipped");
            return;
        };
        match (record.kind.get(), record.payload) {
            (Some(kind), Some(_)) => self.envelope(line, kind, &payload, timestamp),
            // The envelope-less layout of early rollouts.
            (Some(_), None) => self.item(line, &payload, timestamp),
            (None, _) if record.record_type.is_some() => {}
            (None, _) if record.id.is_some() => self.session_meta(&payload),
            (None, _) => self.warn_at(line, "a record without a `type`; skipped"),
        }
    }

    fn envelope(&mut self, line: usize, kind: &str, payload: &Payload, ts: Option<String>) {
        match kind {
            "session_meta" => self.session_meta(payload),
            "turn_context" => self.note_model(payload.model.get()),
            "response_item" => self.item(line, payload, ts),
            "event_msg" => self.event(payload),
            "compacted" => self.compacted(payload),
            k if BOOKKEEPING.contains(&k) => {}
            other => self.note_unknown(line, other.to_string()),
        }
    }

    fn session_meta(&mut self, meta: &Payload) {
        if self.session_id.is_none() {
            self.session_id = meta
                .id
                .non_empty()
                .or_else(|| meta.session_id.non_empty())
                .map(String::from);
        }
        if self.cli_version.is_none() {
            self.cli_version = meta.cli_version.get().map(String::from);
        }
        self.note_model(meta.model.get());
        let base = value(meta.base_instructions);
        let instructions = meta
            .instructions
            .get()
            .or_else(|| base.get("text").and_then(serde_json::Value::as_str))
            .filter(|text| !text.trim().is_empty());
        if let Some(text) = instructions
            && !self.instructions_seen
        {
            self.instructions_seen = true;
            self.steps.push_message(None, Message::system(text));
        }
    }

    fn note_model(&mut self, model: Option<&str>) {
        let t = &mut self.steps.trajectory;
        if t.model.is_none() {
            t.model = model.filter(|m| !m.is_empty()).map(String::from);
        }
    }

    /// The model's history was replaced: by the items kept (`replacement_history`), or by a
    /// summary.
    fn compacted(&mut self, payload: &Payload) {
        match value(payload.replacement_history).as_array() {
            Some(history) => {
                self.steps.compaction_step(None, None);
                for item in history {
                    if let Some(message) = items::message_of(item) {
                        self.steps.push_message(None, message);
                    }
                }
            }
            None => {
                let summary = payload.message.non_empty().map(String::from);
                self.steps.compaction_step(None, summary);
            }
        }
    }

    fn finish(mut self) -> Trajectory {
        for (id, text) in std::mem::take(&mut self.event_outputs) {
            if let Some(call) = self.steps.call_at(&id)
                && !self.steps.has_output(call)
            {
                let outcome = CallOutput {
                    text,
                    ..CallOutput::default()
                };
                self.steps.add_result(call, outcome);
            }
        }
        let unknown = std::mem::take(&mut self.unknown);
        for (kind, (first, count)) in unknown {
            self.warn_at(
                first,
                &format!("skipped {count} record(s) of unknown type `{kind}`"),
            );
        }
        if let Some((first, count)) = self.unmatched {
            self.warn_at(
                first,
                &format!("{count} tool output(s) answer no call in the log; kept as context only"),
            );
        }
        let t = &mut self.steps.trajectory;
        t.format_detail = Some(match &self.cli_version {
            Some(v) => format!("cli {v}"),
            None => "rollout".to_string(),
        });
        if let Some(id) = self.session_id.take() {
            t.instance_id = super::tool_steps::instance_id(&t.instance_id, id);
        }
        if t.task.is_none() {
            t.task = self.event_task.take();
        }
        t.usage = match self.total {
            Some(total) => total,
            None if !self.summed.is_empty() => self.summed,
            None => self.turn_usage,
        };
        self.steps.finish()
    }
}
