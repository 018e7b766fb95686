//! The agent loop of a live continuation, as a pure state machine: [`AgentLoop::update`] takes
//! what happened ([`Event`]: the model answered, the actions ran, something failed) and returns
//! what to do next ([`Instruction`]: send a request, execute actions, write the fork, finish).
//!
//! It owns the conversation, parsing answers into actions (format errors are answered with the
//! original agent's message and the model is asked again), the limits (model calls, cost, wall
//! time, observation output) and the exit status. It does no I/O and reads no clock: the
//! driver (`replay::driver`) performs the instructions and reports the elapsed time with each event,
//! so every path is testable without a model or a shell.

use super::action::{Call, EnvAction, parse_answer};
use super::dialect::Dialect;
use super::executor::Observation;
use super::fork::LiveStep;
use crate::model::{Message, Usage};
use std::time::Duration;

/// Bounds on a live run. Every model call is a step, format errors included (as
/// mini-swe-agent counts them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoopLimits {
    pub max_steps: usize,
    /// Total cost in dollars, when the backend reports cost.
    pub max_cost: Option<f64>,
    pub max_wall: Option<Duration>,
    /// Bytes of observation text over the whole run.
    pub max_output: usize,
}

impl Default for LoopLimits {
    fn default() -> LoopLimits {
        LoopLimits {
            max_steps: 20,
            max_cost: None,
            max_wall: Some(Duration::from_secs(30 * 60)),
            max_output: 4 << 20,
        }
    }
}

/// A model answer, whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub message: Message,
    pub usage: Usage,
    pub duration_s: f64,
}

/// What happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Begin: the first request goes out.
    Start,
    Answered(Answer),
    /// The request failed; `partial` is whatever of the answer had arrived.
    BackendFailed {
        error: String,
        partial: Option<Message>,
    },
    /// The actions asked for by the last [`Instruction::Execute`] ran, one observation each.
    Executed(Vec<Observation>),
    /// The environment itself failed (not a failing command: that is an observation).
    ExecFailed(String),
    /// The user stopped the run; `partial` as for `BackendFailed`.
    Cancelled {
        partial: Option<Message>,
    },
}

/// What to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Instruction {
    /// Send these messages to the model and report [`Event::Answered`] (or a failure).
    SendRequest(Vec<Message>),
    /// Carry out these actions in order and report [`Event::Executed`].
    Execute(Vec<Call>),
    /// Append this step to the fork and write it.
    WriteFork(Box<LiveStep>),
    /// The run is over.
    Finish(Exit),
}

/// How a live run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Exit {
    /// In the words agents log: `Submitted`, `LimitsExceeded`, `CostLimitExceeded`,
    /// `TimeLimitExceeded`, `OutputLimitExceeded`, `BackendError`, `EnvironmentError`,
    /// `Cancelled`.
    pub status: &'static str,
    pub submission: Option<String>,
    /// For people: why, in one sentence.
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq)]
enum State {
    Idle,
    /// A request is out with these messages.
    Asking {
        sent: Vec<Message>,
    },
    /// These calls of this answer are running.
    Executing {
        sent: Vec<Message>,
        answer: Box<Answer>,
        calls: Vec<Call>,
    },
    Done,
}

/// The loop.
#[derive(Debug, Clone)]
pub struct AgentLoop {
    dialect: Dialect,
    limits: LoopLimits,
    conversation: Vec<Message>,
    state: State,
    steps: usize,
    format_errors: usize,
    cost: f64,
    output: usize,
}

impl AgentLoop {
    /// A loop that continues from `context` (the messages the model sees first).
    pub fn new(dialect: Dialect, limits: LoopLimits, context: Vec<Message>) -> AgentLoop {
        AgentLoop {
            dialect,
            limits,
            conversation: context,
            state: State::Idle,
            steps: 0,
            format_errors: 0,
            cost: 0.0,
            output: 0,
        }
    }

    /// Model calls so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Answers that were format errors so far.
    pub fn format_errors(&self) -> usize {
        self.format_errors
    }

    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// The conversation as the next request would send it.
    pub fn conversation(&self) -> &[Message] {
        &self.conversation
    }

    /// Advances the loop by `event`; `elapsed` is the wall time since the run started.
    pub fn update(&mut self, event: Event, elapsed: Duration) -> Vec<Instruction> {
        let state = std::mem::replace(&mut self.state, State::Done);
        match (state, event) {
            (State::Done, _) => Vec::new(),
            (state, Event::Cancelled { partial }) => {
                self.fail(state, "Cancelled", "stopped by the user", partial)
            }
            (State::Idle, Event::Start) => self.ask(),
            (State::Asking { sent }, Event::Answered(answer)) => {
                self.answered(sent, answer, elapsed)
            }
            (state @ State::Asking { .. }, Event::BackendFailed { error, partial }) => {
                self.fail(state, "BackendError", &error, partial)
            }
            (
                State::Executing {
                    sent,
                    answer,
                    calls,
                },
                Event::Executed(observations),
            ) => self.executed(sent, answer, calls, observations, elapsed),
            (State::Executing { sent, answer, .. }, Event::ExecFailed(error)) => {
                let mut step = self.step(sent, &answer, None);
                step.failed = true;
                step.observation = format!("[trajscope: the environment failed: {error}]");
                vec![
                    Instruction::WriteFork(Box::new(step)),
                    self.finish("EnvironmentError", None, error),
                ]
            }
            (state, event) => {
                // An event the state does not expect is a driver bug; ending the run keeps the
                // fork consistent instead of guessing.
                let detail = format!(
                    "unexpected {} while {}",
                    event_name(&event),
                    state_name(&state)
                );
                vec![self.finish("EnvironmentError", None, detail)]
            }
        }
    }

    fn ask(&mut self) -> Vec<Instruction> {
        let sent = self.conversation.clone();
        self.state = State::Asking { sent: sent.clone() };
        vec![Instruction::SendRequest(sent)]
    }

    fn answered(
        &mut self,
        sent: Vec<Message>,
        answer: Answer,
        elapsed: Duration,
    ) -> Vec<Instruction> {
        self.steps += 1;
        self.cost += answer.usage.cost.unwrap_or(0.0);
        match parse_answer(&self.dialect, &answer.message) {
            Err(error) => {
                self.format_errors += 1;
                let reply = Message::user(error.message.clone());
                let mut step = self.step(sent, &answer, None);
                step.observation = error.message.clone();
                step.action = format!("(format error: {})", error.reason);
                step.failed = true;
                step.replies = vec![reply.clone()];
                self.conversation.push(answer.message.clone());
                self.conversation.push(reply);
                self.output += error.message.len();
                self.next(vec![Instruction::WriteFork(Box::new(step))], elapsed)
            }
            Ok(calls) if calls.is_empty() => {
                // Llama agents answer without a call and are simply asked again.
                let step = self.step(sent, &answer, None);
                self.conversation.push(answer.message.clone());
                self.next(vec![Instruction::WriteFork(Box::new(step))], elapsed)
            }
            Ok(calls) => {
                self.state = State::Executing {
                    sent,
                    answer: Box::new(answer),
                    calls: calls.clone(),
                };
                vec![Instruction::Execute(calls)]
            }
        }
    }

    fn executed(
        &mut self,
        sent: Vec<Message>,
        answer: Box<Answer>,
        calls: Vec<Call>,
        observations: Vec<Observation>,
        elapsed: Duration,
    ) -> Vec<Instruction> {
        let mut step = self.step(sent, &answer, Some(&calls));
        let mut replies = Vec::new();
        let mut submission = None;
        for (call, obs) in calls.iter().zip(&observations) {
            self.output += obs.text.len();
            submission = submission.or_else(|| obs.submitted.clone());
            let reply = match &call.id {
                Some(id) => {
                    let mut m = Message::tool(obs.text.clone());
                    m.tool_call_id = Some(id.clone());
                    m
                }
                None => Message::user(obs.text.clone()),
            };
            replies.push(reply);
        }
        step.observation = observations
            .iter()
            .map(|o| o.text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        step.exit_code = observations.last().and_then(|o| o.exit_code.map(i64::from));
        step.failed = observations.iter().any(|o| o.is_error || o.timed_out);
        step.replies = replies.clone();
        self.conversation.push(answer.message.clone());
        self.conversation.extend(replies);
        let instructions = vec![Instruction::WriteFork(Box::new(step))];
        if let Some(patch) = submission {
            let mut instructions = instructions;
            instructions.push(self.finish("Submitted", Some(patch), "the agent submitted".into()));
            return instructions;
        }
        self.next(instructions, elapsed)
    }

    /// After a completed step: the next request, or the limit that ends the run.
    fn next(&mut self, mut instructions: Vec<Instruction>, elapsed: Duration) -> Vec<Instruction> {
        let limits = self.limits;
        let over = if self.steps >= limits.max_steps {
            Some((
                "LimitsExceeded",
                format!("{} model calls, the limit", self.steps),
            ))
        } else if limits.max_cost.is_some_and(|max| self.cost >= max) {
            Some((
                "CostLimitExceeded",
                format!("cost ${:.4} reached the limit", self.cost),
            ))
        } else if limits.max_wall.is_some_and(|max| elapsed >= max) {
            Some((
                "TimeLimitExceeded",
                format!("{:.0} s of wall time, the limit", elapsed.as_secs_f64()),
            ))
        } else if self.output > limits.max_output {
            Some((
                "OutputLimitExceeded",
                format!("{} bytes of observations, over the limit", self.output),
            ))
        } else {
            None
        };
        match over {
            Some((status, detail)) => instructions.push(self.finish(status, None, detail)),
            None => instructions.extend(self.ask()),
        }
        instructions
    }

    /// Ends the run on a failure or a cancel, recording the step in flight: the partial
    /// answer of a request, or the whole answer whose actions were running.
    fn fail(
        &mut self,
        state: State,
        status: &'static str,
        error: &str,
        partial: Option<Message>,
    ) -> Vec<Instruction> {
        let in_flight = match state {
            State::Asking { sent } => partial
                .filter(|m| !m.content.is_empty() || !m.tool_calls.is_empty())
                .map(|message| {
                    let answer = Answer {
                        message,
                        usage: Usage::default(),
                        duration_s: 0.0,
                    };
                    self.step(sent, &answer, None)
                }),
            State::Executing {
                sent,
                answer,
                calls,
            } => Some(self.step(sent, &answer, Some(&calls))),
            State::Idle | State::Done => None,
        };
        let mut instructions = Vec::new();
        if let Some(mut step) = in_flight {
            step.failed = true;
            step.observation = format!("[trajscope: {status}: {error}]");
            instructions.push(Instruction::WriteFork(Box::new(step)));
        }
        instructions.push(self.finish(status, None, error.to_string()));
        instructions
    }

    fn finish(
        &mut self,
        status: &'static str,
        submission: Option<String>,
        detail: String,
    ) -> Instruction {
        self.state = State::Done;
        Instruction::Finish(Exit {
            status,
            submission,
            detail,
        })
    }

    fn step(&self, sent: Vec<Message>, answer: &Answer, calls: Option<&[Call]>) -> LiveStep {
        let mut step = LiveStep::new(sent, answer.message.clone());
        step.thought = thought(&answer.message.content);
        step.action = calls
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| action_text(&c.action))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        step.usage = answer.usage;
        step.duration_s = Some(answer.duration_s);
        step
    }
}

/// The reasoning before the first fenced block (the whole text when there is none).
fn thought(text: &str) -> String {
    text.split("```").next().unwrap_or("").trim().to_string()
}

/// The action as a step's `action` field shows it: the whole command, or `name {args}`.
fn action_text(action: &EnvAction) -> String {
    match action {
        EnvAction::Shell { command } => command.clone(),
        EnvAction::Tool { name, args } => {
            format!("{name} {}", serde_json::Value::Object(args.clone()))
        }
        EnvAction::Submit => "submit".into(),
        EnvAction::Reject { message } => format!("(rejected) {message}"),
    }
}

fn event_name(event: &Event) -> &'static str {
    match event {
        Event::Start => "start",
        Event::Answered(_) => "answer",
        Event::BackendFailed { .. } => "backend failure",
        Event::Executed(_) => "observations",
        Event::ExecFailed(_) => "environment failure",
        Event::Cancelled { .. } => "cancel",
    }
}

fn state_name(state: &State) -> &'static str {
    match state {
        State::Idle => "idle",
        State::Asking { .. } => "waiting for the model",
        State::Executing { .. } => "executing",
        State::Done => "done",
    }
}

#[cfg(test)]
mod tests;
