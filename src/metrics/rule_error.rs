//! A rule that could not be used, and why: reported, never fatal to the other rules.

use serde::Serialize;
use std::fmt;

/// A problem with one rule (or with a whole rule file, when `rule` is `None`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
pub struct RuleError {
    /// The rule's name, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The rule file, or `default rules`.
    pub file: String,
    /// 1-based line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(rule) = &self.rule {
            write!(f, ": rule `{rule}`")?;
        }
        write!(f, ": {}", self.message)
    }
}
