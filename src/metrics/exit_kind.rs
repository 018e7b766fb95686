//! How a run ended, in a handful of kinds that mean the same across agents: SWE-agent writes
//! `submitted (exit_cost)`, mini-swe-agent `LimitsExceeded`, both mean "stopped by a limit".

use serde::Serialize;
use std::fmt;

/// The kind of an exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitKind {
    /// The agent submitted on its own (`submitted`, `Submitted`).
    Submitted,
    /// Stopped by a cost, step or time budget (`exit_cost`, `LimitsExceeded`), including
    /// SWE-agent's autosubmission after one (`submitted (exit_cost)`).
    Limit,
    /// The context window was exceeded (`exit_context`, `ContextWindowExceededError`).
    Context,
    /// Too many badly formatted answers (`exit_format`, `FormatError`).
    Format,
    /// An error in the agent or environment (`exit_error`, `exit_api`, timeouts, exceptions).
    Error,
    /// Any other status (`early_exit`, `exit_forfeit`, …).
    Other,
    /// The log records no exit status.
    None,
}

impl ExitKind {
    pub const ALL: [ExitKind; 7] = [
        ExitKind::Submitted,
        ExitKind::Limit,
        ExitKind::Context,
        ExitKind::Format,
        ExitKind::Error,
        ExitKind::Other,
        ExitKind::None,
    ];

    /// The kind of `status` as an agent wrote it.
    pub fn of(status: Option<&str>) -> ExitKind {
        let Some(status) = status.map(str::trim).filter(|s| !s.is_empty()) else {
            return ExitKind::None;
        };
        let s = status.to_ascii_lowercase();
        if s.contains("context") {
            ExitKind::Context
        } else if s.contains("format") {
            ExitKind::Format
        } else if s.contains("cost") || s.contains("limit") || s.contains("budget") {
            ExitKind::Limit
        } else if s.contains("error")
            || s.contains("exception")
            || s.contains("timeout")
            || s.contains("exit_api")
        {
            ExitKind::Error
        } else if s == "submitted" || s == "submit" {
            ExitKind::Submitted
        } else {
            ExitKind::Other
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ExitKind::Submitted => "submitted",
            ExitKind::Limit => "limit",
            ExitKind::Context => "context",
            ExitKind::Format => "format",
            ExitKind::Error => "error",
            ExitKind::Other => "other",
            ExitKind::None => "none",
        }
    }
}

impl fmt::Display for ExitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_in_the_wild() {
        let cases = [
            ("submitted", ExitKind::Submitted),
            ("Submitted", ExitKind::Submitted),
            ("submitted (exit_cost)", ExitKind::Limit),
            ("exit_cost", ExitKind::Limit),
            ("LimitsExceeded", ExitKind::Limit),
            ("exit_context", ExitKind::Context),
            ("submitted (exit_context)", ExitKind::Context),
            ("ContextWindowExceededError", ExitKind::Context),
            ("exit_format", ExitKind::Format),
            ("FormatError", ExitKind::Format),
            ("exit_error", ExitKind::Error),
            ("submitted (exit_error)", ExitKind::Error),
            ("exit_api", ExitKind::Error),
            ("ExecutionTimeoutError", ExitKind::Error),
            ("early_exit", ExitKind::Other),
            ("", ExitKind::None),
        ];
        for (status, kind) in cases {
            assert_eq!(ExitKind::of(Some(status)), kind, "{status}");
        }
        assert_eq!(ExitKind::of(None), ExitKind::None);
    }
}
