//! The live watch as the app sees it: whether it runs and how (polling is noted), which
//! trajectories are still being written, the alerts that fired, and follow mode in the
//! trajectory view.

use super::trajectory::TrajectoryRef;
use crate::metrics::Firing;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

/// A trajectory with no exit status whose file has not changed for this long is no longer
/// marked running: formats such as Claude Code or a chat log never write an end marker, so
/// quiet is the only sign that the agent stopped. Long enough for a slow model call or a
/// test suite between two steps.
pub const QUIET_AFTER: Duration = Duration::from_secs(180);

/// A trajectory of the run: its file, and which of the file's trajectories.
pub type LiveKey = (PathBuf, Option<usize>);

#[derive(Debug, Clone)]
pub struct LiveState {
    /// The watch runs (it reported `Started`).
    pub active: bool,
    /// Why it polls instead of using notifications, when it does.
    pub polling: Option<String>,
    /// Why it stopped, when it did.
    pub stopped: Option<String>,
    /// Files the watch has reported: their rows come from it, not from the initial load.
    pub files: HashSet<PathBuf>,
    /// Trajectories seen growing, with no exit status yet, each with the number of its last
    /// change (a quiet timer set at that change clears the mark only if no change followed).
    pub running: HashMap<LiveKey, u64>,
    /// Numbers the changes of `running`.
    pub changes: u64,
    /// Alerts fired per trajectory, in order.
    pub alerts: HashMap<LiveKey, Vec<Firing>>,
    /// Trajectory view: keep the cursor on the newest step while it is on the last one.
    pub follow: bool,
    /// Steps that arrived below the cursor while it was not following, not yet looked at.
    pub unseen: usize,
    /// The trajectory `unseen` counts for.
    pub unseen_in: Option<TrajectoryRef>,
}

impl Default for LiveState {
    fn default() -> LiveState {
        LiveState {
            active: false,
            polling: None,
            stopped: None,
            files: HashSet::new(),
            running: HashMap::new(),
            changes: 0,
            alerts: HashMap::new(),
            follow: true,
            unseen: 0,
            unseen_in: None,
        }
    }
}

impl LiveState {
    pub fn is_running(&self, key: &LiveKey) -> bool {
        self.running.contains_key(key)
    }

    pub fn alerts_of(&self, key: &LiveKey) -> &[Firing] {
        self.alerts.get(key).map_or(&[], Vec::as_slice)
    }

    pub fn alert_count(&self) -> usize {
        self.alerts.values().map(Vec::len).sum()
    }
}
