//! Everything that can happen to the app: input from the terminal and results from jobs.
//! `update` turns each into state changes and effects.

mod live;
mod mouse;
mod replay;

pub use live::{LiveFile, LiveMsg, LiveTrajectory};
pub use mouse::{Mouse, MouseKind};
pub use replay::ReplayMsg;

use super::document::{DocKey, Document};
use super::keymap::Key;
use super::panel::grep::GrepMatch;
use super::search::Hit;
use super::state::Notice;
use super::state::compare::Compared;
use super::state::trajectory::LoadedTrajectory;
use crate::metrics::{LabelSet, TrajectoryTally};
use crate::model::{LoadFailure, ResultsSource, TrajectorySummary};
use std::path::PathBuf;
use std::sync::Arc;

pub use super::state::runs::InstanceTrajectories;

#[derive(Debug, Clone)]
pub enum Msg {
    Key(Key),
    Mouse(Mouse),
    Resize {
        width: u16,
        height: u16,
    },
    Paste(String),

    /// The run's folders were walked: this many files to read.
    RunDiscovered {
        files: usize,
        bytes: u64,
        failures: Vec<LoadFailure>,
    },
    /// Eval results found in the folders above the opened paths.
    RunResultsAbove(Vec<ResultsSource>),
    /// One file of the run was read.
    RunFile {
        bytes: u64,
        outcome: FileOutcome,
    },
    /// Several files of the run (from the run cache, or read since the last such message),
    /// with what the rules found in them: one message for many files, so that the table is
    /// sorted once per batch, not once per file.
    RunFiles {
        files: Vec<(u64, FileOutcome)>,
        tallies: Vec<TrajectoryTally>,
    },
    /// Rows of a file still being read (a big Parquet dataset streams its rows), with what
    /// the rules found in them; the file itself is counted with its last rows, in `RunFiles`.
    RunRows {
        rows: Vec<TrajectorySummary>,
        tallies: Vec<TrajectoryTally>,
    },
    /// Every file of the run was read.
    RunLoaded,
    /// What the rules found in the trajectories of one file.
    RunTallied(Vec<TrajectoryTally>),
    /// The label files of the run folders: (folder, its labels or why they could not be read).
    LabelsLoaded(Vec<(PathBuf, Result<LabelSet, String>)>),
    /// A label file was written (`edit` as in `Effect::SaveLabels`).
    LabelsSaved {
        root: PathBuf,
        edit: u64,
        result: Result<LabelSet, String>,
    },

    TrajectoryLoaded {
        id: u64,
        result: Result<Box<LoadedTrajectory>, String>,
    },
    /// The file opened without a place in it (one big file named on the command line)
    /// holds several trajectories: the run lists them, none is opened.
    TrajectorySeveral {
        id: u64,
        path: std::path::PathBuf,
        count: usize,
    },
    /// The first steps of a big file, shown while the rest of it is indexed; progress, then
    /// a `TrajectoryLoaded` with the same id and every step, follow.
    TrajectoryStarted {
        id: u64,
        loaded: Box<LoadedTrajectory>,
    },
    /// How far the index of a big file has got: `read` of its `total` bytes.
    TrajectoryIndexing {
        id: u64,
        read: u64,
        total: u64,
    },
    CompareLoaded {
        id: u64,
        result: Result<Arc<Compared>, String>,
    },
    /// One instance's trajectories, one per run (`None`: that run has none).
    InstanceLoaded {
        id: u64,
        trajectories: InstanceTrajectories,
    },
    DocumentReady {
        key: DocKey,
        document: Arc<Document>,
    },
    SearchDone {
        trajectory: u64,
        query: String,
        hits: Vec<Hit>,
    },
    GrepFound {
        id: u64,
        found: GrepMatch,
    },
    GrepProgress {
        id: u64,
        files_done: usize,
    },
    GrepDone {
        id: u64,
    },

    /// A copy, an editor session or another side job finished.
    Notice(Notice),

    /// The files being written change (the live watch).
    Live(LiveMsg),

    /// A replay's progress, or the edited context.
    Replay(ReplayMsg),
}

/// What one file of a run turned out to hold.
#[derive(Debug, Clone)]
pub enum FileOutcome {
    Trajectories(Vec<TrajectorySummary>),
    Results(ResultsSource),
    Failed(LoadFailure),
}
