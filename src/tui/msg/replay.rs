//! What a replay job reports to the panel as it runs, and the context back from `$EDITOR`.

use crate::model::TrajectorySummary;

#[derive(Debug, Clone)]
pub enum ReplayMsg {
    /// A line above the output: the environment, a replayed step of the prefix.
    Log { job: u64, line: String },
    /// A sample or a live step begins.
    Block { job: u64, title: String },
    /// Streamed answer text for the current block.
    Text { job: u64, text: String },
    /// A line after the answer: its action, a line of observation, how it ended.
    Note {
        job: u64,
        line: String,
        failed: bool,
    },
    /// Forks written (or rewritten) so far, as the run table shows them.
    Forks {
        job: u64,
        forks: Vec<TrajectorySummary>,
    },
    /// The job ended: a line saying how, and why it failed if it did.
    Finished {
        job: u64,
        outcome: String,
        error: Option<String>,
    },
    /// The context as saved in `$EDITOR`, or why it could not be edited.
    Edited(Result<String, String>),
}

impl ReplayMsg {
    /// The job this reports on (`None` for the editor's answer).
    pub fn job(&self) -> Option<u64> {
        match self {
            ReplayMsg::Log { job, .. }
            | ReplayMsg::Block { job, .. }
            | ReplayMsg::Text { job, .. }
            | ReplayMsg::Note { job, .. }
            | ReplayMsg::Forks { job, .. }
            | ReplayMsg::Finished { job, .. } => Some(*job),
            ReplayMsg::Edited(_) => None,
        }
    }
}
