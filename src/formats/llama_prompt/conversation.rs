//! The framed messages of a prompt log built into steps one at a time: the k-th assistant
//! message is step k, the tool messages after it its observation. A step is final once the
//! next message that is not a tool's comes; the bounded read lets it go then and only counts
//! the pool (a step's context is every message before it: a count is all it needs). The
//! latest message waits for the next, since the last one is read differently (an empty
//! assistant header is the model's turn to speak, not a step).

use super::calls::find_calls;
use super::frames::Framed;
use super::{preview, reports_error, role_of};
use crate::formats::action::render_calls;
use crate::formats::task::task_from_prompt;
use crate::model::{Exactness, Message, Role, Step, StepContext, Trajectory};

pub(super) struct Conversation {
    pub t: Trajectory,
    /// Steps are let go as they finish and the pool only counted.
    release: bool,
    pub released: Vec<Step>,
    pool: usize,
    framed: usize,
    latest: Option<Framed>,
    current: Option<Step>,
    steps: usize,
    /// Warnings met while building, after the framing's own.
    warnings: Vec<String>,
    finished: bool,
    /// The first user or system message that wraps the issue, and the first user message.
    wrapped: Option<String>,
    first_user: Option<String>,
}

impl Conversation {
    pub fn new(t: Trajectory, release: bool) -> Conversation {
        Conversation {
            t,
            release,
            released: Vec::new(),
            pool: 0,
            framed: 0,
            latest: None,
            current: None,
            steps: 0,
            warnings: Vec::new(),
            finished: false,
            wrapped: None,
            first_user: None,
        }
    }

    /// Takes the next framed message.
    pub fn message(&mut self, message: Framed) {
        self.framed += 1;
        if let Some(before) = self.latest.replace(message) {
            self.take(before, false);
        }
    }

    /// Messages framed so far.
    pub fn framed(&self) -> usize {
        self.framed
    }

    fn close_step(&mut self) {
        let Some(mut step) = self.current.take() else {
            return;
        };
        self.steps += 1;
        step.index = self.steps;
        self.finished |= step.tool_calls.iter().any(|c| c.name == "finish") && !step.failed;
        if self.release {
            self.released.push(step);
        } else {
            self.t.steps.push(step);
        }
    }

    fn take(&mut self, message: Framed, last: bool) {
        let role = role_of(&message.role, &mut self.warnings);
        if last && !message.terminated && role == Role::Assistant {
            if message.content.trim().is_empty() {
                // The header the agent opened for the next answer: the model's turn to speak.
                return;
            }
            self.warnings
                .push("the last assistant message has no `<|eot_id|>`: it may be cut off".into());
        }
        let mut pooled = Message::new(role, &message.content);
        match role {
            Role::Assistant => {
                self.close_step();
                let step_no = self.steps + 1;
                let found = find_calls(&message.content);
                for (text, why) in &found.failures {
                    self.warnings.push(format!(
                        "step {step_no}: could not parse tool call `{}`: {why}",
                        preview(text)
                    ));
                }
                pooled.tool_calls = found.calls.clone();
                let mut action = render_calls(&found.calls);
                if let Some((text, _)) = found.failures.first() {
                    if !action.is_empty() {
                        action.push('\n');
                    }
                    action.push_str(text);
                }
                self.current = Some(Step {
                    thought: found.prose,
                    tool: found
                        .calls
                        .first()
                        .map(|c| c.name.clone())
                        .or(found.failed_name),
                    action,
                    failed: !found.failures.is_empty(),
                    tool_calls: found.calls,
                    response: message.content.clone(),
                    // Everything before this answer, exactly as the model received it.
                    context: Some(StepContext::prefix(Exactness::Exact, self.pool)),
                    ..Step::default()
                });
            }
            Role::Tool => match self.current.as_mut() {
                Some(step) => {
                    if !step.observation.is_empty() {
                        step.observation.push('\n');
                    }
                    step.observation.push_str(message.content.trim_end());
                    if reports_error(&message.content) {
                        step.failed = true;
                    }
                }
                None => self
                    .warnings
                    .push("a tool message before any assistant message".into()),
            },
            Role::User | Role::System => self.close_step(),
        }
        if self.wrapped.is_none()
            && matches!(role, Role::User | Role::System)
            && message.content.contains("<problem_statement>")
        {
            self.wrapped = Some(message.content.clone());
        }
        if self.first_user.is_none() && role == Role::User {
            self.first_user = Some(message.content.clone());
        }
        self.pool += 1;
        if !self.release {
            self.t.push_message(pooled);
        }
    }

    /// The log has ended: the steps let go since [`Conversation::released`] was last taken,
    /// and the trajectory, its warnings the framing's (`framing`) then the steps'.
    pub fn finish(mut self, framing: Vec<String>) -> (Vec<Step>, Trajectory) {
        if let Some(last) = self.latest.take() {
            self.take(last, true);
        }
        self.close_step();
        let mut t = self.t;
        t.warnings = framing;
        t.warnings.append(&mut self.warnings);
        let wrapped = self.wrapped.or(self.first_user);
        t.task = wrapped
            .map(|w| task_from_prompt(&w))
            .filter(|task| !task.is_empty());
        if self.finished {
            t.exit_status = Some("finished".into());
        }
        (self.released, t)
    }
}
