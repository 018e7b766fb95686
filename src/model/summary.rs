//! A compact description of one trajectory: what a run listing needs, without the steps.

use super::{Format, Trajectory, Usage};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One row of a run listing. Small enough to keep thousands in memory (and, later, in a cache)
/// after the full trajectory has been dropped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrajectorySummary {
    pub path: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_index: Option<usize>,
    pub format: Format,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_detail: Option<String>,
    pub instance_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub steps: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<String>,
    pub resolved: Option<bool>,
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

impl TrajectorySummary {
    pub fn of(trajectory: &Trajectory) -> TrajectorySummary {
        TrajectorySummary {
            path: trajectory.source.clone(),
            source_index: trajectory.source_index,
            format: trajectory.format,
            format_detail: trajectory.format_detail.clone(),
            instance_id: trajectory.instance_id.clone(),
            model: trajectory.model.clone(),
            steps: trajectory.steps.len(),
            exit_status: trajectory.exit_status.clone(),
            resolved: trajectory.resolved,
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

    /// `path` or `path#3` when the file holds several trajectories.
    pub fn display_source(&self) -> String {
        match self.source_index {
            Some(i) => format!("{}#{}", self.path.display(), i + 1),
            None => self.path.display().to_string(),
        }
    }
}
