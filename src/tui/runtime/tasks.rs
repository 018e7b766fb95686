//! Running effects as tokio tasks. A task with the same [`TaskKey`] as a running one cancels
//! it (abort for the async part, a flag that blocking work checks): the latest job wins.
//!
//! The run load goes through the run cache shared with `ls` and `stats` (in the user's cache
//! folder): unchanged files are listed and tallied from it without being read.

use crate::formats::{Candidate, RunCache};
use crate::metrics::{Matcher, tally_cache_key};
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
    /// Where the run cache lives; `None` reads every file.
    cache_dir: Option<PathBuf>,
}

impl Tasks {
    pub fn new(tx: UnboundedSender<Msg>) -> Tasks {
        Tasks {
            tx,
            running: HashMap::new(),
            cache_dir: RunCache::default_dir(),
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
            Effect::LoadRun { roots, rules } => {
                let cache_dir = self.cache_dir.clone();
                tokio::spawn(async move {
                    load_run(roots, rules, cache_dir, tx, flag).await;
                })
            }
            Effect::LoadTrajectory {
                id,
                source,
                lazy_above,
            } => blocking(tx, move || {
                Some(job::load_trajectory(id, &source, lazy_above))
            }),
            Effect::LoadCompare { id, a, b } => {
                blocking(tx, move || Some(job::load_compare(id, &a, &b)))
            }
            Effect::LoadInstance { id, sources } => {
                blocking(tx, move || Some(job::load_instance(id, &sources)))
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
            Effect::Watch { roots, rules } => tokio::task::spawn_blocking(move || {
                job::live::watch(&roots, rules, &|msg| tx.send(msg).is_ok(), &flag);
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

/// Files taken from the cache per message: the table fills in a few steps, and a cancel
/// is seen between them.
const CACHED_PER_MESSAGE: usize = 500;

/// Files read per message at most, and how long a read file waits for others to share its
/// message: the table fills in ten times a second, sorted once per message.
const READ_PER_MESSAGE: usize = 200;
const BATCH_TIME: std::time::Duration = std::time::Duration::from_millis(100);

/// Files read but not yet sent.
struct Batch {
    files: Vec<(u64, crate::tui::msg::FileOutcome)>,
    tallies: Vec<crate::metrics::TrajectoryTally>,
    since: std::time::Instant,
}

impl Default for Batch {
    fn default() -> Batch {
        Batch {
            files: Vec::new(),
            tallies: Vec::new(),
            since: std::time::Instant::now(),
        }
    }
}

impl Batch {
    fn flush(&mut self, tx: &UnboundedSender<Msg>) {
        let batch = std::mem::take(self);
        if !batch.files.is_empty() {
            let _ = tx.send(Msg::RunFiles {
                files: batch.files,
                tallies: batch.tallies,
            });
        }
    }
}

/// Loads the run: discovers its files, lists and tallies the unchanged ones from the run
/// cache under `cache_dir`, reads the others in parallel, then saves the cache. Returns how
/// many files were read (the rest came from the cache); stops early when cancelled, and
/// then saves nothing.
async fn load_run(
    roots: Vec<PathBuf>,
    rules: Arc<Matcher>,
    cache_dir: Option<PathBuf>,
    tx: UnboundedSender<Msg>,
    cancel: Arc<AtomicBool>,
) -> usize {
    let Ok((candidates, msg, above, roots)) = tokio::task::spawn_blocking(move || {
        let (candidates, msg) = job::discover(&roots);
        let above = job::results_above(&roots);
        (candidates, msg, above, roots)
    })
    .await
    else {
        return 0;
    };
    let _ = tx.send(msg);
    let _ = tx.send(above);
    let opened = cache_dir.clone();
    let rules_for_key = rules.clone();
    let Ok((cache, key)) = tokio::task::spawn_blocking(move || {
        let cache = match &opened {
            Some(dir) => RunCache::open(dir, &roots),
            None => RunCache::disabled(),
        };
        (cache, tally_cache_key(&rules_for_key))
    })
    .await
    else {
        return 0;
    };
    let cache = Arc::new(cache);
    let key: Arc<str> = key.into();
    let present: Vec<PathBuf> = candidates.iter().map(|c| c.path.clone()).collect();

    let mut misses: Vec<Arc<Candidate>> = Vec::new();
    if cache.is_empty() {
        misses = candidates.into_iter().map(Arc::new).collect();
    } else {
        for chunk in candidates.chunks(CACHED_PER_MESSAGE) {
            if cancel.load(Ordering::Relaxed) {
                break;
            }
            let (chunk, shared, key) = (chunk.to_vec(), cache.clone(), key.clone());
            let Ok((msg, missed)) = tokio::task::spawn_blocking(move || {
                job::run_files_from_cache(&chunk, &shared, &key)
            })
            .await
            else {
                return 0;
            };
            if let Some(msg) = msg {
                let _ = tx.send(msg);
            }
            misses.extend(missed.into_iter().map(Arc::new));
        }
    }

    let read = misses.len();
    let mut fresh = Vec::new();
    let mut batch = Batch::default();
    for_each_file(
        misses,
        cancel.clone(),
        |c| {
            let (rules, cache, key) = (rules.clone(), cache.clone(), key.clone());
            move || {
                let file = job::read_run_file_cached(&c, &rules, &cache, &key);
                (c.path.clone(), file)
            }
        },
        |(path, file)| {
            fresh.extend(file.fresh.map(|entry| (path, entry)));
            batch.files.push((file.bytes, file.outcome));
            batch.tallies.extend(file.tallies);
            if batch.files.len() >= READ_PER_MESSAGE || batch.since.elapsed() >= BATCH_TIME {
                batch.flush(&tx);
            }
        },
    )
    .await;
    batch.flush(&tx);
    let _ = tx.send(Msg::RunLoaded);
    if cancel.load(Ordering::Relaxed) {
        return read;
    }
    // Every worker is done with the cache: it is ours again to update and write.
    if let Ok(mut cache) = Arc::try_unwrap(cache)
        && cache.is_enabled()
    {
        let _ = tokio::task::spawn_blocking(move || {
            for (path, entry) in fresh {
                cache.put(path, entry);
            }
            let present: std::collections::HashSet<PathBuf> = present.into_iter().collect();
            cache.retain(|p| present.contains(p));
            // A cache that cannot be written only costs speed next time.
            let _ = cache.save();
        })
        .await;
    }
    read
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

    /// The messages of a run load through the cache under `cache_dir`, and how many files
    /// it read.
    fn load(root: &std::path::Path, cache_dir: &std::path::Path) -> (Vec<Msg>, usize) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let rules = Arc::new(Matcher::new(crate::metrics::RuleSet::defaults().rules).0);
        let read = runtime.block_on(load_run(
            vec![root.to_path_buf()],
            rules,
            Some(cache_dir.to_path_buf()),
            tx,
            Arc::new(AtomicBool::new(false)),
        ));
        let mut msgs = Vec::new();
        while let Ok(msg) = rx.try_recv() {
            msgs.push(msg);
        }
        (msgs, read)
    }

    /// (instance, steps, rule hits) of every trajectory the messages list, sorted; and the
    /// number of files they account for.
    fn listed(msgs: &[Msg]) -> (Vec<(String, usize, usize)>, usize) {
        use crate::tui::msg::FileOutcome;
        let mut rows = Vec::new();
        let mut hits = std::collections::HashMap::new();
        let mut files = 0;
        let mut add = |outcome: &FileOutcome, files: &mut usize| {
            *files += 1;
            if let FileOutcome::Trajectories(summaries) = outcome {
                rows.extend(summaries.iter().map(|s| (s.instance_id.clone(), s.steps)));
            }
        };
        for msg in msgs {
            match msg {
                Msg::RunFile { outcome, .. } => add(outcome, &mut files),
                Msg::RunFiles {
                    files: cached,
                    tallies,
                } => {
                    for (_, outcome) in cached {
                        add(outcome, &mut files);
                    }
                    hits.extend(
                        tallies
                            .iter()
                            .map(|t| (t.instance_id.clone(), t.hits.len())),
                    );
                }
                Msg::RunTallied(tallies) => hits.extend(
                    tallies
                        .iter()
                        .map(|t| (t.instance_id.clone(), t.hits.len())),
                ),
                _ => {}
            }
        }
        let mut rows: Vec<_> = rows
            .into_iter()
            .map(|(id, steps)| {
                let n = hits.get(&id).copied().unwrap_or(usize::MAX);
                (id, steps, n)
            })
            .collect();
        rows.sort();
        (rows, files)
    }

    fn write_traj(path: &std::path::Path, steps: usize) {
        let trajectory: Vec<_> = (0..steps)
            .map(|i| serde_json::json!({"action": format!("cat x{i}.py"), "observation": "cat: x.py: No such file or directory", "response": "", "thought": ""}))
            .collect();
        let doc = serde_json::json!({"trajectory": trajectory, "history": [], "info": {"exit_status": "submitted"}});
        std::fs::write(path, serde_json::to_vec(&doc).unwrap()).unwrap();
    }

    #[test]
    fn a_warm_run_cache_lists_the_run_without_reading_files() {
        let run = tempfile::tempdir().unwrap();
        let cache_dir = tempfile::tempdir().unwrap();
        let a = run.path().join("a.traj");
        write_traj(&a, 2);
        write_traj(&run.path().join("b.traj"), 3);
        std::fs::write(run.path().join("broken.traj"), b"{\"trajectory\": [").unwrap();

        let (cold, read) = load(run.path(), cache_dir.path());
        assert_eq!(read, 3, "an empty cache: every file is read");
        let (rows, files) = listed(&cold);
        assert_eq!(files, 3);
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r.2 > 0), "tallied: {rows:?}");
        assert!(matches!(cold.last(), Some(Msg::RunLoaded)));

        let (warm, read) = load(run.path(), cache_dir.path());
        assert_eq!(read, 0, "an unchanged run is listed from the cache");
        assert_eq!(listed(&warm), (rows.clone(), 3));
        assert!(
            warm.iter()
                .any(|m| matches!(m, Msg::RunFiles { files, .. } if files.len() == 3)),
            "one message for the cached files"
        );

        // Proof that `a` is not read: garbage of the same size and time is still listed as
        // it was cached.
        let stamp = std::fs::metadata(&a).unwrap().modified().unwrap();
        let size = std::fs::metadata(&a).unwrap().len() as usize;
        std::fs::write(&a, vec![b'x'; size]).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&a)
            .unwrap()
            .set_modified(stamp)
            .unwrap();
        let (same, read) = load(run.path(), cache_dir.path());
        assert_eq!((read, listed(&same)), (0, (rows.clone(), 3)));

        // A changed file is read again, and only it.
        write_traj(&a, 5);
        let (changed, read) = load(run.path(), cache_dir.path());
        assert_eq!(read, 1);
        let (rows, _) = listed(&changed);
        assert_eq!(
            rows.iter().map(|r| (r.0.as_str(), r.1)).collect::<Vec<_>>(),
            [("a", 5), ("b", 3)]
        );
    }

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
