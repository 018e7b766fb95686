//! One session built into a trajectory block by block, as the blocks come: the whole read
//! keeps its steps and message pool; the bounded read ([`Session::releasing`]) lets each
//! step go once nothing later can change it and only counts the pool (a context is a span
//! of it, so its numbers are all a step needs).

use super::blocks::{Block, Kind};
use super::{
    Banner, EditFormat, add_output, clears_history, file_stem, is_local_command, step_from_reply,
};
use crate::model::{Exactness, Format, Message, Step, StepContext, Trajectory};
use std::path::Path;

pub(super) struct Session {
    t: Trajectory,
    /// Steps and messages are let go (counted) rather than kept.
    release: bool,
    pub released: Vec<Step>,
    banner: Banner,
    /// A reply has come: the banner is read and the edit format known.
    replied: bool,
    edit_format: EditFormat,
    /// Messages in the pool so far (kept in `t.messages` unless releasing).
    pool: usize,
    /// The model sees the pool from `from` on (the last /clear): what it was not sent (the
    /// `/clear` itself, local commands) waits in `unsent` and joins the pool at the end, so
    /// each context is a span, not a list that grows with every step (quadratic memory).
    from: usize,
    unsent: Vec<Message>,
    /// Whether the last thing after a reply was only Aider's output: then that output was
    /// reflected back to the model (edit errors, lint errors) before the next reply.
    pending_reflection: bool,
    /// Output that follows a reply (before the user types again) is that step's
    /// observation; output after a user message answers their command (`/run`, `/add`),
    /// not a step.
    after_reply: bool,
    /// The latest step: later output may still add to it.
    open: Option<Step>,
    steps: usize,
    /// The last output block mentioned `KeyboardInterrupt`.
    interrupted: bool,
}

impl Session {
    /// A session that started at `started` (`None`: text before the first header).
    pub fn new(path: &Path, started: Option<&str>, release: bool) -> Session {
        let mut t = Trajectory::new(path, Format::Aider);
        t.agent = Some("aider".into());
        match started {
            Some(time) if !time.is_empty() => t.instance_id = time.to_string(),
            Some(_) => {}
            None => {
                t.instance_id = format!("{}#1", file_stem(path));
                t.warnings.push(
                    "text before the first `# aider chat started at` line: this session's start is not in the file"
                        .into(),
                );
            }
        }
        Session {
            t,
            release,
            released: Vec::new(),
            banner: Banner::default(),
            replied: false,
            edit_format: EditFormat::Blocks,
            pool: 0,
            from: 0,
            unsent: Vec::new(),
            pending_reflection: false,
            after_reply: false,
            open: None,
            steps: 0,
            interrupted: false,
        }
    }

    fn push_message(&mut self, message: Message) {
        self.pool += 1;
        if !self.release {
            self.t.push_message(message);
        }
    }

    fn hold_unsent(&mut self, message: Message) {
        if !self.release {
            self.unsent.push(message);
        }
    }

    /// Makes `step` the latest one; the one before can no longer change.
    fn open_step(&mut self, mut step: Step) {
        self.close_step();
        self.steps += 1;
        step.index = self.steps;
        self.open = Some(step);
    }

    fn close_step(&mut self) {
        if let Some(step) = self.open.take() {
            if self.release {
                self.released.push(step);
            } else {
                self.t.steps.push(step);
            }
        }
    }

    pub fn block(&mut self, block: Block) {
        match block.kind {
            Kind::User => {
                self.pending_reflection = false;
                self.after_reply = false;
                // Nothing after a user message changes an earlier step.
                self.close_step();
                let message = Message::user(block.text.clone());
                if clears_history(&block.text) {
                    self.hold_unsent(message);
                    self.from = self.pool;
                } else if is_local_command(&block.text) {
                    self.hold_unsent(message);
                } else {
                    if self.t.task.is_none() {
                        self.t.task = Some(block.text);
                    }
                    self.push_message(message);
                }
            }
            Kind::Output => {
                if !self.replied {
                    self.banner.read_block(&block.text);
                }
                self.interrupted = block.text.contains("KeyboardInterrupt");
                if let Some(step) = self.open.as_mut().filter(|_| self.after_reply) {
                    add_output(step, &block.text);
                    self.pending_reflection = true;
                } else if block.text.lines().any(|l| l.starts_with("Tokens: ")) {
                    // A model call that produced no reply (an API error, ^C while waiting):
                    // a failed step, as it cost tokens and the user saw it fail.
                    let mut step = Step {
                        failed: true,
                        context: Some(StepContext::span(
                            Exactness::Reconstructed,
                            self.from,
                            self.pool,
                        )),
                        ..Step::default()
                    };
                    add_output(&mut step, &block.text);
                    self.open_step(step);
                }
            }
            Kind::Reply => {
                if !self.replied {
                    self.replied = true;
                    self.edit_format = match self.banner.edit_format.as_deref() {
                        Some("whole") => EditFormat::Whole,
                        _ => EditFormat::Blocks,
                    };
                }
                if self.pending_reflection {
                    let observation = self.open.as_ref().map(|s| s.observation.clone());
                    if let Some(reflected) = observation.filter(|o| !o.trim().is_empty()) {
                        self.push_message(Message::user(reflected));
                    }
                }
                self.pending_reflection = false;
                self.after_reply = true;
                let context = StepContext::span(Exactness::Reconstructed, self.from, self.pool);
                self.push_message(Message::assistant(block.text.clone()));
                let (step, unterminated) = step_from_reply(&block.text, self.edit_format, context);
                if unterminated > 0 {
                    self.t.warnings.push(format!(
                        "step {}: {} edit block(s) cut off before `>>>>>>> REPLACE`",
                        self.steps + 1,
                        unterminated
                    ));
                }
                self.open_step(step);
            }
        }
    }

    /// The session has ended: the steps let go since the last [`Session::released`] was
    /// taken, and its trajectory (holding the others).
    pub fn finish(mut self) -> (Vec<Step>, Trajectory) {
        self.close_step();
        let banner = std::mem::take(&mut self.banner);
        let mut t = self.t;
        t.format_detail = match (&banner.version, &banner.edit_format) {
            (Some(v), Some(f)) => Some(format!("{v}, {f} edit format")),
            (Some(v), None) => Some(v.clone()),
            (None, Some(f)) => Some(format!("{f} edit format")),
            (None, None) => None,
        };
        t.model = banner.model;
        for message in self.unsent {
            t.push_message(message);
        }
        if self.interrupted {
            t.exit_status = Some("interrupted".into());
        }
        (self.released, t)
    }
}
