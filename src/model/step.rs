//! One step of a trajectory: the model thought, acted, and saw what came back.

use super::{Message, SharedIds, ToolCall, Usage};
use aho_corasick::{AhoCorasick, AhoCorasickKind, Input, MatchKind};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// Whether a step's context is what the model really received, or our best rebuild of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Exactness {
    /// Stored in the log (SWE-agent 1.1 `query`, mini-swe-agent `messages`, Inspect `model`
    /// events, raw prompt logs).
    Exact,
    /// Rebuilt from the log's history; history processors, condensation or a system prompt
    /// the log does not store may make it differ from what the model saw.
    Reconstructed,
}

impl Exactness {
    pub fn as_str(self) -> &'static str {
        match self {
            Exactness::Exact => "exact",
            Exactness::Reconstructed => "reconstructed",
        }
    }
}

/// Which messages of the trajectory's pool ([`super::Trajectory::messages`]) the model saw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextMessages {
    /// These messages, in this order: contexts stored per step (SWE-agent 1.1 `query`,
    /// Inspect `model` events), where history processing may drop or rewrite messages.
    List(Vec<u32>),
    /// The first `len` messages of the pool, only those of `agent` when set: contexts that
    /// grow by appending (mini-swe-agent, chat logs, multi-agent histories). O(1) per step,
    /// so that a 20,000-step trajectory does not hold 20,000 growing index lists.
    Prefix {
        len: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
    },
    /// The pool messages from `from` up to (not including) `to`: contexts that grow by
    /// appending and start again at a point (Aider's `/clear`). O(1) per step, like
    /// [`ContextMessages::Prefix`].
    Span { from: u32, to: u32 },
    /// A window of an id list the steps share: contexts rebuilt from a conversation whose
    /// messages sit in the pool in another order (Inspect samples without model events).
    /// O(1) per step, like [`ContextMessages::Prefix`]. Written as the list it stands for,
    /// so that `show --json` prints what it printed when these contexts were lists.
    #[serde(rename(serialize = "list"), skip_deserializing)]
    Shared(SharedIds),
}

/// The model input at one step. Sharing one message pool keeps a 500-step trajectory from
/// holding 500 copies of its system prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepContext {
    pub exactness: Exactness,
    pub messages: ContextMessages,
}

impl StepContext {
    /// The listed pool messages.
    pub fn list(exactness: Exactness, ids: Vec<u32>) -> StepContext {
        StepContext {
            exactness,
            messages: ContextMessages::List(ids),
        }
    }

    /// The first `len` pool messages.
    pub fn prefix(exactness: Exactness, len: usize) -> StepContext {
        StepContext::agent_prefix(exactness, len, None)
    }

    /// The pool messages from `from` up to (not including) `to`.
    pub fn span(exactness: Exactness, from: usize, to: usize) -> StepContext {
        let id = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        StepContext {
            exactness,
            messages: ContextMessages::Span {
                from: id(from),
                to: id(to),
            },
        }
    }

    /// The ids of `ids` from `from` up to (not including) `to`, the list shared, not copied.
    pub fn shared(
        exactness: Exactness,
        ids: std::sync::Arc<[u32]>,
        from: usize,
        to: usize,
    ) -> StepContext {
        StepContext {
            exactness,
            messages: ContextMessages::Shared(SharedIds::new(ids, from, to)),
        }
    }

    /// The first `len` pool messages that belong to `agent` (all of them when `None`).
    pub fn agent_prefix(exactness: Exactness, len: usize, agent: Option<String>) -> StepContext {
        StepContext {
            exactness,
            messages: ContextMessages::Prefix {
                len: u32::try_from(len).unwrap_or(u32::MAX),
                agent,
            },
        }
    }

    /// The pool indices of the context's messages, in order.
    pub fn ids<'a>(&'a self, pool: &'a [Message]) -> Box<dyn Iterator<Item = u32> + 'a> {
        match &self.messages {
            ContextMessages::List(ids) => Box::new(ids.iter().copied()),
            ContextMessages::Prefix { len, agent } => Box::new(
                pool.iter()
                    .take(*len as usize)
                    .enumerate()
                    .filter(move |(_, m)| agent.is_none() || m.agent == *agent)
                    .map(|(i, _)| u32::try_from(i).unwrap_or(u32::MAX)),
            ),
            ContextMessages::Span { from, to } => Box::new(*from..(*to).min(pool_len(pool))),
            ContextMessages::Shared(shared) => Box::new(shared.as_slice().iter().copied()),
        }
    }
}

/// The pool's length as an id bound.
fn pool_len(pool: &[Message]) -> u32 {
    u32::try_from(pool.len()).unwrap_or(u32::MAX)
}

/// What a step is: the agent at work, a person speaking to it, or its context compacted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    /// The model thought, acted and saw what came back.
    #[default]
    Agent,
    /// A person's message to the agent (the prompt, a turn mid-session): [`Step::user`].
    User,
    /// The agent's context was compacted: earlier messages were replaced by the summary in
    /// [`Step::user`] (sent to the model as a user message), or by nothing the log shows.
    Compaction,
}

impl StepKind {
    pub fn is_agent(&self) -> bool {
        *self == StepKind::Agent
    }

    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Agent => "agent",
            StepKind::User => "user",
            StepKind::Compaction => "compaction",
        }
    }
}

/// One step: thought, action, observation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// 1-based position in the trajectory.
    pub index: usize,
    /// Agent steps unless the log shows a person speaking or a compaction.
    #[serde(default, skip_serializing_if = "StepKind::is_agent")]
    pub kind: StepKind,
    /// What a person said to the agent (user steps), or the summary that replaced the
    /// context (compaction steps).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub user: String,
    /// The agent that took this step, in multi-agent logs (CodeR's Manager, Reproducer, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The model's reasoning before acting.
    #[serde(default)]
    pub thought: String,
    /// The action as a human reads it: the command line, or a rendering of the tool calls.
    #[serde(default)]
    pub action: String,
    /// The tool the action used: the function name for tool calls, the command name for
    /// SWE-agent text commands (`open`, `edit`, `python`…), `bash` for mini-swe-agent blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The structured tool calls, when the model made any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// What came back from the environment.
    #[serde(default)]
    pub observation: String,
    /// The raw model response, when the log keeps it apart from thought and action.
    #[serde(default)]
    pub response: String,
    /// The command's exit code, when the log records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Set when the log itself flags the step as failed (`is_error`, a non-zero exit code).
    #[serde(default)]
    pub failed: bool,
    /// When the step started, as written in the log (ISO 8601 or Unix seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// How long the action took to execute, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<StepContext>,
    /// What the tools returned beyond the observation text, when the log keeps it: Claude
    /// Code's `toolUseResult` of file tools (an Edit's `structuredPatch`, a Write's content),
    /// Codex's `patch_apply_end` changes. The diff layer reads it; nothing else needs to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_results: Vec<ToolResult>,
    /// A replay fork's step whose answer was written by hand (`replay --edit-answer`), not
    /// the model's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub edited: bool,
    /// The log of the sub-agent this step started (a Claude Code `Task` call), when it is
    /// on disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<std::path::PathBuf>,
}

/// A tool's structured result, as logged, tied to the call it answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The [`ToolCall::id`] it answers, when the log links them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The tool this came from (`Edit`, `apply_patch`, …).
    pub tool: String,
    pub data: serde_json::Value,
}

/// Strings that, in an observation, mean the action went wrong. Kept short and specific: the
/// metrics engine owns the rich, configurable rules; this list marks steps in lists.
pub(crate) const ERROR_MARKERS: &[&str] = &[
    "Traceback (most recent call last)",
    "SyntaxError:",
    "IndentationError:",
    "No such file or directory",
    "command not found",
    "Your proposed edit has introduced new syntax error",
    "error: ",
    "Error: ",
    "ERROR:",
    "Exception:",
    "fatal: ",
];

/// Gemini CLI reports every shell command's stderr as `Error: (none)` when it is empty: the
/// marker `Error: ` where this starts is no error.
pub(crate) const NOT_AN_ERROR: &str = "Error: (none)";

impl Step {
    /// A step the log flags as failed, or whose observation reads like an error.
    pub fn is_error(&self) -> bool {
        if self.kind != StepKind::Agent {
            return false;
        }
        if self.failed || self.exit_code.is_some_and(|c| c != 0) {
            return true;
        }
        observation_reads_as_error(&self.observation)
    }

    /// The tool name, or `-` when the step took no action; `user` and `compaction` for
    /// steps of those kinds, so that lists tell them apart from the agent's.
    pub fn tool_name(&self) -> &str {
        match self.kind {
            StepKind::Agent => self.tool.as_deref().unwrap_or("-"),
            other => other.as_str(),
        }
    }

    /// One line describing the action, for step lists.
    pub fn summary(&self) -> &str {
        let text = if self.kind != StepKind::Agent {
            self.user.as_str()
        } else if self.action.trim().is_empty() {
            self.thought.as_str()
        } else {
            self.action.as_str()
        };
        text.trim_start().lines().next().unwrap_or("").trim_end()
    }

    /// The messages the model saw at this step, from the trajectory's pool.
    pub fn context_messages<'a>(&self, pool: &'a [Message]) -> Vec<&'a Message> {
        self.context
            .as_ref()
            .map(|c| c.ids(pool).filter_map(|i| pool.get(i as usize)).collect())
            .unwrap_or_default()
    }
}

/// How much of an observation's text [`Step::is_error`] looks at.
pub(crate) const ERROR_HEAD: usize = 16 * 1024;

/// Whether an agent step's observation reads like an error: a marker in its first
/// [`ERROR_HEAD`] bytes. Errors announce themselves early; scanning a 5 MB test log end to
/// end for a marker buried in a passing run's output would mark it wrongly and slowly.
pub(crate) fn observation_reads_as_error(observation: &str) -> bool {
    has_error_marker(prefix_on_char_boundary(observation, ERROR_HEAD))
}

/// The leftmost-first automaton of [`ERROR_MARKERS`], built once (`None` if it cannot be).
/// No marker is a prefix of another, so no two start at the same place.
pub(crate) fn error_marker_finder() -> Option<&'static AhoCorasick> {
    static MARKERS: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    MARKERS
        .get_or_init(|| {
            // A contiguous NFA: it runs only where the prefilter stops, so a DFA's longer
            // build is not paid back.
            AhoCorasick::builder()
                .kind(Some(AhoCorasickKind::ContiguousNFA))
                .match_kind(MatchKind::LeftmostFirst)
                .build(ERROR_MARKERS)
                .ok()
        })
        .as_ref()
}

/// Whether `head` holds one of [`ERROR_MARKERS`]. One pass of one automaton: eleven
/// substring searches over every observation were a quarter of an uncached tally's time.
/// No two markers start at the same place, so searching leftmost-first from each hit
/// onwards visits every place where a marker starts, as the searches one by one did.
fn has_error_marker(head: &str) -> bool {
    // Gemini CLI reports every shell command's stderr as `Error: (none)` when it is empty.
    let counts = |at: usize| !head[at..].starts_with(NOT_AN_ERROR);
    let Some(markers) = error_marker_finder() else {
        return ERROR_MARKERS
            .iter()
            .any(|m| head.match_indices(m).any(|(at, _)| counts(at)));
    };
    let mut from = 0;
    while let Some(m) = markers.find(Input::new(head).span(from..head.len())) {
        if counts(m.start()) {
            return true;
        }
        from = m.start() + 1;
    }
    false
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub(crate) fn prefix_on_char_boundary(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_from_flag_exit_code_or_text() {
        let mut step = Step {
            observation: "all good".into(),
            ..Step::default()
        };
        assert!(!step.is_error());
        step.exit_code = Some(2);
        assert!(step.is_error());
        step.exit_code = Some(0);
        assert!(!step.is_error());
        step.observation = "  File \"x.py\", line 3\nSyntaxError: invalid syntax".into();
        assert!(step.is_error());
        step.observation = "Output: 3\nError: (none)\nExit Code: 0".into();
        assert!(!step.is_error(), "Gemini's empty stderr is no error");
    }

    #[test]
    fn one_automaton_finds_what_each_marker_search_finds() {
        // The definition: some marker starts somewhere not followed by Gemini's `(none)`.
        let one_by_one = |head: &str| {
            ERROR_MARKERS.iter().any(|m| {
                head.match_indices(m)
                    .any(|(at, _)| !head[at..].starts_with("Error: (none)"))
            })
        };
        let texts = [
            "",
            "all good",
            "Error: (none)",
            "Error: (none)\nError: (none)",
            "Error: (none) then fatal: bad",
            "Error: (none)Error: real",
            "xError: (none",
            "ERROR: x",
            "error: x",
            "Exception:",
            "é Traceback (most recent call last)",
            "SyntaxError",
            "IndentationError: é",
            "bash: x: command not found",
        ];
        for text in texts {
            assert_eq!(has_error_marker(text), one_by_one(text), "{text:?}");
        }
        assert!(has_error_marker("Error: (none)Error: real"));
        assert!(!has_error_marker("Error: (none)\nError: (none)"));
    }

    #[test]
    fn summary_is_first_line_of_action_or_thought() {
        let step = Step {
            thought: "I will look\naround".into(),
            ..Step::default()
        };
        assert_eq!(step.summary(), "I will look");
        let step = Step {
            action: "\nls -la\ncat x".into(),
            ..Step::default()
        };
        assert_eq!(step.summary(), "ls -la");
    }

    #[test]
    fn prefix_respects_char_boundaries() {
        assert_eq!(prefix_on_char_boundary("héllo", 2), "h");
        assert_eq!(prefix_on_char_boundary("abc", 10), "abc");
    }
}

#[cfg(test)]
mod context_tests {
    use super::*;

    #[test]
    fn prefix_contexts_filter_by_agent() {
        let pool = vec![
            Message::system("a-sys").with_agent(Some("A".into())),
            Message::system("b-sys").with_agent(Some("B".into())),
            Message::user("a-task").with_agent(Some("A".into())),
            Message::assistant("a-answer").with_agent(Some("A".into())),
        ];
        let step = Step {
            context: Some(StepContext::agent_prefix(
                Exactness::Reconstructed,
                3,
                Some("A".into()),
            )),
            ..Step::default()
        };
        let texts: Vec<&str> = step
            .context_messages(&pool)
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(texts, vec!["a-sys", "a-task"]);
        let all = StepContext::prefix(Exactness::Exact, 2);
        assert_eq!(all.ids(&pool).collect::<Vec<_>>(), vec![0, 1]);
        let listed = StepContext::list(Exactness::Exact, vec![3, 0]);
        assert_eq!(listed.ids(&pool).collect::<Vec<_>>(), vec![3, 0]);
    }
}
