//! A rule: what to count in a step, where to look, and on which conditions. Rules are data,
//! read from TOML by [`super::rule_file`] and compiled by [`super::Matcher`].

use super::classifier::Shared;
use super::condition::Condition;
use super::field::Field;
use serde::Serialize;
use std::fmt;

/// A rule's position in its [`super::Matcher`]: the row it fills in a tally.
pub type RuleId = usize;

/// The text a rule looks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pattern {
    pub text: String,
    /// A regular expression (Rust `regex` syntax; `^` and `$` match at line ends, as in rg)
    /// rather than a literal string.
    pub regex: bool,
    pub ignore_case: bool,
}

/// Which tools a step must have called for the rule to count it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolCondition {
    /// Any tool call at all (`tool = "*"`).
    Any,
    /// One of these tool names, compared exactly.
    Named(Vec<String>),
}

impl ToolCondition {
    pub fn accepts(&self, tool: &str) -> bool {
        match self {
            ToolCondition::Any => true,
            ToolCondition::Named(names) => names.iter().any(|n| n == tool),
        }
    }
}

/// Where a rule was defined, for error messages and `--json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Origin {
    /// The rule file's path, or `default rules` for the ones built into trajscope.
    pub file: String,
    /// 1-based line of the rule's `[[rule]]` header, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.file),
            None => f.write_str(&self.file),
        }
    }
}

/// One rule, checked and ready to compile. Conditions combine with AND: a step counts when
/// the pattern matches in the field (or the rule has no pattern) and every condition holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rule {
    pub name: String,
    /// What the rule counts, in words (shown in `--json` and the TUI).
    pub description: String,
    /// `None` for rules that count steps by their conditions alone (tool calls, loops).
    pub pattern: Option<Pattern>,
    pub field: Field,
    /// The step does not count when this matches in the same field (same `regex` and
    /// `ignore_case` options as `pattern`).
    pub unless: Option<Pattern>,
    /// The step called one of these tools.
    pub tool: Option<ToolCondition>,
    /// The step executed an action: its observation follows a tool call.
    pub after_tool_call: bool,
    /// The same step matched this rule too (lets a rule build on another: "an edit that …").
    pub matches: Option<String>,
    /// The step right before matched this rule.
    pub after: Option<String>,
    /// The step's action is the same as that of the `repeat - 1` steps before it.
    pub repeat: Option<usize>,
    /// With `repeat`: the observations must be the same too (a loop, not paging through a
    /// file with `scroll_down`).
    pub same_observation: bool,
    /// No step from this one up to (not including) the next step matching `before` (or the
    /// end of the trajectory, without `before`) matches this rule.
    pub not_followed_by: Option<String>,
    /// With `not_followed_by`: the step that closes the window; a step with no later
    /// `before` step does not count.
    pub before: Option<String>,
    /// The step's other conditions also held at the `in_a_row - 1` steps before it
    /// ("three syntax errors in a row").
    pub in_a_row: Option<usize>,
    /// The cost so far, up to and including this step, is above this many dollars.
    pub cost_above: Option<f64>,
    /// Tallied (so other rules can refer to it) but left out of tables.
    pub hidden: bool,
    /// Reported as it fires while a trajectory is followed live (`trajscope watch`, the
    /// TUI), once per streak of matching steps.
    pub alert: bool,
    /// A condition on the step (texts, windows, all/any/not): the step counts only when it
    /// holds. Without a pattern, the step counts once when it holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<Condition>,
    /// The rule is a mode of this classifier: it counts the steps the classifier gives it,
    /// once each.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classifier: Option<Shared>,
    pub origin: Origin,
}

impl Rule {
    /// A rule counting a pattern in a field, with no conditions.
    pub fn new(name: impl Into<String>, pattern: Pattern, field: Field) -> Rule {
        Rule {
            name: name.into(),
            description: String::new(),
            pattern: Some(pattern),
            field,
            unless: None,
            tool: None,
            after_tool_call: false,
            matches: None,
            after: None,
            repeat: None,
            same_observation: false,
            not_followed_by: None,
            before: None,
            in_a_row: None,
            cost_above: None,
            hidden: false,
            alert: false,
            when: None,
            classifier: None,
            origin: Origin {
                file: "code".into(),
                line: None,
            },
        }
    }

    /// Whether the rule depends on other rules or steps than the one it counts, and so is
    /// decided after every rule has been decided step by step.
    pub fn is_sequence(&self) -> bool {
        self.matches.is_some()
            || self.after.is_some()
            || self.repeat.is_some()
            || self.not_followed_by.is_some()
            || self.in_a_row.is_some()
            || self.cost_above.is_some()
    }

    /// The name of the classifier whose mode this rule is.
    pub fn classifier_name(&self) -> Option<&str> {
        self.classifier.as_ref().map(|c| c.0.name.as_str())
    }

    /// The names of the rules this one refers to.
    pub fn references(&self) -> impl Iterator<Item = &str> {
        [
            &self.matches,
            &self.after,
            &self.not_followed_by,
            &self.before,
        ]
        .into_iter()
        .filter_map(|r| r.as_deref())
    }
}

impl Pattern {
    pub fn literal(text: impl Into<String>) -> Pattern {
        Pattern {
            text: text.into(),
            regex: false,
            ignore_case: false,
        }
    }

    pub fn regex(text: impl Into<String>) -> Pattern {
        Pattern {
            text: text.into(),
            regex: true,
            ignore_case: false,
        }
    }
}
