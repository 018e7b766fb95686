//! Tallying a run straight from disk: files are read, parsed and scanned in parallel, and
//! each trajectory's steps are dropped as soon as it is tallied, so a run of thousands of
//! files holds one trajectory per thread in memory. Eval results found among the files are
//! joined afterwards, by instance id, as `formats::load_run` does.

use super::matcher::Matcher;
use super::tally::{Tally, TrajectoryTally};
use crate::formats::{Candidate, Loaded, Progress, discover, load_file};
use crate::model::{EvalResults, LoadFailure};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// A run's tally, the files that could not be read, and the eval results found.
#[derive(Debug, Clone)]
pub struct TalliedRun {
    pub roots: Vec<PathBuf>,
    pub tally: Tally,
    pub failures: Vec<LoadFailure>,
    pub results: EvalResults,
}

/// Tallies every trajectory under `roots`.
pub fn tally_run(
    roots: &[PathBuf],
    matcher: Arc<Matcher>,
    on_progress: &(dyn Fn(Progress) + Sync),
) -> TalliedRun {
    let (candidates, mut failures) = discover(roots);
    let files_total = candidates.len();
    let bytes_total: u64 = candidates.iter().map(|c| c.size).sum();
    let files_done = AtomicUsize::new(0);
    let bytes_done = AtomicU64::new(0);

    enum Outcome {
        Tallied(Vec<TrajectoryTally>),
        Results(crate::model::ResultsSource),
        Failed(LoadFailure),
    }
    let outcomes: Vec<Outcome> = candidates
        .par_iter()
        .map(|Candidate { path, size }| {
            let outcome = match load_file(path) {
                Ok(Loaded::Trajectories(ts)) => Outcome::Tallied(
                    ts.iter()
                        .map(|t| TrajectoryTally::of(&matcher, t))
                        .collect(),
                ),
                Ok(Loaded::Results(source)) => Outcome::Results(source),
                Err(err) => Outcome::Failed(LoadFailure {
                    path: err.path().to_path_buf(),
                    message: err.to_string(),
                }),
            };
            on_progress(Progress {
                files_done: files_done.fetch_add(1, Ordering::Relaxed) + 1,
                files_total,
                bytes_done: bytes_done.fetch_add(*size, Ordering::Relaxed) + size,
                bytes_total,
            });
            outcome
        })
        .collect();

    let mut tally = Tally::new(matcher);
    let mut results = EvalResults::default();
    for outcome in outcomes {
        match outcome {
            Outcome::Tallied(ts) => {
                for t in ts {
                    tally.insert(t);
                }
            }
            Outcome::Results(source) => results.sources.push(source),
            Outcome::Failed(failure) => failures.push(failure),
        }
    }
    results.apply(tally.trajectories_mut());
    TalliedRun {
        roots: roots.to_vec(),
        tally,
        failures,
        results,
    }
}
