//! The run as the TUI loads it: the one run loader (`formats::read_run_files`) with each file
//! summarised and tallied through the run cache, reported as messages. The runtime and the
//! test harness both load this way, so headless tests go through the cache too. A Parquet
//! dataset streams its rows while it is read ([`dataset_rows`]).

mod dataset_rows;

use crate::formats::{CachedOutcome, FileRead, Handover, RunCache, read_run_files};
use crate::metrics::{Matcher, TalliedFile, TrajectoryTally, tally_cache_key, tally_file};
use crate::model::LoadFailure;
use crate::tui::msg::{FileOutcome, Msg};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Files handed over together: small enough that the table fills in as files are read,
/// big enough that the parallel read rarely waits for a slow file.
const GROUP: usize = 32;

/// A message is sent once it holds this many files from the cache, or this many read, or
/// has waited this long: the table fills in ten times a second, sorted once per message.
const CACHED_PER_MESSAGE: usize = 500;
const READ_PER_MESSAGE: usize = 200;
const BATCH_TIME: Duration = Duration::from_millis(100);

/// Loads the run: announces its files (`RunDiscovered`) and the results above it, lists and
/// tallies unchanged files from the run cache under `cache_dir` and reads the others in
/// parallel (`RunFiles`), then saves the cache and sends `RunLoaded`. Returns how many
/// files were read (the rest came from the cache). When cancelled it stops starting files
/// and saves nothing.
pub fn load_run(
    roots: &[PathBuf],
    rules: &Matcher,
    cache_dir: Option<&Path>,
    send: &(dyn Fn(Msg) -> bool + Sync),
    cancel: &AtomicBool,
) -> usize {
    let (candidates, failures) = crate::formats::discover(roots);
    send(Msg::RunDiscovered {
        files: candidates.len(),
        bytes: candidates.iter().map(|c| c.size).sum(),
        failures,
    });
    send(Msg::RunResultsAbove(crate::formats::results_above(roots)));
    let mut cache = match cache_dir {
        Some(dir) => RunCache::open(dir, roots),
        None => RunCache::disabled(),
    };
    let key = tally_cache_key(rules);
    let mut batch = Batch::default();
    let mut read = 0;
    let complete = read_run_files(
        &candidates,
        &mut cache,
        cancel,
        Handover::Groups(GROUP),
        |candidate, cache| {
            if crate::formats::parquet::is_parquet(&candidate.path) {
                let file = dataset_rows::stream(&candidate.path, rules, send);
                return FileRead {
                    item: (candidate.size, candidate.path.clone(), file),
                    fresh: None,
                };
            }
            let TalliedFile {
                outcome,
                tallies,
                read,
                fresh,
            } = tally_file(cache, &candidate.path, rules, &key);
            let file = TalliedFile {
                outcome,
                tallies,
                read,
                fresh: None,
            };
            FileRead {
                item: (candidate.size, candidate.path.clone(), file),
                fresh,
            }
        },
        &|_| {},
        |files| {
            for (bytes, path, file) in files {
                read += usize::from(file.read);
                batch.add(bytes, &path, file);
            }
            if batch.full() {
                batch.flush(send);
            }
        },
    );
    batch.flush(send);
    send(Msg::RunLoaded);
    if complete && !cancel.load(Ordering::Relaxed) {
        // A cache that cannot be written only costs speed next time.
        let _ = cache.save();
    }
    read
}

/// Files done but not yet sent.
struct Batch {
    files: Vec<(u64, FileOutcome)>,
    tallies: Vec<TrajectoryTally>,
    read: usize,
    since: Instant,
}

impl Default for Batch {
    fn default() -> Batch {
        Batch {
            files: Vec::new(),
            tallies: Vec::new(),
            read: 0,
            since: Instant::now(),
        }
    }
}

impl Batch {
    fn add(&mut self, bytes: u64, path: &Path, file: TalliedFile) {
        self.read += usize::from(file.read);
        self.files.push((bytes, outcome(path, file.outcome)));
        self.tallies.extend(file.tallies);
    }

    fn full(&self) -> bool {
        self.files.len() >= CACHED_PER_MESSAGE
            || self.read >= READ_PER_MESSAGE
            || self.since.elapsed() >= BATCH_TIME
    }

    fn flush(&mut self, send: &(dyn Fn(Msg) -> bool + Sync)) {
        let batch = std::mem::take(self);
        if !batch.files.is_empty() {
            send(Msg::RunFiles {
                files: batch.files,
                tallies: batch.tallies,
            });
        }
    }
}

fn outcome(path: &Path, cached: CachedOutcome) -> FileOutcome {
    match cached {
        CachedOutcome::Trajectories(summaries) => FileOutcome::Trajectories(summaries),
        CachedOutcome::Results(source) => FileOutcome::Results(source),
        CachedOutcome::Failed(message) => FileOutcome::Failed(LoadFailure {
            path: path.to_path_buf(),
            message,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Matcher;
    use std::sync::Arc;

    /// The messages of a run load through the cache under `cache_dir`, and how many files
    /// it read.
    fn load(root: &std::path::Path, cache_dir: &std::path::Path) -> (Vec<Msg>, usize) {
        let (tx, rx) = std::sync::mpsc::channel();
        let rules = Arc::new(Matcher::new(crate::metrics::RuleSet::defaults().rules).0);
        let read = load_run(
            &[root.to_path_buf()],
            &rules,
            Some(cache_dir),
            &|msg| tx.send(msg).is_ok(),
            &AtomicBool::new(false),
        );
        (rx.try_iter().collect(), read)
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
}
