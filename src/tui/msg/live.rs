//! What the live watch reports to the app: how it watches, and each followed file as it now
//! stands. Only complete parses are sent (a file caught mid-write is retried, not sent), so
//! the app never sees a half-parsed state.

use crate::metrics::{Firing, TrajectoryTally};
use crate::model::TrajectorySummary;
use crate::tui::state::live::LiveKey;
use crate::tui::state::trajectory::LoadedTrajectory;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub enum LiveMsg {
    /// Watching has started: by notifications, or by polling for `polling`'s reason.
    Started { polling: Option<String> },
    /// One file changed; paths are as the user named them (relative roots stay relative).
    File(LiveFile),
    /// Watching could not start or stopped.
    Stopped(String),
    /// `QUIET_AFTER` has passed since change number `change` of a running trajectory.
    Quiet { key: LiveKey, change: u64 },
}

#[derive(Debug, Clone)]
pub struct LiveFile {
    pub path: PathBuf,
    /// Every trajectory the file now holds; empty when it was removed.
    pub trajectories: Vec<LiveTrajectory>,
    pub removed: bool,
}

#[derive(Debug, Clone)]
pub struct LiveTrajectory {
    pub summary: TrajectorySummary,
    /// The full trajectory with its step rows, for the trajectory view if it shows this one.
    pub loaded: Arc<LoadedTrajectory>,
    /// Alerts that fired since the last report of this trajectory.
    pub alerts: Vec<Firing>,
    /// What the run's rules find in it now: replaces its earlier tally, so that the
    /// dashboard counts what `stats` would count on the file as it stands.
    pub tally: TrajectoryTally,
}
