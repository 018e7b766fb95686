//! The work behind each effect, as plain blocking functions that return the `Msg`s to send
//! back. The runtime runs them on tokio's blocking pool (in parallel, cancellable); the
//! headless harness runs them inline. Neither owns any of this logic.

pub mod clipboard;
pub mod export;
pub mod labels;
pub mod live;
pub mod replay;

use super::document::{self, DocRequest, Mode};
use super::msg::{FileOutcome, Msg};
use super::search::{self, Query};
use super::state::compare::{Compared, Other};
use super::state::grep::GrepMatch;
use super::state::trajectory::{LoadedTrajectory, StepRow, TrajectoryRef};
use crate::formats::{
    CacheEntry, CachedOutcome, Candidate, Detail, Loaded, RunCache, load_file, load_file_with,
    open_lazy,
};
use crate::metrics::{Matcher, TalliedFile, TrajectoryTally, tally_file, tally_from_cache};
use crate::model::{LoadFailure, Trajectory, TrajectorySummary};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Walks the run's folders: the files to read, and the message announcing them.
pub fn discover(roots: &[PathBuf]) -> (Vec<Candidate>, Msg) {
    let (candidates, failures) = crate::formats::discover(roots);
    let msg = Msg::RunDiscovered {
        files: candidates.len(),
        bytes: candidates.iter().map(|c| c.size).sum(),
        failures,
    };
    (candidates, msg)
}

/// The eval results in the folders above the opened paths, as one message.
pub fn results_above(roots: &[PathBuf]) -> Msg {
    Msg::RunResultsAbove(crate::formats::results_above(roots))
}

/// Reads one file of the run, keeping only summaries of its trajectories and what `rules`
/// found in them: the file's `RunFile`, then its `RunTallied` when it held trajectories.
pub fn read_run_file(candidate: &Candidate, rules: &Matcher) -> Vec<Msg> {
    if crate::formats::parquet::is_parquet(&candidate.path) {
        return read_dataset(candidate, rules);
    }
    let mut tallied = None;
    let outcome = match load_file_with(&candidate.path, Detail::Steps) {
        Ok(Loaded::Trajectories(ts)) => {
            tallied = Some(Msg::RunTallied(
                ts.iter().map(|t| TrajectoryTally::of(rules, t)).collect(),
            ));
            FileOutcome::Trajectories(ts.iter().map(TrajectorySummary::of).collect())
        }
        Ok(Loaded::Results(source)) => FileOutcome::Results(source),
        Err(err) => FileOutcome::Failed(LoadFailure {
            path: err.path().to_path_buf(),
            message: err.to_string(),
        }),
    };
    let mut msgs = vec![Msg::RunFile {
        bytes: candidate.size,
        outcome,
    }];
    msgs.extend(tallied);
    msgs
}

/// [`read_run_file`] of a Parquet dataset: walked a batch of rows at a time, each row
/// dropped once summarised and tallied.
fn read_dataset(candidate: &Candidate, rules: &Matcher) -> Vec<Msg> {
    let mut summaries = Vec::new();
    let mut tallies = Vec::new();
    let walked = crate::formats::parquet::visit(&candidate.path, &mut |t| {
        summaries.push(TrajectorySummary::of(&t));
        tallies.push(TrajectoryTally::of(rules, &t));
    });
    let outcome = match walked {
        Ok(_) => FileOutcome::Trajectories(summaries),
        Err(err) => FileOutcome::Failed(LoadFailure {
            path: err.path().to_path_buf(),
            message: err.to_string(),
        }),
    };
    vec![
        Msg::RunFile {
            bytes: candidate.size,
            outcome,
        },
        Msg::RunTallied(tallies),
    ]
}

/// The files of `candidates` that `cache` holds unchanged, as one message (`None` when it
/// holds none of them), and the files it does not hold, to be read.
pub fn run_files_from_cache(
    candidates: &[Candidate],
    cache: &RunCache,
    key: &str,
) -> (Option<Msg>, Vec<Candidate>) {
    let mut files = Vec::new();
    let mut tallies = Vec::new();
    let mut misses = Vec::new();
    for candidate in candidates {
        match tally_from_cache(cache, &candidate.path, key) {
            Some(hit) => {
                tallies.extend(hit.tallies);
                files.push((candidate.size, outcome(&candidate.path, hit.outcome)));
            }
            None => misses.push(candidate.clone()),
        }
    }
    let msg = (!files.is_empty()).then_some(Msg::RunFiles { files, tallies });
    (msg, misses)
}

/// One file of the run read through the run cache, for a `Msg::RunFiles` batch.
pub struct FileRead {
    pub bytes: u64,
    pub outcome: FileOutcome,
    pub tallies: Vec<TrajectoryTally>,
    /// The cache entry to keep, when the file was read.
    pub fresh: Option<CacheEntry>,
}

/// Like [`read_run_file`], through the run cache.
pub fn read_run_file_cached(
    candidate: &Candidate,
    rules: &Matcher,
    cache: &RunCache,
    key: &str,
) -> FileRead {
    let TalliedFile {
        outcome: cached,
        tallies,
        fresh,
        ..
    } = tally_file(cache, &candidate.path, rules, key);
    FileRead {
        bytes: candidate.size,
        outcome: outcome(&candidate.path, cached),
        tallies,
        fresh,
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

/// Reads one trajectory in full and computes its step rows.
pub fn load_trajectory(id: u64, source: &TrajectoryRef, lazy_above: u64) -> Msg {
    let result = match open_lazily(source, lazy_above) {
        Ok(Some(loaded)) => Ok(loaded),
        Ok(None) => read_trajectory(source).map(LoadedTrajectory::new),
        Err(message) => Err(message),
    };
    Msg::TrajectoryLoaded {
        id,
        result: result.map(Box::new),
    }
}

/// The trajectory `source` names opened lazily, when its file is at least `lazy_above`
/// bytes and its format allows: the step rows are made as the scan decodes each step, and
/// no step is kept. `None`: read it whole.
fn open_lazily(
    source: &TrajectoryRef,
    lazy_above: u64,
) -> Result<Option<LoadedTrajectory>, String> {
    let big = std::fs::metadata(&source.path).is_ok_and(|m| m.len() >= lazy_above);
    if source.index.is_some() || !big {
        return Ok(None);
    }
    let mut rows = Vec::new();
    let opened = open_lazy(&source.path, &mut |step| rows.push(StepRow::of(&step)))
        .map_err(|e| e.to_string())?;
    Ok(opened.map(|trajectory| LoadedTrajectory {
        trajectory,
        steps: rows,
    }))
}

/// The trajectory `source` names, or a one-line error.
pub fn read_trajectory(source: &TrajectoryRef) -> Result<Trajectory, String> {
    // A dataset row is read alone, from its row group.
    if let Some(index) = source.index
        && crate::formats::parquet::is_parquet(&source.path)
    {
        return crate::formats::parquet::read_row(&source.path, index).map_err(|e| e.to_string());
    }
    let loaded = load_file(&source.path).map_err(|e| e.to_string())?;
    let Loaded::Trajectories(trajectories) = loaded else {
        return Err(format!("{}: not a trajectory", source.path.display()));
    };
    trajectories
        .into_iter()
        .find(|t| t.source_index == source.index)
        .ok_or_else(|| {
            format!(
                "{}: the trajectory is no longer in the file",
                source.path.display()
            )
        })
}

/// Reads the two trajectories of a comparison and aligns them.
pub fn load_compare(id: u64, a: &TrajectoryRef, b: &Other) -> Msg {
    let result = read_trajectory(a).and_then(|a| {
        let b = match b {
            Other::Trajectory(b) => read_trajectory(b)?,
            Other::ForkParent => read_parent(&a)?,
        };
        Ok(Arc::new(Compared::new(a, b)))
    });
    Msg::CompareLoaded { id, result }
}

/// Reads one instance's trajectory in every run (in parallel: they are independent files).
pub fn load_instance(id: u64, sources: &[Option<TrajectoryRef>]) -> Msg {
    use rayon::prelude::*;
    let trajectories = sources
        .par_iter()
        .map(|source| {
            source
                .as_ref()
                .map(|s| read_trajectory(s).map(|t| Arc::new(LoadedTrajectory::new(t))))
        })
        .collect();
    Msg::InstanceLoaded { id, trajectories }
}

/// The trajectory `fork` was forked from: the first one of its parent file.
fn read_parent(fork: &Trajectory) -> Result<Trajectory, String> {
    let Some(origin) = &fork.fork else {
        return Err(format!(
            "{} is not a fork: mark the trajectory to compare it with first",
            fork.instance_id
        ));
    };
    // A relative parent path is relative to the fork's folder, where replay wrote it.
    let parent = match fork.source.parent() {
        Some(dir) if origin.parent.is_relative() && !origin.parent.exists() => {
            dir.join(&origin.parent)
        }
        _ => origin.parent.clone(),
    };
    match load_file(&parent).map_err(|e| e.to_string())? {
        Loaded::Trajectories(ts) => ts
            .into_iter()
            .next()
            .ok_or_else(|| format!("{}: no trajectory in the file", parent.display())),
        Loaded::Results(_) => Err(format!("{}: not a trajectory", parent.display())),
    }
}

/// Builds a document in full; `None` when cancelled.
pub fn build_document(request: &DocRequest, cancel: &AtomicBool) -> Option<Msg> {
    let document = document::build(request, Mode::FULL, cancel)?;
    Some(Msg::DocumentReady {
        key: request.key,
        document: Arc::new(document),
    })
}

pub fn search(trajectory: u64, query: &Query, source: &Trajectory, cancel: &AtomicBool) -> Msg {
    Msg::SearchDone {
        trajectory,
        query: query.text.clone(),
        hits: search::find(source, query, cancel),
    }
}

/// Searches the trajectories of one file: a message per trajectory with matches.
pub fn grep_file(id: u64, query: &Query, path: &Path) -> Vec<Msg> {
    let Ok(Loaded::Trajectories(trajectories)) = load_file(path) else {
        return Vec::new();
    };
    trajectories
        .iter()
        .filter_map(|t| {
            let steps = search::grep(t, query);
            (!steps.is_empty()).then(|| Msg::GrepFound {
                id,
                found: GrepMatch {
                    source: TrajectoryRef {
                        path: t.source.clone(),
                        index: t.source_index,
                    },
                    instance_id: t.instance_id.clone(),
                    steps,
                },
            })
        })
        .collect()
}
