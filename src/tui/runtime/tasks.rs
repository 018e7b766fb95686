//! Running effects as tokio tasks. A task with the same [`TaskKey`] as a running one cancels
//! it (abort for the async part, a flag that blocking work checks): the latest job wins.

use crate::metrics::Matcher;
use crate::tui::effect::{Effect, TaskKey};
use crate::tui::job;
use crate::tui::msg::Msg;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::{AbortHandle, JoinSet};

pub struct Tasks {
    tx: UnboundedSender<Msg>,
    running: HashMap<TaskKey, (AbortHandle, Arc<AtomicBool>)>,
}

impl Tasks {
    pub fn new(tx: UnboundedSender<Msg>) -> Tasks {
        Tasks {
            tx,
            running: HashMap::new(),
        }
    }

    pub fn cancel(&mut self, key: TaskKey) {
        if let Some((handle, flag)) = self.running.remove(&key) {
            flag.store(true, Ordering::Relaxed);
            handle.abort();
        }
    }

    /// Starts the task for `effect`. Effects that are not tasks are ignored here.
    pub fn spawn(&mut self, effect: Effect) {
        let Some(key) = effect.task_key() else {
            return;
        };
        self.cancel(key);
        let cancel = Arc::new(AtomicBool::new(false));
        let tx = self.tx.clone();
        let flag = cancel.clone();
        let handle = match effect {
            Effect::LoadRun { roots, rules } => tokio::spawn(load_run(roots, rules, tx, flag)),
            Effect::LoadTrajectory { id, source } => {
                blocking(tx, move || Some(job::load_trajectory(id, &source)))
            }
            Effect::LoadCompare { id, a, b } => {
                blocking(tx, move || Some(job::load_compare(id, &a, &b)))
            }
            Effect::BuildDocument(request) => {
                blocking(tx, move || job::build_document(&request, &flag))
            }
            Effect::Search {
                trajectory,
                query,
                source,
            } => blocking(tx, move || {
                Some(job::search(trajectory, &query, &source, &flag))
            }),
            Effect::Grep { id, query, files } => tokio::spawn(async move {
                let query = Arc::new(query);
                let mut done = 0;
                for_each_file(
                    files,
                    flag,
                    |path| {
                        let query = query.clone();
                        move || job::grep_file(id, &query, &path)
                    },
                    |msgs| {
                        done += 1;
                        for msg in msgs {
                            let _ = tx.send(msg);
                        }
                        let _ = tx.send(Msg::GrepProgress {
                            id,
                            files_done: done,
                        });
                    },
                )
                .await;
                let _ = tx.send(Msg::GrepDone { id });
            }),
            Effect::Watch { roots } => tokio::task::spawn_blocking(move || {
                job::live::watch(&roots, &|msg| tx.send(msg).is_ok(), &flag);
            }),
            Effect::LoadLabels { roots } => blocking(tx, move || Some(job::labels::load(&roots))),
            Effect::SaveLabels { set, edit } => {
                blocking(tx, move || Some(job::labels::save(set, edit)))
            }
            Effect::Export(request) => blocking(tx, move || Some(job::export::export(&request))),
            Effect::Replay(request) => {
                // The prefix replay and the executor block: the whole run gets a thread of
                // the blocking pool, and drives its requests on the runtime from there.
                let runtime = tokio::runtime::Handle::current();
                tokio::spawn(async move {
                    let _ = tokio::task::spawn_blocking(move || {
                        runtime.block_on(job::replay::run(*request, &mut |msg| {
                            let _ = tx.send(msg);
                        }));
                    })
                    .await;
                })
            }
            Effect::Copy { .. }
            | Effect::Edit { .. }
            | Effect::Later { .. }
            | Effect::Cancel(_)
            | Effect::CancelReplay(_)
            | Effect::EditContext { .. } => return,
        };
        self.running.insert(key, (handle.abort_handle(), cancel));
    }
}

/// Runs `work` on the blocking pool and sends its message, if any.
fn blocking(
    tx: UnboundedSender<Msg>,
    work: impl FnOnce() -> Option<Msg> + Send + 'static,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        if let Ok(Some(msg)) = tokio::task::spawn_blocking(work).await {
            let _ = tx.send(msg);
        }
    })
}

async fn load_run(
    roots: Vec<PathBuf>,
    rules: Arc<Matcher>,
    tx: UnboundedSender<Msg>,
    cancel: Arc<AtomicBool>,
) {
    let Ok((candidates, msg)) = tokio::task::spawn_blocking(move || job::discover(&roots)).await
    else {
        return;
    };
    let _ = tx.send(msg);
    let candidates: Vec<_> = candidates.into_iter().map(Arc::new).collect();
    for_each_file(
        candidates,
        cancel,
        |c| {
            let rules = rules.clone();
            move || job::read_run_file(&c, &rules)
        },
        |msgs| {
            for msg in msgs {
                let _ = tx.send(msg);
            }
        },
    )
    .await;
    let _ = tx.send(Msg::RunLoaded);
}

/// Runs `work(item)` for every item on the blocking pool, as many at once as there are
/// cores, handing each result to `done` as it finishes. Stops starting work when cancelled.
async fn for_each_file<I, W, R>(
    items: Vec<I>,
    cancel: Arc<AtomicBool>,
    work: impl Fn(I) -> W,
    mut done: impl FnMut(R),
) where
    W: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let parallel = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut set = JoinSet::new();
    for item in items {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        while set.len() >= parallel {
            if let Some(Ok(result)) = set.join_next().await {
                done(result);
            }
        }
        set.spawn_blocking(work(item));
    }
    while let Some(result) = set.join_next().await {
        if let Ok(result) = result {
            done(result);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn a_cancelled_run_load_stops_starting_files() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let cancel = Arc::new(AtomicBool::new(false));
        let started = Arc::new(AtomicUsize::new(0));
        let total = 500;
        let mut finished = 0;
        runtime.block_on(for_each_file(
            (0..total).collect(),
            cancel.clone(),
            |_| {
                let started = started.clone();
                move || {
                    started.fetch_add(1, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            },
            |()| {
                finished += 1;
                // As when the user leaves the run: the runtime sets the task's flag.
                cancel.store(true, Ordering::SeqCst);
            },
        ));
        let started = started.load(Ordering::SeqCst);
        let parallel = std::thread::available_parallelism().map_or(2, |n| n.get());
        assert!(
            started <= 2 * parallel,
            "{started} of {total} files started after cancelling"
        );
        assert_eq!(finished, started, "files in flight still finish");
    }
}
