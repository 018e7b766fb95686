//! Steps from a conversational agent log: model turns that call tools, answered later by
//! tool results matched by call id. Shared by the Claude Code and Codex loaders, whose logs
//! interleave the two and may spread one model turn over several records.
//!
//! Owns step assembly, the message pool and each step's reconstructed context (the messages
//! of the same agent since the last compaction). Knows nothing of either format's records:
//! the loaders decide what is a turn, a call, a result or a prompt.

use crate::model::{
    Exactness, Message, Step, StepContext, StepKind, ToolCall, ToolResult, Trajectory, Usage,
};
use std::collections::{HashMap, HashSet};

mod release;

/// Line warnings kept before the rest are only counted: a file with a thousand odd records
/// needs one line saying so, not a thousand.
const MAX_WARNINGS: usize = 20;

/// What came back for one tool call.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CallOutput {
    pub text: String,
    pub failed: bool,
    pub exit_code: Option<i64>,
    pub duration_s: Option<f64>,
    /// Structured data beyond the text, kept for the diff layer.
    pub data: Option<serde_json::Value>,
}

/// Where a call sits: (step, call) positions in the builder.
pub type CallAt = (usize, usize);

struct Draft {
    /// Pool index of the step's assistant message, which grows with the step.
    message: u32,
    /// The API message id that later records of the same turn carry (Claude Code).
    key: Option<String>,
    /// Whether later model output may still join this step.
    open: bool,
    calls: Vec<CallDraft>,
}

impl Draft {
    /// The draft of a step no model output joins (a user or compaction step).
    fn closed() -> Draft {
        Draft {
            message: u32::MAX,
            key: None,
            open: false,
            calls: Vec::new(),
        }
    }
}

struct CallDraft {
    action: String,
    output: Option<String>,
    expects_output: bool,
    /// Logs may time a call twice (an event and the output); the longest report wins.
    duration_s: Option<f64>,
}

/// Builds a trajectory's steps, message pool and contexts as records arrive in file order.
pub struct StepBuilder {
    pub trajectory: Trajectory,
    drafts: Vec<Draft>,
    calls: HashMap<String, CallAt>,
    /// Per agent: the pool messages its next step will see.
    windows: HashMap<Option<String>, Vec<u32>>,
    /// Agents whose context was compacted: their window is no longer "all their messages".
    compacted: HashSet<Option<String>>,
    /// Whether any message belongs to a named agent (a subagent), so that the main agent's
    /// window is no longer "all messages".
    named_agents: bool,
    last_step: HashMap<Option<String>, usize>,
    warnings_dropped: usize,
    /// Set when steps are released as they complete (the bounded read): `trajectory.steps`
    /// and `drafts` then hold the steps from `released.base` on.
    released: Option<release::Released>,
}

impl StepBuilder {
    pub fn new(trajectory: Trajectory) -> StepBuilder {
        StepBuilder {
            trajectory,
            drafts: Vec::new(),
            calls: HashMap::new(),
            windows: HashMap::new(),
            compacted: HashSet::new(),
            named_agents: false,
            last_step: HashMap::new(),
            warnings_dropped: 0,
            released: None,
        }
    }

    /// Notes something the loader read around; past [`MAX_WARNINGS`] only counted.
    pub fn warn(&mut self, text: String) {
        if self.trajectory.warnings.len() < MAX_WARNINGS {
            self.trajectory.warnings.push(text);
        } else {
            self.warnings_dropped += 1;
        }
    }

    /// Counts `n` warnings a reader dropped past its own cap (said with the others past
    /// [`MAX_WARNINGS`]).
    pub fn count_dropped_warnings(&mut self, n: usize) {
        self.warnings_dropped += n;
    }

    /// Adds a message the model saw (a prompt, instructions, a summary) to the pool and to
    /// the context of `agent`'s later steps.
    pub fn push_message(&mut self, agent: Option<&str>, message: Message) -> u32 {
        let agent = agent.map(String::from);
        self.named_agents |= agent.is_some();
        let id = self.pool_push(message.with_agent(agent.clone()));
        self.windows.entry(agent).or_default().push(id);
        id
    }

    /// A user's message in the middle of a session. After an answer without tool calls it
    /// is what came back to the agent: that step's observation. Either way it is context,
    /// and it ends the agent's turn.
    pub fn user_reply(&mut self, agent: Option<&str>, text: String) {
        if let Some(i) = self.last_step(agent)
            && self.draft(i).is_some_and(|d| d.calls.is_empty())
            && let Some(step) = self.step_mut(i)
        {
            append(&mut step.observation, &text, "\n");
        }
        self.close(agent);
        self.push_message(agent, Message::user(text));
    }

    /// A person's message to the agent: a step of its own (so that it shows in the step
    /// list and searches find it), and context for what follows. It ends the agent's turn.
    /// Its context is the conversation the person answered.
    pub fn user_step(&mut self, agent: Option<&str>, text: String, timestamp: Option<String>) {
        self.close(agent);
        let owned = agent.map(String::from);
        let context = self.context(&owned);
        self.trajectory.steps.push(Step {
            kind: StepKind::User,
            agent: owned,
            user: text.clone(),
            timestamp,
            context: Some(context),
            ..Step::default()
        });
        self.drafts.push(Draft::closed());
        self.push_message(agent, Message::user(text));
        self.release_done();
    }

    /// The model's context was compacted, and `summary` (when the log has it) replaced what
    /// came before: a compaction step in the list, the summary first in later contexts. A
    /// boundary record followed by its summary makes one step, whose context is what the
    /// compaction replaced.
    pub fn compaction_step(&mut self, agent: Option<&str>, summary: Option<String>) {
        let owned = agent.map(String::from);
        let same = self.trajectory.steps.last().is_some_and(|s| {
            s.kind == StepKind::Compaction && s.agent == owned && s.user.is_empty()
        });
        if !same {
            let replaced = self.context(&owned);
            self.compact(agent);
            self.trajectory.steps.push(Step {
                kind: StepKind::Compaction,
                agent: owned,
                context: Some(replaced),
                ..Step::default()
            });
            self.drafts.push(Draft::closed());
            self.release_done();
        }
        if let Some(summary) = summary {
            if let Some(step) = self.trajectory.steps.last_mut() {
                step.user = summary.clone();
            }
            let mut message = Message::user(summary);
            message.compaction = true;
            self.push_message(agent, message);
        }
    }

    /// Ends `agent`'s current step: later model output starts a new one.
    pub fn close(&mut self, agent: Option<&str>) {
        if let Some(i) = self.last_step(agent)
            && let Some(draft) = self.draft_mut(i)
        {
            draft.open = false;
        }
    }

    /// The model's context was compacted: later steps see only what follows.
    pub fn compact(&mut self, agent: Option<&str>) {
        self.close(agent);
        let agent = agent.map(String::from);
        if let Some(window) = self.windows.get_mut(&agent) {
            window.clear();
        }
        self.compacted.insert(agent);
    }

    /// `agent`'s most recent step.
    pub fn last_step(&self, agent: Option<&str>) -> Option<usize> {
        self.last_step.get(&agent.map(String::from)).copied()
    }

    /// `agent`'s current step, if model output may still join it and, when `key` is given,
    /// it was started by a record carrying the same key.
    pub fn open_step(&self, agent: Option<&str>, key: Option<&str>) -> Option<usize> {
        let i = self.last_step(agent)?;
        let draft = self.draft(i)?;
        (draft.open && (key.is_none() || draft.key.as_deref() == key)).then_some(i)
    }

    /// Starts a step; its context is everything `agent` has seen so far.
    pub fn start_step(
        &mut self,
        agent: Option<&str>,
        key: Option<&str>,
        timestamp: Option<String>,
    ) -> usize {
        let owned = agent.map(String::from);
        let context = self.context(&owned);
        let message = self.push_message(agent, Message::assistant(""));
        let index = self.step_total();
        self.trajectory.steps.push(Step {
            agent: owned.clone(),
            timestamp,
            context: Some(context),
            ..Step::default()
        });
        self.drafts.push(Draft {
            message,
            key: key.map(String::from),
            open: true,
            calls: Vec::new(),
        });
        self.last_step.insert(owned, index);
        self.release_done();
        index
    }

    /// Hidden reasoning (thinking, a reasoning summary).
    pub fn add_thought(&mut self, step: usize, text: &str) {
        let text = text.trim_end();
        let Some(step) = self.step_mut(step) else {
            return;
        };
        let thought = &mut step.thought;
        if !text.trim().is_empty() && !thought.contains(text) {
            append(thought, text, "\n\n");
        }
    }

    /// Visible text of the answer: the response, and part of the thought when the model
    /// goes on to act.
    pub fn add_text(&mut self, step: usize, text: &str) {
        let text = text.trim_end();
        let Some(s) = self.step_mut(step) else {
            return;
        };
        if text.trim().is_empty() || s.response.contains(text) {
            return;
        }
        append(&mut s.response, text, "\n\n");
        if !s.thought.contains(text) {
            append(&mut s.thought, text, "\n\n");
        }
        if let Some(message) = self.pool_message(step) {
            append(&mut message.content, text, "\n\n");
        }
    }

    /// A tool call of `step`, with the line a person reads for it. A call whose id the step
    /// already holds (the same record logged twice) is ignored: returns false.
    pub fn add_call(
        &mut self,
        step: usize,
        call: ToolCall,
        action: String,
        expects_output: bool,
    ) -> bool {
        if let Some(id) = &call.id {
            if self.calls.get(id).is_some_and(|&(s, _)| s == step) {
                return false;
            }
            let Some(draft) = self.draft(step) else {
                return false;
            };
            self.calls.insert(id.clone(), (step, draft.calls.len()));
        }
        if let Some(message) = self.pool_message(step) {
            message.tool_calls.push(call.clone());
        }
        let (Some(slot), Some(draft)) = (self.slot(step), self.draft_mut(step)) else {
            return false;
        };
        draft.calls.push(CallDraft {
            action,
            output: None,
            expects_output,
            duration_s: None,
        });
        self.trajectory.steps[slot].tool_calls.push(call);
        true
    }

    /// The call with this id (the latest, if a log reuses ids).
    pub fn call_at(&self, id: &str) -> Option<CallAt> {
        self.calls.get(id).copied()
    }

    /// The first call of `agent`'s latest step still waiting for its result: how results
    /// that name no call are matched.
    pub fn pending_call(&self, agent: Option<&str>) -> Option<CallAt> {
        let step = self.last_step(agent)?;
        let call = self
            .draft(step)?
            .calls
            .iter()
            .position(|c| c.expects_output && c.output.is_none())?;
        Some((step, call))
    }

    pub fn call(&self, (step, call): CallAt) -> Option<&ToolCall> {
        self.trajectory
            .steps
            .get(self.slot(step)?)?
            .tool_calls
            .get(call)
    }

    pub fn has_output(&self, (step, call): CallAt) -> bool {
        self.draft(step)
            .and_then(|d| d.calls.get(call))
            .is_some_and(|c| c.output.is_some())
    }

    /// What came back for the call at `at`; the text also joins the context.
    pub fn add_result(&mut self, at: CallAt, outcome: CallOutput) {
        let (step, call) = at;
        let Some(draft) = self.draft_mut(step).and_then(|d| d.calls.get_mut(call)) else {
            return;
        };
        let output = draft.output.get_or_insert_with(String::new);
        append(output, &outcome.text, "\n");
        let (id, name) = match self.call(at) {
            Some(c) => (c.id.clone(), c.name.clone()),
            None => (None, String::new()),
        };
        let agent = self.step_mut(step).and_then(|s| s.agent.clone());
        let mut message = Message::tool(outcome.text.clone());
        message.tool_call_id = id;
        message.name = Some(name);
        self.push_message(agent.as_deref(), message);
        self.annotate(at, outcome);
    }

    /// Facts about a call's run that carry no text (an exit code, a duration, a patch).
    pub fn annotate(&mut self, at: CallAt, outcome: CallOutput) {
        let (id, name) = match self.call(at) {
            Some(c) => (c.id.clone(), c.name.clone()),
            None => return,
        };
        if let (Some(d), Some(call)) = (
            outcome.duration_s,
            self.draft_mut(at.0).and_then(|s| s.calls.get_mut(at.1)),
        ) {
            call.duration_s = Some(call.duration_s.map_or(d, |old| old.max(d)));
        }
        let Some(step) = self.step_mut(at.0) else {
            return;
        };
        step.failed |= outcome.failed;
        if let Some(code) = outcome.exit_code {
            // A step's exit code is its first failing call's, else the first one logged.
            if step.exit_code.is_none_or(|c| c == 0) {
                step.exit_code = Some(code);
            }
        }
        if let Some(data) = outcome.data {
            step.tool_results.push(ToolResult {
                call_id: id,
                tool: name,
                data,
            });
        }
    }

    /// A result that answers no call the log shows: kept as context only.
    pub fn orphan_result(&mut self, agent: Option<&str>, id: Option<&str>, text: String) {
        let mut message = Message::tool(text);
        message.tool_call_id = id.map(String::from);
        self.push_message(agent, message);
    }

    /// Token and cost figures of the model call behind `step`. The records of one call
    /// repeat its figures (a later one may be more complete), so each field keeps the
    /// largest value seen rather than a sum.
    pub fn merge_usage(&mut self, step: usize, usage: Usage) {
        if let Some(step) = self.step_mut(step) {
            step.usage.keep_largest(&usage);
        }
    }

    /// What `agent`'s next step sees. While that is every message of the agent so far, a
    /// prefix of the pool says so in constant space; after a compaction, or for the main
    /// agent once subagents have spoken, the window is listed (compaction keeps it short).
    fn context(&self, agent: &Option<String>) -> StepContext {
        let whole = !self.compacted.contains(agent) && (agent.is_some() || !self.named_agents);
        if whole {
            StepContext::agent_prefix(Exactness::Reconstructed, self.pool_len(), agent.clone())
        } else {
            let window = self.windows.get(agent).cloned().unwrap_or_default();
            StepContext::list(Exactness::Reconstructed, window)
        }
    }

    fn pool_message(&mut self, step: usize) -> Option<&mut Message> {
        let index = self.pool_slot(self.draft(step)?.message as usize)?;
        self.trajectory.messages.get_mut(index)
    }

    /// The finished trajectory: actions and observations composed per step.
    pub fn finish(mut self) -> Trajectory {
        // The agent's last step, whatever a person said after it.
        let last = self
            .trajectory
            .steps
            .iter()
            .rposition(|s| s.kind == StepKind::Agent)
            .unwrap_or(0);
        let mut unanswered = self.released.as_ref().map_or(0, |r| r.unanswered);
        for (i, (step, draft)) in self
            .trajectory
            .steps
            .iter_mut()
            .zip(&self.drafts)
            .enumerate()
        {
            let open = compose(step, draft);
            // The last step's results may still be on their way (a live session).
            if i != last {
                unanswered += open;
            }
        }
        if unanswered > 0 {
            self.warn(format!(
                "{unanswered} tool call(s) have no result in the log (interrupted or denied?)"
            ));
        }
        if self.warnings_dropped > 0 {
            let dropped = self.warnings_dropped;
            self.trajectory
                .warnings
                .push(format!("… and {dropped} more warnings"));
        }
        self.trajectory
    }
}

/// Composes `step`'s action, tool, duration and observation from its calls; returns how
/// many of its calls still wait for a result.
fn compose(step: &mut Step, draft: &Draft) -> usize {
    if draft.calls.is_empty() {
        return 0;
    }
    step.action = draft
        .calls
        .iter()
        .map(|c| c.action.as_str())
        .filter(|a| !a.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    step.tool = step.tool_calls.first().map(|c| c.name.clone());
    let timed: Vec<f64> = draft.calls.iter().filter_map(|c| c.duration_s).collect();
    if !timed.is_empty() {
        step.duration_s = Some(timed.iter().sum());
    }
    step.observation = draft
        .calls
        .iter()
        .filter_map(|c| c.output.as_deref())
        .filter(|o| !o.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    draft
        .calls
        .iter()
        .filter(|c| c.expects_output && c.output.is_none())
        .count()
}

/// Appends `text` to `to`, with `separator` between when both are non-empty.
fn append(to: &mut String, text: &str, separator: &str) {
    if text.is_empty() {
        return;
    }
    if !to.is_empty() {
        to.push_str(separator);
    }
    to.push_str(text);
}

/// The instance id of a session log: the file's name when a harness named it (eval runs
/// save `<instance_id>.jsonl`, and results join on that), the session id when the tool
/// named the file after the session itself (`<session>.jsonl`, `rollout-<time>-<session>`).
pub fn instance_id(file_stem: &str, session: String) -> String {
    if !session.is_empty() && file_stem.contains(session.as_str()) {
        session
    } else {
        file_stem.to_string()
    }
}

/// How a call of the interactive CLIs reads as an action: the command line a shell tool
/// ran (its `command` argument), else the generic `name {"arg":…}`.
pub fn call_action(call: &ToolCall) -> String {
    call.argument("command")
        .unwrap_or_else(|| generic_action(&call.name, &call.arguments))
}

/// `name {"arg":…}`: how a call reads when its tool has no better rendering.
pub fn generic_action(name: &str, arguments: &str) -> String {
    let arguments = arguments.trim();
    if arguments.is_empty() || arguments == "{}" || arguments == "null" {
        name.to_string()
    } else {
        format!("{name} {arguments}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ContextMessages, Format, Role};

    fn builder() -> StepBuilder {
        StepBuilder::new(Trajectory::new("s.jsonl", Format::ClaudeCode))
    }

    fn call(id: &str, name: &str) -> ToolCall {
        ToolCall {
            id: Some(id.into()),
            name: name.into(),
            arguments: "{}".into(),
        }
    }

    #[test]
    fn results_join_their_calls_and_the_context() {
        let mut b = builder();
        b.push_message(None, Message::user("fix it"));
        let s = b.start_step(None, Some("m1"), None);
        b.add_text(s, "Looking.");
        assert!(b.add_call(s, call("a", "Bash"), "ls".into(), true));
        assert!(!b.add_call(s, call("a", "Bash"), "ls".into(), true));
        assert_eq!(b.open_step(None, Some("m1")), Some(s));
        assert_eq!(b.open_step(None, Some("m2")), None);
        b.add_call(s, call("b", "Bash"), "pwd".into(), true);
        b.add_result(
            b.call_at("b").unwrap(),
            CallOutput {
                text: "/tmp".into(),
                exit_code: Some(0),
                ..CallOutput::default()
            },
        );
        b.add_result(
            b.call_at("a").unwrap(),
            CallOutput {
                text: "x.py".into(),
                failed: true,
                exit_code: Some(2),
                ..CallOutput::default()
            },
        );
        let s2 = b.start_step(None, Some("m2"), None);
        b.add_text(s2, "Done.");
        let t = b.finish();
        let step = &t.steps[0];
        assert_eq!(step.action, "ls\npwd");
        assert_eq!(step.observation, "x.py\n/tmp", "results in call order");
        assert_eq!(step.exit_code, Some(2));
        assert!(step.failed);
        assert_eq!(step.tool.as_deref(), Some("Bash"));
        let ctx = t.steps[1].context_messages(&t.messages);
        let roles: Vec<Role> = ctx.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool, Role::Tool]);
        assert_eq!(ctx[1].tool_calls.len(), 2);
        assert_eq!(ctx[1].content, "Looking.");
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    }

    #[test]
    fn replies_compaction_and_unanswered_calls() {
        let mut b = builder();
        let s = b.start_step(None, None, None);
        b.add_text(s, "Which file?");
        b.user_reply(None, "a.py".into());
        assert_eq!(b.open_step(None, None), None);
        let s = b.start_step(None, None, None);
        b.add_call(s, call("c", "Read"), "Read a.py".into(), true);
        b.compact(None);
        b.push_message(None, Message::user("summary"));
        let s = b.start_step(None, None, None);
        b.add_text(s, "ok");
        let t = b.finish();
        assert_eq!(t.steps[0].observation, "a.py");
        let prefix = |i: usize| t.steps[i].context.as_ref().map(|c| c.messages.clone());
        assert_eq!(
            prefix(1),
            Some(ContextMessages::Prefix {
                len: 2,
                agent: None
            }),
            "growing contexts take constant space"
        );
        assert_eq!(prefix(2), Some(ContextMessages::List(vec![3])));
        assert_eq!(t.steps[2].context_messages(&t.messages).len(), 1);
        assert_eq!(t.warnings.len(), 1);
        assert!(t.warnings[0].starts_with("1 tool call(s) have no result"));
    }

    #[test]
    fn agents_keep_their_own_contexts() {
        let mut b = builder();
        b.push_message(None, Message::user("main task"));
        b.push_message(Some("sidechain"), Message::user("sub task"));
        let s = b.start_step(Some("sidechain"), None, None);
        assert_eq!(b.last_step(None), None);
        b.add_call(s, call("x", "Grep"), "Grep foo".into(), true);
        assert_eq!(b.pending_call(Some("sidechain")), Some((0, 0)));
        assert_eq!(b.pending_call(None), None);
        let t = b.finish();
        let ctx = t.steps[0].context_messages(&t.messages);
        assert_eq!(ctx.len(), 1);
        assert_eq!(ctx[0].content, "sub task");
        assert!(matches!(
            t.steps[0].context.as_ref().map(|c| &c.messages),
            Some(ContextMessages::Prefix { agent: Some(_), .. })
        ));
    }

    #[test]
    fn usage_of_repeated_records_is_not_summed() {
        let mut b = builder();
        let s = b.start_step(None, None, None);
        let u = |i, o| Usage {
            tokens_in: Some(i),
            tokens_out: Some(o),
            ..Usage::default()
        };
        b.merge_usage(s, u(100, 3));
        b.merge_usage(s, u(100, 40));
        let t = b.finish();
        assert_eq!(t.steps[0].usage.tokens_in, Some(100));
        assert_eq!(t.steps[0].usage.tokens_out, Some(40));
    }

    #[test]
    fn instance_ids_from_harness_names_or_sessions() {
        assert_eq!(
            instance_id("django__django-11133", "9f1c-42".into()),
            "django__django-11133"
        );
        assert_eq!(instance_id("9f1c-42", "9f1c-42".into()), "9f1c-42");
        assert_eq!(
            instance_id("rollout-2025-10-31T17-00-00-019a3b7e", "019a3b7e".into()),
            "019a3b7e"
        );
    }

    #[test]
    fn warnings_are_capped() {
        let mut b = builder();
        for i in 0..30 {
            b.warn(format!("w{i}"));
        }
        let t = b.finish();
        assert_eq!(t.warnings.len(), MAX_WARNINGS + 1);
        assert_eq!(
            t.warnings.last().map(String::as_str),
            Some("… and 10 more warnings")
        );
    }
}
