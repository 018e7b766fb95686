//! A Gemini CLI session read a record at a time, by the whole read ([`super::parse`]) and by
//! the bounded read ([`crate::formats::stream`], which cuts the items of a session document's
//! `messages` or the lines of its JSON Lines variant as they come and lets the steps go as
//! they finish): both give the same steps, warnings and header.
//!
//! The JSON Lines variant re-writes a message under the same `id` when it changes (a tool
//! call's result arrives, tokens are counted); the last version wins, in the place of the
//! first. So a message is read only once no later line can re-write it: at the end for the
//! whole read, and [`REWRITE_WINDOW`] messages later for the bounded read (gemini-cli
//! re-writes the message it is recording, never an old one). What the bounded read loses,
//! by design: a re-write more than [`REWRITE_WINDOW`] messages after the first version is
//! not read (a warning says so), and a tool result more than 512 steps after its call is
//! lost as for the other session logs ([`crate::formats::tool_steps`]).
//!
//! The session fields (`sessionId`, the first line and `$set` lines of the JSON Lines
//! variant, the document's keys but `messages`) are kept as they come and read at the end.

use super::read_message;
use crate::formats::LoadError;
use crate::formats::json::{JsonLine, json_line};
use crate::formats::turns::{Session, name_after_session};
use crate::model::{Format, Step, Trajectory};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

/// Messages the bounded read waits after a message's first version before reading it.
pub const REWRITE_WINDOW: usize = 64;
/// Unreadable lines whose warnings are kept; past it they are only counted.
const LINE_WARNINGS: usize = 64;

/// A session being read: its fields so far, the messages not read yet, the steps.
pub struct Messages<'a> {
    path: &'a Path,
    session: Session,
    header: Map<String, Value>,
    /// Read from JSON Lines (else a document's `messages`).
    lines: bool,
    /// JSON Lines messages not read yet (the last version of each, in the order of the
    /// first) and where each sits: by id, its number among all messages.
    waiting: VecDeque<Value>,
    positions: HashMap<String, usize>,
    /// Messages read so far (the number of `waiting`'s first).
    read: usize,
    /// Messages read before the end, when they are: the hashes of their ids, to tell a late
    /// re-write from a new message.
    read_ids: Option<HashSet<u64>>,
    /// Lines skipped, said after what the messages say (as the whole read reads the
    /// messages at the end), and how many more were not kept.
    line_warnings: Vec<String>,
    more_line_warnings: usize,
}

impl<'a> Messages<'a> {
    /// The whole read of a JSON Lines session (`lines`) or of a document.
    pub fn new(path: &'a Path, lines: bool) -> Messages<'a> {
        let mut session = Session::new(Trajectory::new(path, Format::GeminiCli));
        session.steps.trajectory.format_detail =
            Some(if lines { "jsonl" } else { "json" }.to_string());
        Messages {
            path,
            session,
            header: Map::new(),
            lines,
            waiting: VecDeque::new(),
            positions: HashMap::new(),
            read: 0,
            read_ids: None,
            line_warnings: Vec::new(),
            more_line_warnings: 0,
        }
    }

    /// The bounded read: steps let go as they finish ([`Messages::take_released`]), JSON
    /// Lines messages read [`REWRITE_WINDOW`] messages after they first come; the message
    /// pool kept only if `keep_pool` (the lazy open's index, whose contexts need it).
    pub fn releasing(path: &'a Path, lines: bool, keep_pool: bool) -> Messages<'a> {
        let mut messages = Messages::new(path, lines);
        messages.session.release_steps(keep_pool);
        messages.read_ids = Some(HashSet::new());
        messages
    }

    /// Whether it reads JSON Lines.
    pub fn is_lines(&self) -> bool {
        self.lines
    }

    /// Line `line_no` (1-based) of the JSON Lines variant; `is_last` when nothing follows it.
    pub fn line(&mut self, line_no: usize, bytes: &[u8], is_last: bool) {
        self.read_line(json_line(self.path, line_no, bytes, is_last));
    }

    /// An item of a session document's `messages`, which starts on line `line_no`.
    pub fn item_at(&mut self, line_no: usize, bytes: &[u8]) -> Result<(), LoadError> {
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|err| LoadError::json(self.path, &err, line_no.saturating_sub(1)))?;
        self.item(&value);
        Ok(())
    }

    /// A session document's fields as cut around its `messages` (left empty).
    pub fn fields(&mut self, bytes: &[u8]) -> Result<(), LoadError> {
        let value: Value =
            serde_json::from_slice(bytes).map_err(|err| LoadError::json(self.path, &err, 0))?;
        self.document(value)
    }

    /// A line of the JSON Lines variant, or the warning saying why it could not be read.
    pub fn read_line(&mut self, line: Result<JsonLine, String>) {
        let line = match line {
            Ok(line) => line,
            Err(warning) => return self.line_warning(warning),
        };
        let Value::Object(mut record) = line.value else {
            return;
        };
        if let Some(Value::Object(set)) = record.remove("$set") {
            self.header.extend(set);
            return;
        }
        if record.contains_key("type") && record.contains_key("id") {
            self.rewritable(line.line, record);
        } else if record.keys().any(|k| k.starts_with('$')) {
            let update = record.keys().next().cloned().unwrap_or_default();
            self.line_warning(format!(
                "{}:{}: session update {update} not applied",
                self.path.display(),
                line.line,
            ));
        } else {
            self.header.extend(record);
        }
    }

    /// A message of a session document, read at once (a document re-writes nothing).
    pub fn item(&mut self, message: &Value) {
        self.read += 1;
        read_message(&mut self.session, message);
    }

    /// A session document's fields: the object around `messages`, which must be a list.
    pub fn document(&mut self, fields: Value) -> Result<(), LoadError> {
        let Value::Object(mut fields) = fields else {
            return Err(self.no_messages());
        };
        if !matches!(fields.remove("messages"), Some(Value::Array(_))) {
            return Err(self.no_messages());
        }
        self.header.extend(fields);
        Ok(())
    }

    fn no_messages(&self) -> LoadError {
        LoadError::invalid(self.path, "a Gemini CLI session without a `messages` list")
    }

    /// A JSON Lines message: a new one waits, a re-write replaces the waiting version.
    fn rewritable(&mut self, line_no: usize, record: Map<String, Value>) {
        let id = record.get("id").map(Value::to_string).unwrap_or_default();
        if let Some(&at) = self.positions.get(&id) {
            if let Some(slot) = self.waiting.get_mut(at - self.read) {
                *slot = Value::Object(record);
            }
            return;
        }
        if self
            .read_ids
            .as_ref()
            .is_some_and(|ids| ids.contains(&hash(&id)))
        {
            return self.line_warning(format!(
                "{}:{line_no}: message {id} re-written more than {REWRITE_WINDOW} messages \
                 after it was first written; this version is not read (a big file is read in \
                 bounded memory)",
                self.path.display()
            ));
        }
        self.positions.insert(id, self.read + self.waiting.len());
        self.waiting.push_back(Value::Object(record));
        if self.read_ids.is_some() {
            while self.waiting.len() > REWRITE_WINDOW {
                self.read_next();
            }
        }
    }

    /// Reads the first waiting message.
    fn read_next(&mut self) {
        let Some(message) = self.waiting.pop_front() else {
            return;
        };
        let id = message.get("id").map(Value::to_string).unwrap_or_default();
        self.positions.remove(&id);
        if let Some(ids) = &mut self.read_ids {
            ids.insert(hash(&id));
        }
        self.read += 1;
        read_message(&mut self.session, &message);
    }

    fn line_warning(&mut self, warning: String) {
        if self.line_warnings.len() < LINE_WARNINGS {
            self.line_warnings.push(warning);
        } else {
            self.more_line_warnings += 1;
        }
    }

    /// The steps let go since the last call (none unless [`Messages::releasing`]).
    pub fn take_released(&mut self) -> Vec<Step> {
        self.session.take_released()
    }

    /// The kept pool's messages that nothing later changes, taken from its front (none
    /// unless the pool is kept while steps are let go).
    pub fn take_settled(&mut self) -> Vec<crate::model::Message> {
        self.session.steps.take_settled()
    }

    /// The trajectory, with the steps not let go; an error when the file holds neither a
    /// session id nor a message.
    pub fn finish(mut self) -> Result<Vec<Trajectory>, LoadError> {
        while !self.waiting.is_empty() {
            self.read_next();
        }
        if self.header.get("sessionId").is_none() && self.read == 0 {
            return Err(LoadError::invalid(
                self.path,
                "no Gemini CLI session records",
            ));
        }
        let steps = &mut self.session.steps;
        if let Some(Value::String(id)) = self.header.get("sessionId") {
            name_after_session(&mut steps.trajectory, id);
        }
        for warning in self.line_warnings {
            steps.warn(warning);
        }
        steps.count_dropped_warnings(self.more_line_warnings);
        // The last messages, read just now, may have let steps go: they come first.
        let mut steps = self.session.take_released();
        let mut trajectory = self.session.finish();
        steps.append(&mut trajectory.steps);
        trajectory.steps = steps;
        Ok(vec![trajectory])
    }
}

/// An id's hash: what is kept of each message read before the end.
fn hash(id: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    id.hash(&mut hasher);
    hasher.finish()
}
