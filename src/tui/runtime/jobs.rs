//! Running effects as jobs, each through the one interpreter (`job::run`) on tokio's
//! blocking pool. A job with the same [`JobKey`] as a running one cancels it (a flag that
//! the work checks, and its messages are no longer sent): the latest job wins. Stopping a job
//! (`Effect::Stop`) sets only the flag the work checks, so it still reports how it ended.
//! These flags are the runtime's: the state names a job by its key, never holds its handle.
//!
//! The run load goes through the run cache shared with `ls` and `stats` (in the user's cache
//! folder): unchanged files are listed and tallied from it without being read.

use crate::formats::RunCache;
use crate::tui::effect::{Effect, JobKey};
use crate::tui::job;
use crate::tui::msg::Msg;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::mpsc::UnboundedSender;

/// A running job's two flags.
struct Running {
    /// The work stops: it checks this.
    stop: Arc<AtomicBool>,
    /// What it still sends is dropped.
    stale: Arc<AtomicBool>,
}

pub struct Jobs {
    tx: UnboundedSender<Msg>,
    running: HashMap<JobKey, Running>,
    /// Where the run cache lives; `None` reads every file.
    cache_dir: Option<PathBuf>,
}

impl Jobs {
    pub fn new(tx: UnboundedSender<Msg>) -> Jobs {
        Jobs {
            tx,
            running: HashMap::new(),
            cache_dir: RunCache::default_dir(),
        }
    }

    /// Stops the job of `key` and drops what it still sends.
    pub fn cancel(&mut self, key: JobKey) {
        if let Some(job) = self.running.remove(&key) {
            job.stale.store(true, Ordering::Relaxed);
            job.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Stops the job of `key`; what it sends on the way out (how it ended) still arrives.
    pub fn stop(&mut self, key: JobKey) {
        if let Some(job) = self.running.get(&key) {
            job.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Starts the job for `effect`; an effect that is no job is run at once.
    pub fn spawn(&mut self, effect: Effect) {
        let stop = Arc::new(AtomicBool::new(false));
        let Some(key) = effect.job_key() else {
            let tx = self.tx.clone();
            job::run(effect, &|msg| tx.send(msg).is_ok(), &stop, None);
            return;
        };
        self.cancel(key);
        let stale = Arc::new(AtomicBool::new(false));
        let tx = self.tx.clone();
        let (flag, dropped) = (stop.clone(), stale.clone());
        let cache_dir = self.cache_dir.clone();
        tokio::task::spawn_blocking(move || {
            // A cancelled job's late results would be stale: they are dropped here.
            let send = |msg| !dropped.load(Ordering::Relaxed) && tx.send(msg).is_ok();
            job::run(effect, &send, &flag, cache_dir.as_deref());
        });
        self.running.insert(key, Running { stop, stale });
    }
}
