//! One step of a trajectory: the model thought, acted, and saw what came back.

use super::{Message, ToolCall, Usage};
use serde::{Deserialize, Serialize};

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

/// The model input at one step, as indices into [`super::Trajectory::messages`]. Sharing one
/// message pool keeps a 500-step trajectory from holding 500 copies of its system prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepContext {
    pub exactness: Exactness,
    pub messages: Vec<u32>,
}

/// One step: thought, action, observation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// 1-based position in the trajectory.
    pub index: usize,
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
const ERROR_MARKERS: &[&str] = &[
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

impl Step {
    /// A step the log flags as failed, or whose observation reads like an error.
    pub fn is_error(&self) -> bool {
        if self.failed || self.exit_code.is_some_and(|c| c != 0) {
            return true;
        }
        // Errors announce themselves early; scanning a 5 MB test log end to end for a
        // marker buried in a passing run's output would mark it wrongly and slowly.
        let head = prefix_on_char_boundary(&self.observation, 16 * 1024);
        ERROR_MARKERS.iter().any(|m| head.contains(m))
    }

    /// The tool name, or `-` when the step took no action.
    pub fn tool_name(&self) -> &str {
        self.tool.as_deref().unwrap_or("-")
    }

    /// One line describing the action, for step lists.
    pub fn summary(&self) -> &str {
        let text = if self.action.trim().is_empty() {
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
            .map(|c| {
                c.messages
                    .iter()
                    .filter_map(|&i| pool.get(i as usize))
                    .collect()
            })
            .unwrap_or_default()
    }
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
