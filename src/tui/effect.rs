//! What `update` asks the outside world to do, as data. The runtime runs each as a task that
//! reports back with `Msg`s; tests run them inline or just look at them.

use super::document::DocRequest;
use super::search::Query;
use super::state::compare::Other;
use super::state::trajectory::TrajectoryRef;
use crate::model::Trajectory;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub enum Effect {
    /// Walk the roots and read every file, reporting each as it is read.
    LoadRun { roots: Vec<PathBuf> },
    /// Read one trajectory in full.
    LoadTrajectory { id: u64, source: TrajectoryRef },
    /// Read two trajectories and align them.
    LoadCompare { id: u64, a: TrajectoryRef, b: Other },
    /// Highlight and wrap a page of the right pane.
    BuildDocument(DocRequest),
    /// Find every hit of `query` in the open trajectory.
    Search {
        trajectory: u64,
        query: Query,
        source: Arc<Trajectory>,
    },
    /// Search every file of the run.
    Grep {
        id: u64,
        query: Query,
        files: Vec<PathBuf>,
    },
    /// Put text on the clipboard (OSC 52) or in a file.
    Copy { text: String, what: String },
    /// Show text in `$EDITOR`, the terminal suspended meanwhile.
    Edit { text: String, name: String },
    /// Follow the roots as agents write to them, reporting changes as `Msg::Live`.
    /// Runs until cancelled.
    Watch { roots: Vec<PathBuf> },
    /// Stop the task with this key, if one runs.
    Cancel(TaskKey),
}

/// Tasks with the same key replace each other: the newer one cancels the older.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskKey {
    Run,
    Trajectory,
    Compare,
    Document,
    Search,
    Grep,
    Watch,
}

impl Effect {
    pub fn task_key(&self) -> Option<TaskKey> {
        match self {
            Effect::LoadRun { .. } => Some(TaskKey::Run),
            Effect::LoadTrajectory { .. } => Some(TaskKey::Trajectory),
            Effect::LoadCompare { .. } => Some(TaskKey::Compare),
            Effect::BuildDocument(_) => Some(TaskKey::Document),
            Effect::Search { .. } => Some(TaskKey::Search),
            Effect::Grep { .. } => Some(TaskKey::Grep),
            Effect::Watch { .. } => Some(TaskKey::Watch),
            Effect::Copy { .. } | Effect::Edit { .. } | Effect::Cancel(_) => None,
        }
    }
}
