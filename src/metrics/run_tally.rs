//! Tallying a run straight from disk: files are read, parsed and scanned in parallel, and
//! each trajectory's steps are dropped as soon as it is tallied, so a run of thousands of
//! files holds one trajectory per thread in memory. Eval results found among the files are
//! joined afterwards, by instance id, as `formats::load_run` does.
//!
//! Each file's tallies are kept in the run cache (`formats::RunCache`) under a fingerprint of
//! the rules, next to the file's summaries: tallying the same run again with the same rules
//! reads no trajectory that has not changed. A cached tally that does not decode is ignored
//! and the file read again. The work stops early when the caller cancels it. Files are
//! walked by the one run loader (`formats::read_run_files`); only what one file becomes is
//! here.

use super::folded_tally::FoldedTally;
use super::matcher::Matcher;
use super::tally::{Tally, TrajectoryTally};
use crate::formats::{
    CacheEntry, CachedOutcome, Candidate, Detail, FileRead, Handover, LoadError, Loaded, Progress,
    RunCache, discover, file_stamp, load_file_with, read_run_files,
};
use crate::model::{EvalResults, LoadFailure, ResultsSource, TrajectorySummary};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A run's tally, the files that could not be read, and the eval results found.
#[derive(Debug, Clone)]
pub struct TalliedRun {
    pub roots: Vec<PathBuf>,
    pub tally: Tally,
    pub failures: Vec<LoadFailure>,
    pub results: EvalResults,
}

/// What a run's tally keeps of each trajectory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Every trajectory's tally: for drill-down, per-trajectory outputs, results joined
    /// afterwards, filters and labels.
    Trajectories,
    /// Only the run's counts ([`Tally::fold`]), where no verdict can change once a row is
    /// read: a run of Parquet files alone (they carry their verdicts and are never results
    /// files) with no results file above it. Any other run keeps its trajectories.
    Counts,
}

/// Tallies every trajectory under `roots`, reading every file.
pub fn tally_run(
    roots: &[PathBuf],
    matcher: Arc<Matcher>,
    on_progress: &(dyn Fn(Progress) + Sync),
) -> TalliedRun {
    tally_run_keeping(roots, matcher, Keep::Trajectories, on_progress)
}

/// [`tally_run`], keeping of each trajectory what `keep` says.
pub fn tally_run_keeping(
    roots: &[PathBuf],
    matcher: Arc<Matcher>,
    keep: Keep,
    on_progress: &(dyn Fn(Progress) + Sync),
) -> TalliedRun {
    let never = AtomicBool::new(false);
    let (run, _) = tally(
        roots,
        matcher,
        &mut RunCache::disabled(),
        &never,
        keep,
        on_progress,
    );
    run
}

/// Tallies every trajectory under `roots`, taking the tallies of unchanged files from
/// `cache` and adding the others to it (the caller saves the cache). `None` when `cancel`
/// was set before the end: files not yet started are then never read.
pub fn tally_run_cached(
    roots: &[PathBuf],
    matcher: Arc<Matcher>,
    cache: &mut RunCache,
    cancel: &AtomicBool,
    on_progress: &(dyn Fn(Progress) + Sync),
) -> Option<TalliedRun> {
    tally_run_cached_keeping(
        roots,
        matcher,
        cache,
        cancel,
        Keep::Trajectories,
        on_progress,
    )
}

/// [`tally_run_cached`], keeping of each trajectory what `keep` says.
pub fn tally_run_cached_keeping(
    roots: &[PathBuf],
    matcher: Arc<Matcher>,
    cache: &mut RunCache,
    cancel: &AtomicBool,
    keep: Keep,
    on_progress: &(dyn Fn(Progress) + Sync),
) -> Option<TalliedRun> {
    let (run, cancelled) = tally(roots, matcher, cache, cancel, keep, on_progress);
    (!cancelled).then_some(run)
}

/// The key of a file's tallies in its cache entry: the same rules give the same key.
pub fn cache_key(matcher: &Matcher) -> String {
    let rules = serde_json::to_vec(matcher.rules()).unwrap_or_default();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in rules {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("tally-{hash:016x}")
}

/// One file of a run as the TUI lists it: what it held (the summaries of its trajectories,
/// eval results, or why it could not be read) and what the rules found in its trajectories.
#[derive(Debug, Clone)]
pub struct TalliedFile {
    pub outcome: CachedOutcome,
    pub tallies: Vec<TrajectoryTally>,
    /// Whether the file was read (false: everything came from the cache).
    pub read: bool,
    /// The entry for the cache when the file was read and `cache` keeps entries; the caller
    /// puts it (a shared cache cannot be written from the parallel workers).
    pub fresh: Option<CacheEntry>,
}

/// Summarises and tallies one file, from `cache` when the file is unchanged and its tallies
/// under `key` ([`cache_key`] of `matcher`) decode, else by reading it.
pub fn tally_file(cache: &RunCache, path: &Path, matcher: &Matcher, key: &str) -> TalliedFile {
    if let Some(hit) = tally_from_cache(cache, path, key) {
        return hit;
    }
    let stamp = file_stamp(path);
    let (cached, extras, outcome) = read_outcome(path, matcher, Some(key), false);
    let tallies = match outcome {
        Outcome::Tallied(tallies) => tallies,
        Outcome::Results(_) | Outcome::Failed(_) | Outcome::Folded(_) => Vec::new(),
    };
    let fresh = stamp
        .filter(|_| cache.is_enabled())
        .map(|(size, modified_ns)| CacheEntry {
            size,
            modified_ns,
            outcome: cached.clone(),
            extras,
        });
    TalliedFile {
        outcome: cached,
        tallies,
        read: true,
        fresh,
    }
}

/// What `cache` holds for `path` with tallies under `key` ([`cache_key`]), if the file is
/// unchanged and its tallies decode; `None` means the file must be read ([`tally_file`]).
pub fn tally_from_cache(cache: &RunCache, path: &Path, key: &str) -> Option<TalliedFile> {
    let (size, modified) = file_stamp(path)?;
    let entry = cache.get(path, size, modified)?;
    let tallies = match &entry.outcome {
        CachedOutcome::Trajectories(_) => {
            serde_json::from_str::<Vec<TrajectoryTally>>(entry.extras.get(key)?.as_str()?).ok()?
        }
        CachedOutcome::Results(_) | CachedOutcome::Failed(_) => Vec::new(),
    };
    Some(TalliedFile {
        outcome: entry.outcome.clone(),
        tallies,
        read: false,
        fresh: None,
    })
}

enum Outcome {
    Tallied(Vec<TrajectoryTally>),
    /// A file's trajectories counted and dropped ([`Keep::Counts`]).
    Folded(FoldedTally),
    Results(ResultsSource),
    Failed(LoadFailure),
}

impl Outcome {
    /// The same outcome with its trajectories counted and dropped.
    fn folded(self, rules: usize) -> Outcome {
        match self {
            Outcome::Tallied(tallies) => {
                let mut folded = FoldedTally::new(rules);
                for t in &tallies {
                    folded.add(t);
                }
                Outcome::Folded(folded)
            }
            other => other,
        }
    }
}

fn tally(
    roots: &[PathBuf],
    matcher: Arc<Matcher>,
    cache: &mut RunCache,
    cancel: &AtomicBool,
    keep: Keep,
    on_progress: &(dyn Fn(Progress) + Sync),
) -> (TalliedRun, bool) {
    let caching = cache.is_enabled();
    // Without the cache the files take the raw-byte tally, whose automata are built on first
    // use: built on the second core while the run is listed, the first file's thread does
    // not build them while the other waits on it.
    let ((candidates, mut failures), _) = rayon::join(
        || discover(roots),
        || (!caching).then(|| matcher.sparse_plan().is_some()),
    );
    let key = cache_key(&matcher);
    let all_parquet = keep == Keep::Counts
        && candidates
            .iter()
            .all(|c| crate::formats::parquet::is_parquet(&c.path));
    // The results files above the run (a SWE-bench run's predictions can be megabytes of
    // JSON lines) are read on another core while the run's files are; except before a
    // Parquet-only run, which is folded as it is read only when there are none to join.
    let (send, above) = std::sync::mpsc::channel();
    let fold = if all_parquet {
        let found = crate::formats::results_above(roots);
        let fold = found.is_empty();
        let _ = send.send(found);
        fold
    } else {
        let above_roots = roots.to_vec();
        rayon::spawn(move || {
            let _ = send.send(crate::formats::results_above(&above_roots));
        });
        false
    };
    let rules = matcher.rules().len();
    let mut tally = Tally::new(matcher.clone());
    let mut results = EvalResults::default();
    let complete = read_run_files(
        &candidates,
        cache,
        cancel,
        Handover::Whole,
        |Candidate { path, .. }, shared| {
            let (fresh, outcome) = match cached(shared, path, &key) {
                Some(outcome) => (None, outcome),
                // The cache never keeps a Parquet file (what a row means depends on
                // `--columns`): summaries and tallies prepared for it would only take memory.
                None => {
                    let kept = caching && !crate::formats::parquet::has_parquet_extension(path);
                    read(path, &matcher, kept.then_some(key.as_str()), fold)
                }
            };
            let outcome = if fold { outcome.folded(rules) } else { outcome };
            FileRead {
                item: outcome,
                fresh,
            }
        },
        on_progress,
        |outcomes| {
            for outcome in outcomes {
                match outcome {
                    Outcome::Tallied(ts) => {
                        for t in ts {
                            tally.insert(t);
                        }
                    }
                    Outcome::Folded(folded) => tally.fold(folded),
                    Outcome::Results(source) => results.sources.push(source),
                    Outcome::Failed(failure) => failures.push(failure),
                }
            }
        },
    );
    results.sources.extend(above.recv().unwrap_or_default());
    results.apply(tally.trajectories_mut());
    let run = TalliedRun {
        roots: roots.to_vec(),
        tally,
        failures,
        results,
    };
    (run, !complete)
}

/// What the cache holds for `path`, if the file is unchanged and its tallies under `key`
/// decode.
fn cached(cache: &RunCache, path: &Path, key: &str) -> Option<Outcome> {
    // Nothing to find (`--no-cache`, a first run): no `stat` of the file for it.
    if cache.is_empty() {
        return None;
    }
    let (size, modified) = file_stamp(path)?;
    let entry = cache.get(path, size, modified)?;
    match &entry.outcome {
        CachedOutcome::Trajectories(_) => {
            let text = entry.extras.get(key)?.as_str()?;
            serde_json::from_str::<Vec<TrajectoryTally>>(text)
                .ok()
                .map(Outcome::Tallied)
        }
        CachedOutcome::Results(source) => Some(Outcome::Results(source.clone())),
        CachedOutcome::Failed(message) => Some(Outcome::Failed(LoadFailure {
            path: path.to_path_buf(),
            message: message.clone(),
        })),
    }
}

/// Reads and tallies `path`, with the cache entry that records it (summaries, and tallies
/// under `key`) when there is a cache to keep it. With `fold` and no cache, a Parquet
/// file's rows are counted as they are read, never kept.
fn read(
    path: &Path,
    matcher: &Matcher,
    key: Option<&str>,
    fold: bool,
) -> (Option<CacheEntry>, Outcome) {
    let stamp = key.and_then(|_| file_stamp(path));
    let (cached, extras, outcome) = read_outcome(path, matcher, key, fold);
    let entry = stamp.map(|(size, modified_ns)| CacheEntry {
        size,
        modified_ns,
        outcome: cached,
        extras,
    });
    (entry, outcome)
}

/// Reads and tallies `path`: what to cache of it (its summaries and, under `key`, its
/// tallies; nothing of its trajectories without a key) and the outcome, folded when `fold`
/// and nothing is cached.
fn read_outcome(
    path: &Path,
    matcher: &Matcher,
    key: Option<&str>,
    fold: bool,
) -> (CachedOutcome, BTreeMap<String, serde_json::Value>, Outcome) {
    // Without summaries to keep, the raw-byte tally may read the file (it falls back to the
    // exact read, done once). A Parquet dataset is walked row by row instead.
    let mut loaded = None;
    let big = crate::formats::is_big(path);
    if key.is_none() && !crate::formats::parquet::is_parquet(path) && !big {
        match super::sparse_tally::read(path, matcher, true) {
            super::sparse_tally::Read::Tallied(tallies) => {
                let nothing = CachedOutcome::Trajectories(Vec::new());
                return (nothing, BTreeMap::new(), Outcome::Tallied(tallies));
            }
            super::sparse_tally::Read::Loaded(read) => loaded = Some(read),
        }
    }
    // Tallies and summaries read only steps: the messages the model saw are skipped.
    let fold = fold && key.is_none();
    let (outcome, cached, extras) = match read_file(path, matcher, key.is_some(), loaded, fold) {
        Ok(Read::Folded(folded)) => (
            Outcome::Folded(folded),
            CachedOutcome::Trajectories(Vec::new()),
            BTreeMap::new(),
        ),
        Ok(Read::Trajectories(tallies, summaries)) => {
            let mut extras = BTreeMap::new();
            if let Some(key) = key {
                // As one string: a run's worth of tallies as `serde_json::Value` trees would
                // take far more memory than the text (5,000 files: 230 MB of RSS against 12).
                if let Ok(text) = serde_json::to_string(&tallies) {
                    extras.insert(key.to_string(), serde_json::Value::String(text));
                }
            }
            (
                Outcome::Tallied(tallies),
                CachedOutcome::Trajectories(summaries),
                extras,
            )
        }
        Ok(Read::Results(source)) => (
            Outcome::Results(source.clone()),
            CachedOutcome::Results(source),
            BTreeMap::new(),
        ),
        Err(err) => {
            let failure = LoadFailure {
                path: err.path().to_path_buf(),
                message: err.to_string(),
            };
            let message = failure.message.clone();
            (
                Outcome::Failed(failure),
                CachedOutcome::Failed(message),
                BTreeMap::new(),
            )
        }
    };
    (cached, extras, outcome)
}

/// One file read for a tally: each trajectory's tally (and, when `summarise`, its summary),
/// or the eval results it holds.
enum Read {
    Trajectories(Vec<TrajectoryTally>, Vec<TrajectorySummary>),
    /// A Parquet file's rows, counted as they were read.
    Folded(FoldedTally),
    Results(ResultsSource),
}

/// Reads `path` for a tally. A Parquet dataset is walked a batch of rows at a time, each
/// trajectory dropped once tallied: a tally of a million rows holds their tallies, not
/// their steps; with `fold` (and no summaries), not even their tallies.
fn read_file(
    path: &Path,
    matcher: &Matcher,
    summarise: bool,
    loaded: Option<Result<Loaded, LoadError>>,
    fold: bool,
) -> Result<Read, LoadError> {
    if fold && !summarise && crate::formats::parquet::is_parquet(path) {
        let mut folded = FoldedTally::new(matcher.rules().len());
        crate::formats::parquet::visit(path, &mut |t| {
            folded.add(&TrajectoryTally::of(matcher, &t));
        })?;
        return Ok(Read::Folded(folded));
    }
    let mut tallies = Vec::new();
    let mut summaries = Vec::new();
    let mut take = |t: &crate::model::Trajectory| {
        tallies.push(TrajectoryTally::of(matcher, t));
        if summarise {
            summaries.push(TrajectorySummary::of(t));
        }
    };
    if crate::formats::parquet::is_parquet(path) {
        crate::formats::parquet::visit(path, &mut |t| take(&t))?;
        return Ok(Read::Trajectories(tallies, summaries));
    }
    // A big file's steps are tallied as they are read, never all held.
    if loaded.is_none()
        && let Some(visited) = super::visit_tally::tally_big_all(path, matcher)
    {
        let (tallies, summaries): (Vec<_>, Vec<_>) = visited?.into_iter().unzip();
        let summaries = if summarise { summaries } else { vec![] };
        return Ok(Read::Trajectories(tallies, summaries));
    }
    let loaded = match loaded {
        Some(read) => read,
        None => load_file_with(path, Detail::Steps),
    };
    let loaded = match loaded {
        Ok(loaded) => loaded,
        // Not read whole (too big for the memory budget, say): a file of several
        // trajectories made at its end is tallied one trajectory at a time, else the error.
        Err(err) => match super::visit_tally::tally_traces(path, matcher) {
            Some(Ok(visited)) => {
                let (tallies, summaries): (Vec<_>, Vec<_>) = visited.into_iter().unzip();
                let summaries = if summarise { summaries } else { vec![] };
                return Ok(Read::Trajectories(tallies, summaries));
            }
            _ => return Err(err),
        },
    };
    match loaded {
        Loaded::Trajectories(ts) => {
            ts.iter().for_each(&mut take);
            Ok(Read::Trajectories(tallies, summaries))
        }
        Loaded::Results(source) => Ok(Read::Results(source)),
    }
}
