//! A big chat log read a message at a time as the bounded read ([`crate::formats::stream`])
//! cuts it (the lines of a JSON Lines log, or the items of a top-level list): the steps
//! [`super::parse`] builds, each let go once nothing later can change it, and the message
//! pool only counted (a listing, a tally or an export of a 1 GB chat log) or kept (the lazy
//! open, whose steps show their contexts: the pool is what a context indexes into).
//!
//! A step is let go once a later step has started and every call of it that has an id has
//! its answer, or 512 steps later whatever it still waits for. What this read leaves out,
//! by design: a tool message answering (by id) a step already let go goes to the latest step
//! (the whole read finds the step), and a line holding a whole `{"messages": [...]}`
//! conversation among lines of single messages is skipped with a warning (the whole read
//! would read the file as conversations; the bounded read is chosen only when the first
//! lines are single messages).

use super::{RawMessage, raw_message, step_from, to_message};
use crate::formats::LoadError;
use crate::formats::json::json_line;
use crate::formats::task::task_from_prompt;
use crate::model::{Format, Role, Step, Trajectory};
use serde_json::Value;
use std::collections::VecDeque;
use std::path::Path;

/// Steps a step may wait for the answer to one of its calls before it is let go anyway.
const WAIT_STEPS: usize = 512;

/// A step not yet let go.
struct Open {
    step: Step,
    /// Ids of its calls not answered yet.
    waiting: Vec<String>,
    /// Steps started before it.
    started: usize,
}

/// The trajectory so far (header, task, warnings) and the steps still open.
pub struct Messages<'a> {
    path: &'a Path,
    /// Read from JSON Lines (else the items of a list).
    lines: bool,
    trajectory: Trajectory,
    open: VecDeque<Open>,
    released: Vec<Step>,
    steps: usize,
    pool: usize,
    /// Keep the message pool in `trajectory.messages` (else only counted in `pool`).
    keep_pool: bool,
    unknown_roles: usize,
    records: usize,
    /// Lines skipped, said after what the messages say (as the whole read orders them).
    line_warnings: Vec<String>,
}

impl<'a> Messages<'a> {
    /// A reader of JSON Lines (`lines`) or of a list's items, keeping the message pool only
    /// if `keep_pool`.
    pub fn new(path: &'a Path, lines: bool, keep_pool: bool) -> Messages<'a> {
        Messages {
            path,
            lines,
            trajectory: Trajectory::new(path, Format::ChatMessages),
            open: VecDeque::new(),
            released: Vec::new(),
            steps: 0,
            pool: 0,
            keep_pool,
            unknown_roles: 0,
            records: 0,
            line_warnings: Vec::new(),
        }
    }

    /// Whether it reads JSON Lines.
    pub fn is_lines(&self) -> bool {
        self.lines
    }

    /// Line `line_no` of a JSON Lines log (`is_last` when nothing follows it).
    pub fn line(&mut self, line_no: usize, bytes: &[u8], is_last: bool) {
        match json_line::<Value>(self.path, line_no, bytes, is_last) {
            Ok(line) if line.value.get("messages").is_some() => {
                self.line_warnings.push(format!(
                    "{}:{line_no}: a whole conversation among single messages; skipped",
                    self.path.display()
                ));
            }
            Ok(line) => self.message(&raw_message(&line.value)),
            Err(warning) => self.line_warnings.push(warning),
        }
    }

    /// An item of a top-level list, which starts on line `line_no`.
    pub fn item(&mut self, line_no: usize, bytes: &[u8]) -> Result<(), LoadError> {
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|err| LoadError::json(self.path, &err, line_no.saturating_sub(1)))?;
        self.message(&raw_message(&value));
        Ok(())
    }

    /// What [`super::build`] does with one message.
    fn message(&mut self, raw: &RawMessage) {
        self.records += 1;
        let Some(role) = Role::parse(&raw.role.0) else {
            self.unknown_roles += 1;
            return;
        };
        let message = to_message(raw, role);
        match role {
            Role::Assistant => {
                let step = step_from(raw, &message, self.pool);
                let waiting = step
                    .tool_calls
                    .iter()
                    .filter_map(|c| c.id.clone())
                    .collect();
                self.open.push_back(Open {
                    step,
                    waiting,
                    started: self.steps,
                });
                self.steps += 1;
            }
            Role::Tool => self.answer(message.tool_call_id.as_deref(), &message.content),
            Role::User if self.trajectory.task.is_none() => {
                let task = task_from_prompt(&message.content);
                self.trajectory.task = (!task.is_empty()).then_some(task);
            }
            Role::User | Role::System => {}
        }
        self.pool += 1;
        if self.keep_pool {
            self.trajectory.push_message(message);
        }
        self.release();
    }

    /// [`super::answer`] among the open steps.
    fn answer(&mut self, id: Option<&str>, content: &str) {
        let by_id = id.and_then(|id| {
            self.open.iter().rposition(|o| {
                o.step
                    .tool_calls
                    .iter()
                    .any(|c| c.id.as_deref() == Some(id))
            })
        });
        let Some(index) = by_id.or_else(|| self.open.len().checked_sub(1)) else {
            self.trajectory
                .warnings
                .push("a tool message before any assistant message".into());
            return;
        };
        let Some(open) = self.open.get_mut(index) else {
            return;
        };
        if let Some(id) = id {
            open.waiting.retain(|w| w != id);
        }
        let step = &mut open.step;
        if !step.observation.is_empty() {
            step.observation.push('\n');
        }
        step.observation.push_str(content);
    }

    /// Lets go, in order, the steps nothing later can change.
    fn release(&mut self) {
        while self.open.len() > 1 {
            let Some(first) = self.open.front() else {
                break;
            };
            if !first.waiting.is_empty() && self.steps - first.started < WAIT_STEPS {
                break;
            }
            if let Some(done) = self.open.pop_front() {
                self.released.push(done.step);
            }
        }
    }

    /// The steps let go since the last call.
    pub fn take_released(&mut self) -> Vec<Step> {
        std::mem::take(&mut self.released)
    }

    /// The kept pool's messages that nothing later changes, taken from its front (none
    /// unless the pool is kept while steps are let go).
    pub fn take_settled(&mut self) -> Vec<crate::model::Message> {
        // A message never changes once in the pool.
        std::mem::take(&mut self.trajectory.messages)
    }

    /// The trajectory, with the steps still open (and the pool, if kept).
    pub fn finish(mut self) -> Result<Vec<Trajectory>, LoadError> {
        if self.unknown_roles > 0 {
            self.trajectory.warnings.push(format!(
                "{} message(s) with a role other than system, user, assistant or tool skipped",
                self.unknown_roles
            ));
        }
        if self.pool == 0 {
            let why = match (self.lines, self.records) {
                (true, _) => "JSON Lines without chat messages",
                (false, 0) => "a chat log without messages",
                (false, _) => {
                    "no message has a chat role (system, user, assistant, tool): not a chat log"
                }
            };
            return Err(LoadError::invalid(self.path, why));
        }
        let mut trajectory = self.trajectory;
        trajectory.warnings.extend(self.line_warnings);
        trajectory.steps = self.open.into_iter().map(|o| o.step).collect();
        Ok(vec![trajectory])
    }
}
