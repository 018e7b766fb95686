//! Filesystem notifications (or polling) → debounced batches of changed paths.

use super::mounts::is_network_filesystem;
use super::poll::Poller;
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum WatchError {
    #[error("{}: cannot watch: {source}", path.display())]
    Watch {
        path: PathBuf,
        #[source]
        source: notify::Error,
    },
}

/// How changes are noticed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedMode {
    /// Kernel notifications (inotify, FSEvents, …): no work while nothing changes.
    Notify,
    /// Polling every `interval`, because notifications cannot be trusted here (`reason`).
    Poll { interval: Duration, reason: String },
}

/// Changed paths under the watched roots, as they happen.
pub struct ChangeFeed {
    events: Receiver<notify::Result<notify::Event>>,
    // Kept alive for as long as the feed: dropping it stops the watching.
    _watcher: Box<dyn Send>,
    mode: FeedMode,
}

const POLL_INTERVAL: Duration = Duration::from_millis(500);

impl ChangeFeed {
    /// Watches `roots` (folders recursively; files through their folder, so that a file
    /// replaced by rename is still seen). Polls when `force_poll` is set, when a root is on
    /// a network filesystem, or when notifications cannot be set up.
    pub fn new(roots: &[PathBuf], force_poll: bool) -> Result<ChangeFeed, WatchError> {
        let roots: Vec<PathBuf> = roots
            .iter()
            .cloned()
            .map(super::follower::absolute)
            .collect();
        let targets: Vec<(PathBuf, RecursiveMode)> = roots
            .iter()
            .map(|root| {
                if root.is_dir() {
                    (root.clone(), RecursiveMode::Recursive)
                } else {
                    let parent = root
                        .parent()
                        .filter(|p| !p.as_os_str().is_empty())
                        .map_or_else(|| PathBuf::from("."), PathBuf::from);
                    (parent, RecursiveMode::NonRecursive)
                }
            })
            .collect();
        let network = roots.iter().find(|r| is_network_filesystem(r));
        let poll_reason = if force_poll {
            Some("polling was asked for".to_string())
        } else {
            network.map(|r| format!("{} is on a network filesystem", r.display()))
        };
        if let Some(reason) = poll_reason {
            return Self::polling(&targets, reason);
        }
        let (tx, rx) = channel();
        let notify_attempt =
            RecommendedWatcher::new(tx, notify::Config::default()).and_then(|mut watcher| {
                for (path, mode) in &targets {
                    watcher.watch(path, *mode)?;
                }
                Ok(watcher)
            });
        match notify_attempt {
            Ok(watcher) => Ok(ChangeFeed {
                events: rx,
                _watcher: Box::new(watcher),
                mode: FeedMode::Notify,
            }),
            Err(err) => Self::polling(&targets, format!("notifications unavailable: {err}")),
        }
    }

    fn polling(
        targets: &[(PathBuf, RecursiveMode)],
        reason: String,
    ) -> Result<ChangeFeed, WatchError> {
        // Our own poller, not notify's: its whole-second times missed same-second rewrites.
        let (tx, rx) = channel();
        let watcher = Poller::spawn(targets.to_vec(), POLL_INTERVAL, tx).map_err(|err| {
            WatchError::Watch {
                path: targets.first().map(|t| t.0.clone()).unwrap_or_default(),
                source: notify::Error::io(err),
            }
        })?;
        Ok(ChangeFeed {
            events: rx,
            _watcher: Box::new(watcher),
            mode: FeedMode::Poll {
                interval: POLL_INTERVAL,
                reason,
            },
        })
    }

    pub fn mode(&self) -> &FeedMode {
        &self.mode
    }

    /// Waits up to `timeout` for a change, then keeps collecting until `quiet` passes with no
    /// further event (but no longer than `max_delay` after the first), and returns the
    /// distinct changed paths. `Ok(empty)` on timeout; `Err` when the watcher has stopped.
    pub fn next_batch(
        &self,
        timeout: Duration,
        quiet: Duration,
        max_delay: Duration,
    ) -> Result<Vec<PathBuf>, FeedClosed> {
        let mut paths = BTreeSet::new();
        match self.events.recv_timeout(timeout) {
            Ok(event) => collect(&mut paths, event),
            Err(RecvTimeoutError::Timeout) => return Ok(Vec::new()),
            Err(RecvTimeoutError::Disconnected) => return Err(FeedClosed),
        }
        let first = Instant::now();
        loop {
            let left = max_delay.saturating_sub(first.elapsed());
            if left.is_zero() {
                break;
            }
            match self.events.recv_timeout(quiet.min(left)) {
                Ok(event) => collect(&mut paths, event),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        Ok(paths.into_iter().collect())
    }
}

/// The watcher behind a feed is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("the file watcher stopped")]
pub struct FeedClosed;

fn collect(paths: &mut BTreeSet<PathBuf>, event: notify::Result<notify::Event>) {
    if let Ok(event) = event
        && !matches!(event.kind, notify::EventKind::Access(_))
    {
        paths.extend(event.paths);
    }
}
