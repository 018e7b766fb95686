//! A mini-swe-agent trajectory built message by message: what the whole read does with the
//! `messages` array, fed one message at a time so that the bounded read
//! ([`crate::formats::stream`]) can hand a 1 GB file's messages over as it cuts them, and
//! let each step go once the next model call starts.
//!
//! The file's other keys (`info`, `trajectory_format`, `instance_id`) may come before or
//! after the messages: they are applied at the end, in the order the whole read applied
//! them, so both reads give the same trajectory.

use super::extra::Info;
use super::{
    MiniObject, RawMessage, add_observation, read_exit, read_info, rejected_reply,
    step_from_answer, to_message, usage,
};
use crate::formats::LoadError;
use crate::formats::task::task_from_prompt;
use crate::model::{Exactness, Format, Message, Role, Step, StepContext, Trajectory};
use serde_json::Value;
use std::path::Path;

/// The trajectory so far and the step still open.
pub struct Messages {
    trajectory: Trajectory,
    step: Option<Step>,
    tool_mode_step: bool,
    seen_task: bool,
    /// Messages read, `exit` ones included.
    seen: usize,
    /// Messages in the pool (kept, or only counted when releasing).
    pool: usize,
    /// `exit` messages, which override `info` and so are read after it.
    exits: Vec<RawMessage>,
    header: Option<MiniObject>,
    /// Let finished steps go ([`Messages::take_released`]).
    release: bool,
    /// Keep the message pool while letting steps go (the lazy open's index).
    keep_pool: bool,
    released: Vec<Step>,
}

impl Messages {
    pub fn new(path: &Path, release: bool) -> Messages {
        Messages {
            trajectory: Trajectory::new(path, Format::MiniSweAgent),
            step: None,
            tool_mode_step: false,
            seen_task: false,
            seen: 0,
            pool: 0,
            exits: Vec::new(),
            header: None,
            release,
            keep_pool: false,
            released: Vec::new(),
        }
    }

    /// Steps let go as they finish ([`Messages::take_released`]), the message pool kept so
    /// that each step's context is right: what the lazy open indexes.
    pub fn releasing_with_pool(path: &Path) -> Messages {
        Messages {
            keep_pool: true,
            ..Messages::new(path, true)
        }
    }

    /// What the last messages fed may have written: the step still open, the steps let go
    /// and not taken yet, and the pool's messages from `from` on (a reader fed whole texts
    /// slims them again before they are kept).
    pub fn fresh_mut(&mut self, from: usize) -> (Option<&mut Step>, &mut [Step], &mut [Message]) {
        let pool = &mut self.trajectory.messages;
        let from = from.min(pool.len());
        (self.step.as_mut(), &mut self.released, &mut pool[from..])
    }

    /// Messages held in the pool (those not taken yet).
    pub fn pool_len(&self) -> usize {
        self.trajectory.messages.len()
    }

    /// The pool's messages held so far, none of which changes once there (the lazy open
    /// packs them as it reads; contexts count every message, taken or not).
    pub fn take_pool(&mut self) -> Vec<Message> {
        std::mem::take(&mut self.trajectory.messages)
    }

    /// One item of `messages`, as JSON.
    pub fn message_value(&mut self, value: Value) -> Result<(), serde_json::Error> {
        self.message(serde_json::from_value(value)?);
        Ok(())
    }

    /// The top-level object with its `messages` left out (or empty).
    pub fn header_value(&mut self, value: Value) -> Result<(), serde_json::Error> {
        self.header(serde_json::from_value(value)?);
        Ok(())
    }

    pub(super) fn header(&mut self, header: MiniObject) {
        self.header = Some(header);
    }

    pub(super) fn message(&mut self, raw: RawMessage) {
        self.seen += 1;
        if raw.role.0 == "exit" {
            self.exits.push(raw);
            return;
        }
        let message = to_message(&raw);
        let context = StepContext::prefix(Exactness::Exact, self.pool);
        match message.role {
            Role::Assistant => {
                self.finish_step();
                self.tool_mode_step = !message.tool_calls.is_empty();
                self.step = Some(step_from_answer(&raw, &message, context));
            }
            Role::Tool => match self.step.as_mut() {
                Some(s) => add_observation(s, &message.content),
                None => self
                    .trajectory
                    .warnings
                    .push("a tool message before any answer".into()),
            },
            Role::User if !self.seen_task => {
                self.seen_task = true;
                self.trajectory.task = Some(task_from_prompt(&message.content));
            }
            Role::User => {
                let answers_text_step = self.answers_text_step();
                match self.step.as_mut() {
                    Some(s) if answers_text_step => add_observation(s, &message.content),
                    _ => {
                        // A model call whose answer was rejected (format error, timeout…):
                        // mini-swe-agent logs only the message that sent it back.
                        self.finish_step();
                        self.tool_mode_step = false;
                        let mut rejected = Step {
                            observation: message.content.clone(),
                            failed: true,
                            context: Some(context),
                            // 2.x keeps the rejected reply and its usage in the error's
                            // `extra`: the call happened and was paid for.
                            usage: usage(&raw.extra.0),
                            ..Step::default()
                        };
                        if let Some(reply) = rejected_reply(&raw.extra.0) {
                            rejected.thought = reply.clone();
                            rejected.response = reply;
                        }
                        let kind = raw.extra.0.interrupt_type.as_ref();
                        if let Some(kind) = kind.and_then(Value::as_str) {
                            rejected.tool = Some(format!("({kind})"));
                        }
                        self.push_step(rejected);
                    }
                }
            }
            Role::System => {}
        }
        self.pool += 1;
        if !self.release || self.keep_pool {
            self.trajectory.push_message(message);
        }
    }

    /// Whether a user message now is the open step's observation (text mode), not a model
    /// call whose answer was rejected.
    fn answers_text_step(&self) -> bool {
        self.step
            .as_ref()
            .is_some_and(|s| !self.tool_mode_step && s.observation.is_empty())
    }

    /// Whether a message of `role` (not `exit`) fed now would be an observation of the open
    /// step: a tool message, or a user message answering a text-mode step. The raw-byte
    /// read ([`super::sparse`]) feeds those with a stand-in text and reads the text itself.
    pub(super) fn observes(&self, role: Role) -> bool {
        match role {
            Role::Tool => self.step.is_some(),
            Role::User => self.seen_task && self.answers_text_step(),
            Role::Assistant | Role::System => false,
        }
    }

    /// Where the open step will be among the trajectory's steps (none are taken).
    pub(super) fn open_step(&self) -> Option<usize> {
        let before = self.released.len() + self.trajectory.steps.len();
        self.step.as_ref().map(|_| before)
    }

    fn finish_step(&mut self) {
        if let Some(step) = self.step.take() {
            self.push_step(step);
        }
    }

    fn push_step(&mut self, step: Step) {
        if self.release {
            self.released.push(step);
        } else {
            self.trajectory.steps.push(step);
        }
    }

    /// The steps finished since the last call (releasing only).
    pub fn take_released(&mut self) -> Vec<Step> {
        std::mem::take(&mut self.released)
    }

    /// The trajectory: the steps not taken yet, the header applied.
    pub fn finish(mut self) -> Result<Trajectory, LoadError> {
        if self.seen == 0 {
            return Err(LoadError::invalid(
                &self.trajectory.path,
                "mini-swe-agent trajectory without messages",
            ));
        }
        self.finish_step();
        let mut trajectory = self.trajectory;
        let mut steps = self.released;
        steps.append(&mut trajectory.steps);
        trajectory.steps = steps;
        let info = match self.header {
            Some(header) => {
                trajectory.format_detail = header
                    .trajectory_format
                    .map(|f| f.trim_start_matches("mini-swe-agent-").to_string())
                    .or_else(|| Some("1".into()));
                if let Some(id) = header.instance_id.filter(|id| !id.is_empty()) {
                    trajectory.instance_id = id;
                }
                header.info.0
            }
            None => {
                trajectory.format_detail = Some("message list".into());
                Info::default()
            }
        };
        read_info(&mut trajectory, &info);
        for exit in &self.exits {
            read_exit(&mut trajectory, exit);
        }
        trajectory.model = info.model_name().and_then(Value::as_str).map(String::from);
        Ok(trajectory)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A step is let go when the next model call starts, not at the end.
    #[test]
    fn steps_are_released_as_the_next_call_starts() {
        let mut reader = Messages::new(Path::new("x.traj.json"), true);
        let feed = |reader: &mut Messages, value: Value| reader.message_value(value).unwrap();
        feed(&mut reader, json!({"role": "system", "content": "sys"}));
        feed(&mut reader, json!({"role": "user", "content": "task"}));
        let mut released = 0;
        for n in 0..50 {
            feed(
                &mut reader,
                json!({"role": "assistant", "content": format!("```bash\necho {n}\n```")}),
            );
            feed(
                &mut reader,
                json!({"role": "user", "content": "<returncode>0</returncode>"}),
            );
            let steps = reader.take_released();
            released += steps.len();
            assert!(steps.iter().all(|s| s.exit_code == Some(0)));
            assert_eq!(released, n, "after call {n}");
        }
        let trajectory = reader.finish().unwrap();
        assert_eq!(
            trajectory.steps.len(),
            1,
            "only the last step is held to the end"
        );
        assert_eq!(trajectory.steps[0].action, "echo 49");
        assert!(trajectory.messages.is_empty(), "the pool is only counted");
    }
}
