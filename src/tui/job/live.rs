//! The live watch behind `Effect::Watch`: a [`ChangeFeed`] wakes a [`Follower`] when files
//! under the roots change; each file that changed is sent whole, as parsed last, with the
//! alerts its trajectories fired. A file caught mid-write is retried shortly and sent only
//! once it parses, so the app never sees a torn write. Blocking; the runtime gives it a
//! thread of its own, the harness calls [`LiveJob`] directly.

use crate::metrics::{AlertLog, Matcher, TrajectoryTally, has_alerts};
use crate::model::{Trajectory, TrajectorySummary};
use crate::tui::msg::{LiveFile, LiveMsg, LiveTrajectory, Msg};
use crate::tui::state::trajectory::LoadedTrajectory;
use crate::watch::{ChangeFeed, FeedMode, FileStatus, FileUpdate, Follower, TrajectoryChange};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A burst of writes is merged this long before it is read (as `trajscope watch` does).
const QUIET: Duration = Duration::from_millis(25);
const MAX_DELAY: Duration = Duration::from_millis(100);
/// A file caught mid-write is read again after this long, even without a new event.
const RETRY: Duration = Duration::from_millis(150);
/// How often an idle watch looks whether it was cancelled.
const IDLE: Duration = Duration::from_secs(1);

/// Set to poll instead of using notifications (network filesystems are detected anyway).
pub const POLL_ENV: &str = "TRAJSCOPE_POLL";

/// What is followed, and what was sent of it.
pub struct LiveJob {
    follower: Follower,
    /// Each root made absolute (as notifications report paths) and as the user named it.
    roots: Vec<(PathBuf, PathBuf)>,
    /// The run's rules: every changed trajectory is tallied with them.
    rules: Arc<Matcher>,
    /// Whether any of them is an alert.
    alerts: bool,
    logs: HashMap<(PathBuf, usize), AlertLog>,
    /// Per file, what was sent last: unchanged trajectories are sent again without rework.
    sent: HashMap<PathBuf, Vec<LiveTrajectory>>,
}

impl LiveJob {
    /// Follows `roots`, tallying and alerting with `rules` (the run's).
    pub fn with_matcher(roots: &[PathBuf], rules: Arc<Matcher>) -> LiveJob {
        let mut follower = Follower::new(roots.to_vec());
        let roots = follower
            .roots()
            .iter()
            .cloned()
            .zip(roots.iter().cloned())
            .collect();
        // The app reads the files itself: each is read here once it changes. Made after the
        // feed started (`watch`), so that a write from now on is seen as a change.
        follower.baseline();
        LiveJob {
            follower,
            roots,
            alerts: has_alerts(&rules),
            rules,
            logs: HashMap::new(),
            sent: HashMap::new(),
        }
    }

    /// A batch of changed paths from the feed.
    pub fn changed(&mut self, paths: &[PathBuf]) -> Vec<Msg> {
        let updates = self.follower.changed(paths);
        self.messages(updates)
    }

    /// Files caught mid-write, read again.
    pub fn retry(&mut self) -> Vec<Msg> {
        let updates = self.follower.retry_pending();
        self.messages(updates)
    }

    /// Every file under the roots, read now (the harness's stand-in for notifications).
    pub fn scan(&mut self) -> Vec<Msg> {
        let updates = self.follower.scan();
        self.messages(updates)
    }

    pub fn has_pending(&self) -> bool {
        self.follower.has_pending()
    }

    fn messages(&mut self, updates: Vec<FileUpdate>) -> Vec<Msg> {
        updates
            .into_iter()
            .filter_map(|update| self.message(&update))
            .map(|file| Msg::Live(LiveMsg::File(file)))
            .collect()
    }

    fn message(&mut self, update: &FileUpdate) -> Option<LiveFile> {
        let path = self.user_path(&update.path);
        if update.status == FileStatus::Removed {
            self.logs.retain(|(p, _), _| p != &update.path);
            self.sent.remove(&update.path);
            return Some(LiveFile {
                path,
                trajectories: Vec::new(),
                removed: true,
            });
        }
        // Mid-write, failed or unchanged: what was sent last still stands.
        if update.changes.is_empty() {
            return None;
        }
        let file = self.follower.file(&update.path)?;
        let changed = |index: usize| {
            update.changes.iter().any(|c| match *c {
                TrajectoryChange::Added { index: i }
                | TrajectoryChange::Grew { index: i, .. }
                | TrajectoryChange::Replaced { index: i } => i == index,
                TrajectoryChange::Removed { .. } => false,
            })
        };
        let before = self.sent.remove(&update.path).unwrap_or_default();
        let mut trajectories = Vec::with_capacity(file.trajectories().len());
        for (index, trajectory) in file.trajectories().iter().enumerate() {
            let reusable = before.get(index).filter(|_| !changed(index));
            if let Some(old) = reusable {
                trajectories.push(LiveTrajectory {
                    alerts: Vec::new(),
                    ..old.clone()
                });
                continue;
            }
            if update
                .changes
                .contains(&TrajectoryChange::Replaced { index })
            {
                self.logs.remove(&(update.path.clone(), index));
            }
            let alerts = if self.alerts {
                self.logs
                    .entry((update.path.clone(), index))
                    .or_default()
                    .new_firings(&self.rules, trajectory)
            } else {
                Vec::new()
            };
            let mut trajectory: Trajectory = trajectory.clone();
            trajectory.path = path.clone();
            trajectories.push(LiveTrajectory {
                summary: TrajectorySummary::of(&trajectory),
                tally: TrajectoryTally::of(&self.rules, &trajectory),
                loaded: Arc::new(LoadedTrajectory::new(trajectory)),
                alerts,
            });
        }
        self.sent.insert(update.path.clone(), trajectories.clone());
        Some(LiveFile {
            path,
            trajectories,
            removed: false,
        })
    }

    /// `path` under the root the user named, in the user's words: `runs/x/a.traj` rather
    /// than `/home/me/runs/x/a.traj`, so that it matches the run's rows.
    fn user_path(&self, path: &Path) -> PathBuf {
        for (absolute, given) in &self.roots {
            if let Ok(rest) = path.strip_prefix(absolute) {
                return if rest.as_os_str().is_empty() {
                    given.clone()
                } else {
                    given.join(rest)
                };
            }
        }
        path.to_path_buf()
    }
}

/// Watches `roots` until `cancel` is set or `send` reports the app gone.
pub fn watch(
    roots: &[PathBuf],
    rules: Arc<Matcher>,
    send: &dyn Fn(Msg) -> bool,
    cancel: &AtomicBool,
) {
    let poll = std::env::var_os(POLL_ENV).is_some_and(|v| !v.is_empty() && v != "0");
    let feed = match ChangeFeed::new(roots, poll) {
        Ok(feed) => feed,
        Err(err) => {
            send(Msg::Live(LiveMsg::Stopped(err.to_string())));
            return;
        }
    };
    let polling = match feed.mode() {
        FeedMode::Notify => None,
        FeedMode::Poll { reason, .. } => Some(reason.clone()),
    };
    if !send(Msg::Live(LiveMsg::Started { polling })) {
        return;
    }
    let mut job = LiveJob::with_matcher(roots, rules);
    while !cancel.load(Ordering::Relaxed) {
        let timeout = if job.has_pending() { RETRY } else { IDLE };
        let Ok(paths) = feed.next_batch(timeout, QUIET, MAX_DELAY) else {
            send(Msg::Live(LiveMsg::Stopped(
                "the file watcher stopped".into(),
            )));
            return;
        };
        let msgs = if paths.is_empty() {
            job.retry()
        } else {
            job.changed(&paths)
        };
        for msg in msgs {
            if !send(msg) {
                return;
            }
        }
    }
}
