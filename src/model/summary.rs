//! A compact description of one trajectory: what a run listing needs, without the steps.

use super::header::derefs_to_header;
use super::{JoinTarget, Trajectory, TrajectoryHeader, Usage, count_patch_lines};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One row of a run listing. Small enough to keep thousands in memory (and, later, in a cache)
/// after the full trajectory has been dropped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrajectorySummary {
    /// Written flat: `path`, `instance_id`, `resolved`, … are keys of the row itself.
    #[serde(flatten)]
    pub header: TrajectoryHeader,
    pub steps: usize,
    /// SWE-agent's forced exit when the last step is one (`exit_cost`, …): such runs are
    /// autosubmitted and their logs may then say just `submitted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forced_exit: Option<String>,
    pub usage: Usage,
    pub patch_lines: usize,
    pub error_steps: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// For a fork (`trajscope replay`): the trajectory it re-ran and from which step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork_of: Option<ForkLink>,
    /// For a sub-agent's log: the trajectory that spawned it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<PathBuf>,
}

/// Where a fork came from, as a listing needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForkLink {
    /// The parent file, as the replay named it.
    pub parent: PathBuf,
    /// 1-based step re-run from.
    pub step: usize,
}

/// SWE-agent's forced exits: the agent was stopped, not done.
const FORCED_EXITS: &[&str] = &[
    "exit_cost",
    "exit_context",
    "exit_format",
    "exit_error",
    "exit_api",
];

/// The forced exit a trajectory's last step is, if it is one.
pub fn forced_exit(trajectory: &Trajectory) -> Option<String> {
    trajectory
        .steps
        .last()
        .and_then(|s| s.action.split_whitespace().next())
        .filter(|word| FORCED_EXITS.contains(word))
        .map(String::from)
}

/// How a run ended, as every listing shows it: the logged status, and the forced exit
/// behind it when they differ (`submitted (exit_cost)`).
pub fn exit_shown(status: Option<&str>, forced: Option<&str>) -> Option<String> {
    match (status, forced) {
        (Some(s), Some(f)) if s != f => Some(format!("{s} ({f})")),
        (None, Some(f)) => Some(f.to_string()),
        (s, _) => s.map(String::from),
    }
}

impl TrajectorySummary {
    /// The exit status as shown (see [`exit_shown`]).
    pub fn exit_shown(&self) -> Option<String> {
        exit_shown(self.exit_status.as_deref(), self.forced_exit.as_deref())
    }

    pub fn of(trajectory: &Trajectory) -> TrajectorySummary {
        TrajectorySummary {
            header: trajectory.header.listed(),
            steps: trajectory.steps.len(),
            forced_exit: forced_exit(trajectory),
            usage: trajectory.total_usage(),
            patch_lines: trajectory.patch_lines(),
            error_steps: trajectory.error_steps(),
            warnings: trajectory.warnings.clone(),
            fork_of: trajectory.fork.as_ref().map(|f| ForkLink {
                parent: f.parent.clone(),
                step: f.step,
            }),
            parent: trajectory.parent.clone(),
        }
    }
}

derefs_to_header!(TrajectorySummary);

impl JoinTarget for TrajectorySummary {
    fn take_patch(&mut self, patch: &str) {
        if self.patch_lines == 0 {
            self.patch_lines = count_patch_lines(patch);
        }
    }
}
