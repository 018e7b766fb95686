//! What `update` asks the outside world to do, as data. The work an effect asks for is a
//! *job* (`job::run` does it; the runtime runs it in the background, the harness inline)
//! that reports back with `Msg`s; tests run them inline or just look at them. ("Task" is
//! the user's word for what an agent was asked to do, never for this.)

use super::document::DocRequest;
use super::msg::Msg;
use super::panel::replay::{Mode, ReplaySetup};
use super::search::Query;
use super::state::compare::CompareWith;
use super::state::trajectory::TrajectoryRef;
use crate::export::StepRange;
use crate::metrics::{LabelSet, Matcher};
use crate::model::Trajectory;
use crate::present::StepBadges;
use crate::replay::input::StepInput;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Debug, Clone)]
pub enum Effect {
    /// Walk the roots and read every file, reporting each as it is read, and tally its
    /// trajectories with `rules`.
    LoadRun {
        roots: Vec<PathBuf>,
        rules: Arc<Matcher>,
    },
    /// Read the label files of the run folders of `roots`.
    LoadLabels { roots: Vec<PathBuf> },
    /// Write a run folder's label file (merged with what is on disk); `edit` is the label
    /// edit it includes.
    SaveLabels { set: LabelSet, edit: u64 },
    /// Write the trajectory (or some of its steps) to a new file in `dir`.
    Export(Box<ExportRequest>),
    /// Read one trajectory in full.
    LoadTrajectory {
        id: u64,
        source: TrajectoryRef,
        /// Files at least this big open lazily where their format allows.
        lazy_above: u64,
    },
    /// Read two trajectories and align them.
    LoadCompare {
        id: u64,
        a: TrajectoryRef,
        b: CompareWith,
    },
    /// Read one instance's trajectory in each run (`None`: the run has none).
    LoadInstance {
        id: u64,
        sources: Vec<Option<TrajectoryRef>>,
    },
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
    /// Runs until cancelled. `rules` are the run's: each changed trajectory is tallied with
    /// them (so the dashboard's counts grow as steps arrive) and its alerts come from them.
    Watch {
        roots: Vec<PathBuf>,
        rules: Arc<Matcher>,
    },
    /// Send `msg` back after `after` (a timer; not a job: nothing replaces or cancels it).
    Later { after: Duration, msg: Box<Msg> },
    /// Stop the job with this key, if one runs, and drop what it still sends (a newer job
    /// replaces it).
    Cancel(JobKey),
    /// Stop the job with this key, if one runs, and let it report how it ended (a replay
    /// says what it did before it stopped). The runtime holds what stops it; the state only
    /// knows the key.
    Stop(JobKey),
    /// Re-run from a step against a live model, reporting as `Msg::Replay`.
    Replay(Box<ReplayRequest>),
    /// Show text in `$EDITOR` and send back what was saved (`ReplayMsg::Edited`).
    EditContext { text: String, name: String },
}

/// What the replay panel asked to run.
#[derive(Debug, Clone)]
pub struct ReplayRequest {
    /// Tells this run's reports apart from an earlier one's.
    pub job: u64,
    pub trajectory: Arc<Trajectory>,
    /// 1-based step to re-run from.
    pub step: usize,
    /// The context to send (edited or not).
    pub input: StepInput,
    /// The backend's name among `backends`' choices.
    pub backend: String,
    pub backends: ReplaySetup,
    pub mode: Mode,
    pub samples: usize,
    pub max_steps: usize,
    pub workspace: PathBuf,
    /// Continue: the commands run under bubblewrap (off: unprotected, as `--no-sandbox`).
    pub sandbox: bool,
    /// Continue: the sandbox shares the network (`--network`).
    pub network: bool,
    /// Continue: more read-only paths in the sandbox (`--bind`).
    pub binds: Vec<PathBuf>,
    /// Continue: step k's answer as the user wrote it (run instead of asking the model).
    pub edited_answer: Option<crate::model::Message>,
}

/// What to export, and where.
#[derive(Debug, Clone)]
pub struct ExportRequest {
    pub trajectory: Arc<Trajectory>,
    pub steps: StepRange,
    pub html: bool,
    /// The matched rules and labels of each exported step (1-based), shown as tags.
    pub badges: StepBadges,
    /// The folder the file goes in; the current directory when not set.
    pub dir: Option<PathBuf>,
    /// The row's label, the page's title.
    pub title: Option<String>,
}

/// Jobs with the same key replace each other: the newer one cancels the older.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobKey {
    Run,
    Trajectory,
    Compare,
    Instance,
    Document,
    Search,
    Grep,
    Watch,
    Labels,
    Export,
    Replay,
}

impl Effect {
    pub fn job_key(&self) -> Option<JobKey> {
        match self {
            Effect::LoadRun { .. } => Some(JobKey::Run),
            Effect::LoadTrajectory { .. } => Some(JobKey::Trajectory),
            Effect::LoadCompare { .. } => Some(JobKey::Compare),
            Effect::LoadInstance { .. } => Some(JobKey::Instance),
            Effect::BuildDocument(_) => Some(JobKey::Document),
            Effect::Search { .. } => Some(JobKey::Search),
            Effect::Grep { .. } => Some(JobKey::Grep),
            Effect::Watch { .. } => Some(JobKey::Watch),
            Effect::LoadLabels { .. } | Effect::SaveLabels { .. } => Some(JobKey::Labels),
            Effect::Export(_) => Some(JobKey::Export),
            Effect::Replay(_) => Some(JobKey::Replay),
            Effect::Copy { .. }
            | Effect::Edit { .. }
            | Effect::Later { .. }
            | Effect::Cancel(_)
            | Effect::Stop(_)
            | Effect::EditContext { .. } => None,
        }
    }
}
