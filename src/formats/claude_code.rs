//! Claude Code logs: session `.jsonl` files (`~/.claude/projects/…`), the output of
//! `claude -p --output-format stream-json`, and web-session JSON exports (`{"loglines": […]}`).
//!
//! All three are a stream of records: `user` (prompts and tool results), `assistant` (model
//! output, one content block per record, so one API response spans several records sharing
//! `message.id`), `system` (`init` in stream-json, `compact_boundary`, hooks, errors),
//! `result` (stream-json's last line: cost, turns, outcome) and many bookkeeping types that
//! say nothing about the agent's work. A step is one API response: its thinking, text and
//! tool calls, with the tool results that answer it. The system prompt is not logged, so
//! contexts are reconstructed. This module reads records; [`super::tool_steps`] assembles
//! steps; the diff layer, not this one, interprets the kept `toolUseResult` data.

mod action;
mod assistant;
mod record;
mod subagents;
mod user;

#[cfg(test)]
mod tests;

use super::LoadError;
use super::json::{JsonLine, each_json_line, json_line};
use super::tool_steps::StepBuilder;
use crate::model::{Format, Trajectory};
use record::{ApiMessage, ApiUsage, Record};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Record types that carry no step, prompt or result: skipped without a warning. Claude Code
/// adds such types often; an unknown one gets one warning per type, never one per line.
const BOOKKEEPING: &[&str] = &[
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "progress",
    "attachment",
    "permission-mode",
    "mode",
    "agent-name",
    "custom-title",
    "ai-title",
    "last-prompt",
    "frame-link",
    "pr-link",
    "started",
    "relocated",
    "worktree-state",
    "bridge-session",
    "atis-latch",
    "stream_event",
];

/// Where records come from, for messages that name a line.
#[derive(Clone, Copy, PartialEq)]
enum Origin {
    Lines,
    Loglines,
}

/// The state of one session being read.
struct Session<'a> {
    path: &'a Path,
    origin: Origin,
    steps: StepBuilder,
    /// Records read, odd ones included.
    records: usize,
    session_id: Option<String>,
    version: Option<String>,
    stream_json: bool,
    /// Unknown record type → (first position, count).
    unknown: BTreeMap<String, (usize, usize)>,
    /// Tool results answering no call in the log: (first position, count).
    unmatched: Option<(usize, usize)>,
    /// Id of a `Task`/`Agent` call → the subagent it started, for stream-json records
    /// that name their parent call.
    subagents: HashMap<String, String>,
    /// Id of a `Task`/`Agent` call → the agent id its result names, for linking the
    /// sub-agent's own log.
    agent_ids: HashMap<String, String>,
    /// This is a sub-agent's own log: its sidechain records are its main conversation.
    subagent_log: bool,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    if !super::detect::is_json_lines(bytes) {
        return parse_document(path, bytes);
    }
    // One record at a time, read into a struct that borrows the bytes and skips what the
    // loader does not use: a long session never sits in memory as JSON values.
    let mut lines = Lines::new(path);
    each_json_line(path, bytes, |line| lines.read(line));
    lines.finish()
}

/// A session's lines read one at a time, as they come: the whole read above, and the
/// bounded read ([`super::stream`]), which hands over each slimmed line and never holds the
/// file's text.
pub struct Lines<'a> {
    session: Session<'a>,
    first_problem: Option<String>,
}

impl<'a> Lines<'a> {
    pub fn new(path: &'a Path) -> Lines<'a> {
        Lines {
            session: Session::new(path, Origin::Lines),
            first_problem: None,
        }
    }

    /// Lines whose steps are released as they finish ([`Lines::take_released`]), with the
    /// message pool only when `keep_pool` (the lazy open, whose steps show their contexts;
    /// a listing or a tally of a big session reads none). A session with sub-agent logs
    /// beside it keeps its steps, which are linked to those logs at the end.
    pub fn releasing(path: &'a Path, keep_pool: bool) -> Lines<'a> {
        let mut lines = Lines::new(path);
        if subagents::subagents_dir(path).is_none() {
            lines.session.steps.release_steps(keep_pool);
        }
        lines
    }

    /// The steps finished since the last call (none unless [`Lines::releasing`]).
    pub fn take_released(&mut self) -> Vec<crate::model::Step> {
        self.session.steps.take_released()
    }

    /// The kept pool's messages that nothing later changes, taken from its front (none
    /// unless the pool is kept while steps are let go).
    pub fn take_settled(&mut self) -> Vec<crate::model::Message> {
        self.session.steps.take_settled()
    }

    /// Reads line `line_no` (1-based) of the file; `is_last` when nothing follows it.
    pub fn line(&mut self, line_no: usize, line: &[u8], is_last: bool) {
        let path = self.session.path;
        self.read(json_line(path, line_no, line, is_last));
    }

    fn read(&mut self, line: Result<JsonLine<Record>, String>) {
        match line {
            Ok(line) => self.session.record(line.line, &line.value),
            Err(warning) => {
                self.first_problem.get_or_insert_with(|| warning.clone());
                self.session.steps.warn(warning);
            }
        }
    }

    pub fn finish(self) -> Result<Vec<Trajectory>, LoadError> {
        if self.session.records == 0 {
            let why = self
                .first_problem
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            return Err(LoadError::invalid(
                self.session.path,
                format!("no readable Claude Code records{why}"),
            ));
        }
        Ok(vec![self.session.finish()])
    }
}

/// One JSON document: a web session's `{"loglines": […]}`, or a session file of one line.
fn parse_document(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    #[derive(Deserialize)]
    struct WebSession<'a> {
        #[serde(borrow, default)]
        loglines: Option<&'a RawValue>,
    }
    let whole: &RawValue =
        serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
    let (records, origin): (Vec<&RawValue>, Origin) = match whole.get().as_bytes().first() {
        Some(b'[') => (list(whole).unwrap_or_default(), Origin::Loglines),
        Some(b'{') => match serde_json::from_str::<WebSession>(whole.get()) {
            Ok(WebSession {
                loglines: Some(lines),
            }) => match list(lines) {
                Some(lines) => (lines, Origin::Loglines),
                None => return Err(LoadError::invalid(path, "`loglines` is not a list")),
            },
            _ => (vec![whole], Origin::Lines),
        },
        _ => {
            return Err(LoadError::invalid(
                path,
                "neither Claude Code records nor a web session",
            ));
        }
    };
    let mut session = Session::new(path, origin);
    for (i, raw) in records.iter().enumerate() {
        match serde_json::from_str::<Record>(raw.get()) {
            Ok(record) => session.record(i + 1, &record),
            Err(_) => session.warn_at(i + 1, "not a JSON object; skipped"),
        }
    }
    Ok(vec![session.finish()])
}

fn list(raw: &RawValue) -> Option<Vec<&RawValue>> {
    serde_json::from_str(raw.get()).ok()
}

impl<'a> Session<'a> {
    fn new(path: &'a Path, origin: Origin) -> Session<'a> {
        Session {
            path,
            origin,
            steps: StepBuilder::new(Trajectory::new(path, Format::ClaudeCode)),
            records: 0,
            session_id: None,
            version: None,
            stream_json: false,
            unknown: BTreeMap::new(),
            unmatched: None,
            subagents: HashMap::new(),
            agent_ids: HashMap::new(),
            subagent_log: subagents::is_subagent_log(path),
        }
    }

    /// `file:12` or `file: logline 12`, for warnings.
    fn at(&self, at: usize) -> String {
        match self.origin {
            Origin::Lines => format!("{}:{at}", self.path.display()),
            Origin::Loglines => format!("{}: logline {at}", self.path.display()),
        }
    }

    fn warn_at(&mut self, at: usize, what: &str) {
        let text = format!("{}: {what}", self.at(at));
        self.steps.warn(text);
    }

    fn record(&mut self, at: usize, record: &Record) {
        self.records += 1;
        self.note_session(record);
        // Old usage-only logs (ccusage fixtures) have no `type`: the message's role says it.
        let role;
        let kind = match record.kind.get() {
            Some(kind) => kind,
            None => {
                role = record
                    .message
                    .and_then(ApiMessage::parse)
                    .and_then(|m| m.role.0);
                role.as_deref().unwrap_or("")
            }
        };
        let agent = self.agent_of(record);
        let agent = agent.as_deref();
        match kind {
            "assistant" => self.assistant(at, record, agent),
            "user" => self.user(at, record, agent),
            "system" => self.system(record, agent),
            "result" => self.result(record),
            "tool_use" => self.bare_tool_use(record, agent),
            "tool_result" => self.bare_tool_result(at, record, agent),
            "" => self.warn_at(at, "a record without a `type`; skipped"),
            k if BOOKKEEPING.contains(&k) => {}
            other => {
                let entry = self.unknown.entry(other.to_string()).or_insert((at, 0));
                entry.1 += 1;
            }
        }
    }

    fn note_session(&mut self, record: &Record) {
        if self.session_id.is_none() {
            self.session_id = record.session_id().map(String::from);
        }
        if self.version.is_none() {
            self.version = record.version.get().map(String::from);
        }
    }

    /// Which agent a record belongs to: `None` for the main conversation; a subagent's
    /// records are marked `isSidechain` (session files) or name the call that started
    /// them (`parent_tool_use_id`, stream-json).
    fn agent_of(&self, record: &Record) -> Option<String> {
        if record.is_sidechain.is_true() && !self.subagent_log {
            return Some(match record.agent_id.non_empty() {
                Some(id) => format!("sidechain {id}"),
                None => "sidechain".to_string(),
            });
        }
        let parent = record.parent_tool_use_id.non_empty()?;
        Some(
            self.subagents
                .get(parent)
                .cloned()
                .unwrap_or_else(|| "subagent".to_string()),
        )
    }

    fn system(&mut self, record: &Record, agent: Option<&str>) {
        match record.subtype.get() {
            Some("init") => {
                self.stream_json = true;
                if let Some(model) = record.model.get() {
                    self.note_model(model);
                }
            }
            Some("compact_boundary") => self.steps.compaction_step(agent, None),
            _ => {}
        }
    }

    fn note_model(&mut self, model: &str) {
        // `<synthetic>` marks messages Claude Code wrote itself (API errors, interruptions).
        if self.steps.trajectory.model.is_none() && !model.is_empty() && model != "<synthetic>" {
            self.steps.trajectory.model = Some(model.to_string());
        }
    }

    /// stream-json's last line: what the run cost and how it ended. Other tools write
    /// `result` records of their own shape into session files; those carry none of these.
    fn result(&mut self, record: &Record) {
        let is_error = record.is_error.0;
        let subtype = record.subtype.get();
        let cost = record.total_cost_usd.f64();
        if is_error.is_none() && subtype.is_none() && cost.is_none() {
            return;
        }
        self.stream_json = true;
        let t = &mut self.steps.trajectory;
        t.exit_status = subtype
            .map(String::from)
            .or_else(|| is_error.map(|e| if e { "error" } else { "success" }.to_string()));
        let usage = assistant::usage(&ApiUsage::parse(record.usage), cost);
        t.usage.cost = usage.cost;
        t.usage.tokens_in = usage.tokens_in;
        t.usage.tokens_out = usage.tokens_out;
    }

    fn finish(mut self) -> Trajectory {
        let unknown = std::mem::take(&mut self.unknown);
        for (kind, (first, count)) in unknown {
            let text = format!(
                "{}: skipped {count} record(s) of unknown type `{kind}`",
                self.at(first)
            );
            self.steps.warn(text);
        }
        if let Some((first, count)) = self.unmatched {
            let text = format!(
                "{}: {count} tool result(s) answer no tool call in the log; kept as context only",
                self.at(first)
            );
            self.steps.warn(text);
        }
        let detail = if self.stream_json {
            "stream-json".to_string()
        } else if self.origin == Origin::Loglines {
            "web session".to_string()
        } else {
            match &self.version {
                Some(v) => format!("session v{v}"),
                None => "session".to_string(),
            }
        };
        let t = &mut self.steps.trajectory;
        t.format_detail = Some(detail);
        if let Some(id) = self.session_id.take() {
            t.instance_id = super::tool_steps::instance_id(&t.instance_id, id);
        }
        let agent_ids = std::mem::take(&mut self.agent_ids);
        let mut trajectory = self.steps.finish();
        subagents::link(&mut trajectory, &agent_ids);
        trajectory
    }
}
