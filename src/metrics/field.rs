//! Which part of a step a rule looks at, and the text of that part.

use crate::model::Step;
use serde::Serialize;
use std::borrow::Cow;
use std::fmt;

/// A part of a step that rules and `trajscope grep` search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Field {
    Observation,
    Action,
    Thought,
    Response,
    Tool,
    /// What a person said to the agent (a user step), or a compaction's summary.
    User,
    /// Every one of the fields above, each searched on its own.
    Any,
}

impl Field {
    /// The concrete fields, in the order they are searched and reported.
    pub const CONCRETE: [Field; 6] = [
        Field::Observation,
        Field::Action,
        Field::Thought,
        Field::Response,
        Field::Tool,
        Field::User,
    ];

    /// The name used in rule files, on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Field::Observation => "observation",
            Field::Action => "action",
            Field::Thought => "thought",
            Field::Response => "response",
            Field::Tool => "tool",
            Field::User => "user",
            Field::Any => "any",
        }
    }

    pub fn from_name(name: &str) -> Option<Field> {
        [Field::Any]
            .into_iter()
            .chain(Field::CONCRETE)
            .find(|f| f.name() == name)
    }

    /// Whether a rule on `self` searches the concrete field `concrete`.
    pub fn covers(self, concrete: Field) -> bool {
        self == Field::Any || self == concrete
    }

    /// The text of this field of `step`. `Any` has no single text: it gives the empty string
    /// (callers search each concrete field instead).
    pub fn text(self, step: &Step) -> Cow<'_, str> {
        match self {
            Field::Observation => Cow::Borrowed(&step.observation),
            Field::Action => Cow::Borrowed(&step.action),
            Field::Thought => Cow::Borrowed(&step.thought),
            Field::Response => Cow::Borrowed(&step.response),
            Field::Tool => tool_text(step),
            Field::User => Cow::Borrowed(&step.user),
            Field::Any => Cow::Borrowed(""),
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The names of the tools a step called, one per line: every structured tool call's name,
/// else the step's tool (the command name of a text action).
fn tool_text(step: &Step) -> Cow<'_, str> {
    match step.tool_calls.as_slice() {
        [] => Cow::Borrowed(step.tool.as_deref().unwrap_or("")),
        [one] => Cow::Borrowed(&one.name),
        many => Cow::Owned(
            many.iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    }
}

/// The tools a step called, one entry per call. Empty when the step executed nothing (a
/// rejected answer, a final message): the pseudo tools some loaders give such steps, like
/// mini-swe-agent's `(FormatError)`, are not calls.
pub fn tool_calls_of(step: &Step) -> Vec<&str> {
    if !step.tool_calls.is_empty() {
        return step.tool_calls.iter().map(|c| c.name.as_str()).collect();
    }
    match step.tool.as_deref() {
        Some(tool) if made_tool_call(step) => vec![tool],
        _ => Vec::new(),
    }
}

/// Whether the step executed something: structured tool calls, or a non-empty action. The
/// observation of such a step is "the observation that follows a tool call".
pub fn made_tool_call(step: &Step) -> bool {
    !step.tool_calls.is_empty() || !step.action.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolCall;

    #[test]
    fn names_round_trip() {
        for f in Field::CONCRETE.into_iter().chain([Field::Any]) {
            assert_eq!(Field::from_name(f.name()), Some(f));
        }
        assert_eq!(Field::from_name("observations"), None);
    }

    #[test]
    fn tool_text_and_calls() {
        let mut step = Step {
            tool: Some("bash".into()),
            ..Step::default()
        };
        assert_eq!(Field::Tool.text(&step), "bash");
        assert!(tool_calls_of(&step).is_empty(), "no action, no call");
        step.action = "ls".into();
        assert_eq!(tool_calls_of(&step), vec!["bash"]);
        step.tool_calls = vec![ToolCall::new("open", "{}"), ToolCall::new("edit", "{}")];
        assert_eq!(Field::Tool.text(&step), "open\nedit");
        assert_eq!(tool_calls_of(&step), vec!["open", "edit"]);
        let rejected = Step {
            tool: Some("(FormatError)".into()),
            observation: "No tool calls found".into(),
            ..Step::default()
        };
        assert!(!made_tool_call(&rejected));
        assert!(tool_calls_of(&rejected).is_empty());
    }
}
