//! Loading files and whole runs: read, detect, parse; folders in parallel, with progress.

use super::detect::{Kind, detect};
use super::discover::{Candidate, discover};
use super::{LoadError, eval_results, parse};
use crate::model::{EvalResults, LoadFailure, ResultsSource, Run, Trajectory, TrajectorySummary};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// What one file turned out to hold.
#[derive(Debug)]
pub enum Loaded {
    Trajectories(Vec<Trajectory>),
    Results(ResultsSource),
}

/// How far a run's loading has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub files_done: usize,
    pub files_total: usize,
    pub bytes_done: u64,
    pub bytes_total: u64,
}

/// Reads and parses one file. The file is opened read-only.
pub fn load_file(path: &Path) -> Result<Loaded, LoadError> {
    let bytes = std::fs::read(path).map_err(|err| LoadError::io(path, err))?;
    load_bytes(path, &bytes)
}

/// Parses the content of a file read elsewhere (a watcher, a test).
pub fn load_bytes(path: &Path, bytes: &[u8]) -> Result<Loaded, LoadError> {
    match detect(path, bytes)? {
        Kind::Trajectories(format) => parse(format, path, bytes).map(Loaded::Trajectories),
        Kind::Results(kind) => eval_results::parse(kind, path, bytes).map(Loaded::Results),
    }
}

/// Loads every trajectory under `roots`, joins eval results, and lists what failed.
pub fn load_run(roots: &[PathBuf], on_progress: &(dyn Fn(Progress) + Sync)) -> Run {
    let (trajectories, results, failures) = load_each(roots, on_progress, |t| t);
    let mut run = Run {
        roots: roots.to_vec(),
        trajectories,
        failures,
        results,
    };
    run.results.apply(&mut run.trajectories);
    run
}

/// Like [`load_run`], but keeps only a summary of each trajectory: listing a run of
/// thousands of files holds one file's steps per thread at a time, not all of them.
pub fn load_run_summaries(
    roots: &[PathBuf],
    on_progress: &(dyn Fn(Progress) + Sync),
) -> (Vec<TrajectorySummary>, EvalResults, Vec<LoadFailure>) {
    let (mut summaries, results, failures) =
        load_each(roots, on_progress, |t| TrajectorySummary::of(&t));
    results.apply(&mut summaries);
    (summaries, results, failures)
}

type Loaded3<T> = (Vec<T>, EvalResults, Vec<LoadFailure>);

/// One file's outcome, with its trajectories already reduced to what the caller keeps.
enum Kept<T> {
    Trajectories(Vec<T>),
    Results(ResultsSource),
}

fn load_each<T: Send>(
    roots: &[PathBuf],
    on_progress: &(dyn Fn(Progress) + Sync),
    keep: impl Fn(Trajectory) -> T + Sync,
) -> Loaded3<T> {
    let (candidates, mut failures) = discover(roots);
    let files_total = candidates.len();
    let bytes_total: u64 = candidates.iter().map(|c| c.size).sum();
    let files_done = AtomicUsize::new(0);
    let bytes_done = AtomicU64::new(0);
    let outcomes: Vec<Result<Kept<T>, LoadError>> = candidates
        .par_iter()
        .map(|Candidate { path, size }| {
            let outcome = load_file(path).map(|loaded| match loaded {
                Loaded::Trajectories(ts) => Kept::Trajectories(ts.into_iter().map(&keep).collect()),
                Loaded::Results(source) => Kept::Results(source),
            });
            on_progress(Progress {
                files_done: files_done.fetch_add(1, Ordering::Relaxed) + 1,
                files_total,
                bytes_done: bytes_done.fetch_add(*size, Ordering::Relaxed) + size,
                bytes_total,
            });
            outcome
        })
        .collect();

    let mut kept = Vec::new();
    let mut results = EvalResults::default();
    for outcome in outcomes {
        match outcome {
            Ok(Kept::Trajectories(items)) => kept.extend(items),
            Ok(Kept::Results(source)) => results.sources.push(source),
            Err(err) => failures.push(LoadFailure {
                path: err.path().to_path_buf(),
                message: err.to_string(),
            }),
        }
    }
    (kept, results, failures)
}
