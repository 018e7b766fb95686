//! OpenHands events → steps, with the chat the model saw rebuilt around them.
//!
//! A step is one agent action (run, edit, think, finish, message, …) and the observations
//! whose `cause` is its id. OpenHands does not store prompts, so each step's context is
//! rebuilt as the chat so far — system prompt, user messages, the model's earlier tool calls
//! and their results, condensations applied — and marked reconstructed. Actions that came out
//! of one model response share its context and its token count.

use super::action_text::{public_args, render};
use super::clock::elapsed;
use super::event::{Accumulated, RawEvent};
use crate::formats::task::task_from_prompt;
use crate::model::{Exactness, Message, Step, StepContext, ToolCall, Trajectory, Usage};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// Actions that are bookkeeping, not something the agent did.
const NOT_STEPS: &[&str] = &[
    "system",
    "recall",
    "change_agent_state",
    "null",
    "condensation",
    "condensation_request",
    "pause",
    "resume",
];

/// Agent states that say the run is still going; any other is how it ended (so far).
const TRANSIENT_STATES: &[&str] = &["loading", "init", "running", "user_confirmed"];

/// Steps started after a step before a releasing builder lets it go: an observation that
/// answers its action that much later is lost to that read (the whole read keeps it).
const SETTLE: usize = 64;

/// Reads `events` into `trajectory`'s steps and message pool. Sets the exit status from the
/// last agent state (or a finish action), and the task, model and agent when not yet known.
pub fn build(trajectory: &mut Trajectory, events: Vec<RawEvent>) {
    let placeholder = Trajectory::new(&trajectory.path, trajectory.format);
    let mut builder = Builder::new(std::mem::replace(trajectory, placeholder));
    for event in &events {
        builder.event(event);
    }
    *trajectory = builder.finish();
}

/// Builds a trajectory from its events as they come, one at a time.
pub struct Builder {
    t: Trajectory,
    /// The conversation so far: (event id, message in the pool).
    chat: Vec<(Option<i64>, u32)>,
    /// Action event id → index of its step in `t.steps`.
    step_of_action: HashMap<i64, usize>,
    /// Model response id → the context of the first step it produced.
    response_context: HashMap<String, StepContext>,
    /// Metrics accumulated as of the last event that carried them.
    metrics: Option<Accumulated>,
    state: Option<String>,
    finished: bool,
    /// Ids of the events read so far.
    seen: HashSet<i64>,
    /// Observations that answer no action in the log.
    orphans: usize,
    /// Whether a condensation made the chat differ from the pool's first messages.
    condensed: bool,
    /// Set when steps are let go as they settle (the bounded read of a big file):
    /// `t.steps` then holds the steps from `base` on, and the pool is only counted unless
    /// kept (the lazy open's index, whose steps show their contexts).
    release: Option<Release>,
}

/// What a releasing builder keeps of what it let go.
#[derive(Default)]
struct Release {
    base: usize,
    ready: Vec<Step>,
    keep_pool: bool,
    pool_len: usize,
}

impl Builder {
    pub fn new(trajectory: Trajectory) -> Builder {
        Builder {
            t: trajectory,
            chat: Vec::new(),
            step_of_action: HashMap::new(),
            response_context: HashMap::new(),
            metrics: None,
            state: None,
            finished: false,
            seen: HashSet::new(),
            orphans: 0,
            condensed: false,
            release: None,
        }
    }

    /// Lets steps go once [`SETTLE`] steps have started after them
    /// ([`Builder::take_released`]); keeps the message pool only if `keep_pool`.
    pub fn release_steps(&mut self, keep_pool: bool) {
        self.release = Some(Release {
            keep_pool,
            ..Release::default()
        });
    }

    /// The steps let go since the last call, in order.
    pub fn take_released(&mut self) -> Vec<Step> {
        self.release
            .as_mut()
            .map(|r| std::mem::take(&mut r.ready))
            .unwrap_or_default()
    }

    /// Steps started so far, those let go included.
    fn step_total(&self) -> usize {
        self.release.as_ref().map_or(0, |r| r.base) + self.t.steps.len()
    }

    fn push_step(&mut self, step: Step) {
        self.t.steps.push(step);
        let Some(release) = &mut self.release else {
            return;
        };
        if self.t.steps.len() > SETTLE {
            let done = self.t.steps.len() - SETTLE;
            release.ready.extend(self.t.steps.drain(..done));
            release.base += done;
        }
    }

    fn step_mut(&mut self, index: usize) -> Option<&mut Step> {
        let base = self.release.as_ref().map_or(0, |r| r.base);
        self.t.steps.get_mut(index.checked_sub(base)?)
    }

    fn push_message(&mut self, message: Message) -> u32 {
        match &mut self.release {
            Some(release) if !release.keep_pool => {
                release.pool_len += 1;
                u32::try_from(release.pool_len - 1).unwrap_or(u32::MAX)
            }
            _ => self.t.push_message(message),
        }
    }

    pub fn event(&mut self, event: &RawEvent) {
        if let Some(id) = event.id {
            self.seen.insert(id);
        }
        if let Some(state) = event.agent_state()
            && !TRANSIENT_STATES.contains(&state)
        {
            self.state = Some(state.to_string());
        }
        if let Some(kind) = event.action() {
            self.action(event, kind);
        } else if let Some(kind) = event.observation() {
            self.observation(event, kind);
        }
    }

    fn action(&mut self, event: &RawEvent, kind: &str) {
        let source = event.source.0.as_str();
        match kind {
            "system" => {
                let text = event.arg("content").unwrap_or(&event.message.0);
                self.say(event.id, Message::system(text));
                if self.t.agent.is_none() {
                    self.t.agent = event.arg("agent_class").map(String::from);
                }
            }
            "message" if source != "agent" => {
                let text = event.arg("content").unwrap_or(&event.message.0).to_string();
                if self.t.task.is_none() && source == "user" {
                    self.t.task = Some(task_from_prompt(&text));
                }
                self.say(event.id, Message::user(text));
            }
            "condensation" => self.condense(event),
            _ if NOT_STEPS.contains(&kind) || source != "agent" => {}
            _ => self.step(event, kind),
        }
    }

    fn step(&mut self, event: &RawEvent, kind: &str) {
        if kind == "finish" {
            self.finished = true;
        }
        let response = event.response();
        if self.t.model.is_none() {
            self.t.model = response.as_ref().and_then(|r| r.model()).map(String::from);
        }
        let response_calls = response
            .as_ref()
            .map(|r| r.tool_calls())
            .unwrap_or_default();
        let own_call = event.tool_call_id().and_then(|id| {
            response_calls
                .iter()
                .find(|c| c.id.as_deref() == Some(id))
                .cloned()
                .or_else(|| synthetic_call(event, id))
        });
        let thought = match kind {
            "message" => event.arg_text("content"),
            _ => event.arg_text("thought"),
        };
        let response_text = response.as_ref().map(|r| r.text());
        let mut step = Step {
            action: render(event, kind, own_call.as_ref()),
            tool: Some(event.function_name().unwrap_or(kind).to_string()),
            response: response_text.clone().unwrap_or_default(),
            timestamp: event.timestamp().map(String::from),
            ..Step::default()
        };
        let response_id = response.as_ref().and_then(|r| r.id());
        let shared = response_id.and_then(|id| self.response_context.get(id).cloned());
        step.usage = self.usage(event, response.as_ref().map(|r| r.usage()));
        step.context = Some(match shared {
            Some(context) => {
                // A later action of the same response: same model call, tokens counted once.
                step.usage.tokens_in = None;
                step.usage.tokens_out = None;
                context
            }
            None => {
                let context = self.context();
                let mut message =
                    Message::assistant(match (&event.tool_call_metadata, response_text) {
                        (Some(_), Some(text)) => text,
                        (Some(_), None) => thought.clone(),
                        (None, _) => spoken(&thought, &step.action),
                    });
                message.tool_calls = if response_calls.is_empty() {
                    own_call.iter().cloned().collect()
                } else {
                    response_calls
                };
                self.say(event.id, message);
                if let Some(id) = response_id {
                    self.response_context
                        .insert(id.to_string(), context.clone());
                }
                context
            }
        });
        step.thought = thought;
        step.tool_calls = own_call.into_iter().collect();
        if let Some(id) = event.id {
            self.step_of_action.insert(id, self.step_total());
        }
        self.push_step(step);
    }

    fn observation(&mut self, event: &RawEvent, kind: &str) {
        if matches!(kind, "null" | "agent_state_changed") {
            return;
        }
        let step = event
            .cause
            .and_then(|c| self.step_of_action.get(&c).copied());
        let Some(index) = step else {
            if kind == "error" && event.cause.is_none() {
                self.rejected_answer(event);
            } else if event.cause.is_some_and(|c| !self.seen.contains(&c)) {
                self.orphans += 1;
            }
            return;
        };
        let for_model = event.observation_for_model();
        let Some(step) = self.step_mut(index) else {
            return;
        };
        if step.observation.is_empty() {
            if let (Some(start), Some(end)) = (step.timestamp.as_deref(), event.timestamp()) {
                step.duration_s = elapsed(start, end);
            }
        } else {
            step.observation.push('\n');
        }
        // As the model read it: OpenHands frames command output with a prefix and suffix
        // (`[The command has no new output after 30 seconds…]`) that rules must see.
        step.observation.push_str(&for_model);
        if step.exit_code.is_none() {
            step.exit_code = event.exit_code();
        }
        if matches!(kind, "error" | "user_rejected") {
            step.failed = true;
        }
        let call_id = event
            .tool_call_id()
            .map(String::from)
            .or_else(|| step.tool_calls.first().and_then(|c| c.id.clone()));
        let message = match call_id {
            Some(id) => {
                let mut m = Message::tool(for_model);
                m.tool_call_id = Some(id);
                m.name = event
                    .function_name()
                    .map(String::from)
                    .or_else(|| step.tool.clone());
                m
            }
            None => Message::user(for_model),
        };
        self.say(event.id, message);
    }

    /// An error observation that answers no action: OpenHands could not turn the model's
    /// answer into an action (bad tool arguments, …). A model call of its own, and failed.
    fn rejected_answer(&mut self, event: &RawEvent) {
        let step = Step {
            observation: event.content.0.clone(),
            failed: true,
            tool: Some("(error)".into()),
            timestamp: event.timestamp().map(String::from),
            context: Some(self.context()),
            ..Step::default()
        };
        self.push_step(step);
        let text = format!(
            "{}\n[Error occurred in processing last action]",
            event.content.0
        );
        self.say(event.id, Message::user(text));
    }

    /// OpenHands' condenser drops events from what the model sees and may put a summary in
    /// their place.
    fn condense(&mut self, event: &RawEvent) {
        let ids: HashSet<i64> = match event.args.get("forgotten_event_ids") {
            Some(Value::Array(ids)) => ids.iter().filter_map(Value::as_i64).collect(),
            _ => {
                let start = event
                    .args
                    .get("forgotten_events_start_id")
                    .and_then(Value::as_i64);
                let end = event
                    .args
                    .get("forgotten_events_end_id")
                    .and_then(Value::as_i64);
                match (start, end) {
                    (Some(s), Some(e)) if e >= s && e - s < 1_000_000 => (s..=e).collect(),
                    _ => HashSet::new(),
                }
            }
        };
        self.chat
            .retain(|(id, _)| id.is_none_or(|id| !ids.contains(&id)));
        self.condensed = true;
        if let Some(summary) = event.arg("summary").filter(|s| !s.is_empty()) {
            let at = event
                .args
                .get("summary_offset")
                .and_then(Value::as_u64)
                .map_or(self.chat.len(), |o| (o as usize).min(self.chat.len()));
            let index = self.push_message(Message::user(summary));
            self.chat.insert(at, (event.id, index));
        }
    }

    fn say(&mut self, event_id: Option<i64>, message: Message) {
        let index = self.push_message(message);
        self.chat.push((event_id, index));
    }

    /// The chat so far: the pool's first messages until a condensation rewrites it, then
    /// the messages it kept.
    fn context(&self) -> StepContext {
        if self.condensed {
            let ids = self.chat.iter().map(|(_, m)| *m).collect();
            StepContext::list(Exactness::Reconstructed, ids)
        } else {
            StepContext::prefix(Exactness::Reconstructed, self.chat.len())
        }
    }

    /// This step's tokens from its model response; its cost (and tokens, when the response
    /// is not logged) from the growth of the accumulated metrics.
    fn usage(&mut self, event: &RawEvent, from_response: Option<Usage>) -> Usage {
        let mut usage = from_response.unwrap_or_default();
        if let Some(now) = Accumulated::of(&event.llm_metrics) {
            let before = self.metrics.unwrap_or_default();
            let cost = now.cost - before.cost;
            if cost > 0.0 {
                usage.cost = Some(cost);
            }
            if usage.tokens_in.is_none() && now.tokens_in > before.tokens_in {
                usage.tokens_in = Some(now.tokens_in - before.tokens_in);
                usage.tokens_out = Some(now.tokens_out.saturating_sub(before.tokens_out));
            }
            self.metrics = Some(now);
        }
        usage
    }

    /// The trajectory, with the steps not let go.
    pub fn finish(self) -> Trajectory {
        let mut t = self.t;
        t.exit_status = self
            .state
            .or_else(|| self.finished.then(|| "finished".to_string()));
        if self.orphans > 0 {
            t.warnings.push(format!(
                "{} observation(s) answer no action in the log; they are not shown",
                self.orphans
            ));
        }
        t
    }
}

/// The tool call behind an action whose model response is not logged, rebuilt from the
/// action's arguments.
fn synthetic_call(event: &RawEvent, id: &str) -> Option<ToolCall> {
    let name = event.function_name()?;
    let arguments = public_args(&event.args)
        .map(|a| a.to_string())
        .unwrap_or_default();
    Some(ToolCall {
        id: Some(id.to_string()),
        name: name.to_string(),
        arguments,
    })
}

/// What a prompt-based (non function-calling) agent said: its thought, then its action.
fn spoken(thought: &str, action: &str) -> String {
    match (thought.trim().is_empty(), action.trim().is_empty()) {
        (_, true) => thought.to_string(),
        (true, false) => action.to_string(),
        (false, false) => format!("{thought}\n\n{action}"),
    }
}
