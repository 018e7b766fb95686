//! Loading files and whole runs: read, detect, parse. A run's files go through the one run
//! loader (`run_loader.rs`).

use super::detect::{Kind, detect};
use super::discover::{Candidate, discover};
use super::run_cache::{CacheEntry, CachedOutcome, RunCache, file_stamp};
use super::run_loader::{FileRead, Handover, read_run_files};
use super::{Detail, LoadError, eval_results, parse_with};
use crate::model::{EvalResults, LoadFailure, ResultsSource, Run, Trajectory, TrajectorySummary};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

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
    load_file_with(path, Detail::Full)
}

/// Reads and parses one file, reading of its trajectories what `detail` asks for. At
/// [`Detail::Steps`] a SWE-agent file of [`super::LAZY_ABOVE`] or more is read by the lazy
/// scan: the same steps, but for the agent and tool calls that only `history` holds (0.x
/// steps, the last 1.1+ step).
pub fn load_file_with(path: &Path, detail: Detail) -> Result<Loaded, LoadError> {
    if super::parquet::is_parquet(path) {
        return super::parquet::load(path).map(Loaded::Trajectories);
    }
    if detail == Detail::Steps
        && let Some(trajectory) = super::lazy::read_steps(path)
    {
        return Ok(Loaded::Trajectories(vec![trajectory]));
    }
    let len = std::fs::metadata(path)
        .map_err(|err| LoadError::io(path, err))?
        .len();
    // An Inspect `.eval` archive is read from the file a sample at a time, never whole.
    if len >= super::LAZY_ABOVE && super::inspect_ai::is_archive(&head(path)) {
        return super::inspect_ai::parse_file(path).map(Loaded::Trajectories);
    }
    // An Inspect `.json` log likewise: a sample at a time, each read back whole from the file.
    if len >= super::LAZY_ABOVE
        && let Some(trajectories) = super::inspect_ai::read_json_log(path, detail)?
    {
        return Ok(Loaded::Trajectories(trajectories));
    }
    // A big JSON or JSON Lines file is read slim first (never its bytes whole), then its
    // steps read back: a listing or a tally costs what the steps hold, not twice the file.
    // The full read (export, the whole `show`) stays the whole-file read: through the slim
    // path an export of a 1 GB session peaked at 12 GB (cause not yet found; docs/scale.md).
    if len >= super::LAZY_ABOVE && detail == Detail::Steps {
        super::check_fits(path, len / 2)?;
        if let Some(trajectories) = super::stream::read(path, super::stream::SLIM_ABOVE, detail)? {
            return Ok(Loaded::Trajectories(trajectories));
        }
    }
    // What the lazy read did not take is read whole: refused up front when that cannot fit.
    super::check_fits(path, len)?;
    super::with_file_bytes(path, |bytes| load_bytes_with(path, bytes, detail))?
}

/// The first bytes of `path` (none when it cannot be read: the read that follows says why).
fn head(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut head = Vec::with_capacity(8);
    let _ = std::fs::File::open(path).and_then(|f| f.take(8).read_to_end(&mut head));
    head
}

/// Parses the content of a file read elsewhere (a watcher, a test).
///
/// A text file with a few invalid UTF-8 bytes (a writer cut mid-character, a stray Latin-1
/// byte) is read with those bytes replaced by U+FFFD and a warning saying where: losing a
/// whole trajectory to one bad byte would help nobody. Files that look binary are left to
/// detection, which refuses them.
pub fn load_bytes(path: &Path, bytes: &[u8]) -> Result<Loaded, LoadError> {
    load_bytes_with(path, bytes, Detail::Full)
}

/// Like [`load_bytes`], reading of the trajectories what `detail` asks for.
pub fn load_bytes_with(path: &Path, bytes: &[u8], detail: Detail) -> Result<Loaded, LoadError> {
    let repaired = repair_utf8(path, bytes);
    let bytes = repaired.as_ref().map_or(bytes, |(text, _)| text.as_bytes());
    match detect(path, bytes)? {
        Kind::Trajectories(format) => {
            let mut trajectories = parse_with(format, path, bytes, detail)?;
            if let Some((_, warning)) = &repaired {
                for trajectory in &mut trajectories {
                    trajectory.warnings.insert(0, warning.clone());
                }
            }
            Ok(Loaded::Trajectories(trajectories))
        }
        Kind::Results(kind) => eval_results::parse(kind, path, bytes).map(Loaded::Results),
    }
}

/// More invalid sequences than this (and than one per thousand bytes) mean binary data.
const MAX_REPAIRS: usize = 64;

/// The text with invalid UTF-8 replaced, and a warning naming the first bad byte's line and
/// column; `None` when the bytes are valid UTF-8, a zip archive, or look binary.
fn repair_utf8(path: &Path, bytes: &[u8]) -> Option<(String, String)> {
    let first = std::str::from_utf8(bytes).err()?.valid_up_to();
    if bytes.starts_with(b"PK\x03\x04") || bytes[..bytes.len().min(64 * 1024)].contains(&0) {
        return None;
    }
    let mut bad = 0usize;
    let mut rest = &bytes[first..];
    while let Err(err) = std::str::from_utf8(rest) {
        bad += 1;
        if bad > MAX_REPAIRS && bad > bytes.len() / 1000 {
            return None;
        }
        let skip = err.valid_up_to() + err.error_len().unwrap_or(rest.len() - err.valid_up_to());
        rest = &rest[skip..];
    }
    let before = &bytes[..first];
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let column = first - memchr::memrchr(b'\n', before).map_or(0, |i| i + 1) + 1;
    let warning = format!(
        "{}:{line}:{column}: invalid UTF-8 ({bad} place(s)); read with U+FFFD in place of the bad bytes",
        path.display()
    );
    Some((String::from_utf8_lossy(bytes).into_owned(), warning))
}

/// Loads every trajectory under `roots`, joins eval results, and lists what failed.
pub fn load_run(roots: &[PathBuf], on_progress: &(dyn Fn(Progress) + Sync)) -> Run {
    let (candidates, mut failures) = discover(roots);
    let mut trajectories = Vec::new();
    let mut results = EvalResults::default();
    read_run_files(
        &candidates,
        &mut RunCache::disabled(),
        &AtomicBool::new(false),
        Handover::Whole,
        |candidate, _| FileRead {
            item: load_file(&candidate.path),
            fresh: None,
        },
        on_progress,
        |items| {
            for outcome in items {
                match outcome {
                    Ok(Loaded::Trajectories(ts)) => trajectories.extend(ts),
                    Ok(Loaded::Results(source)) => results.sources.push(source),
                    Err(err) => failures.push(LoadFailure {
                        path: err.path().to_path_buf(),
                        message: err.to_string(),
                    }),
                }
            }
        },
    );
    results.sources.extend(super::results_above(roots));
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
/// thousands of files holds one file's steps per thread at a time, not all of them. Files
/// whose size and modification time match `cache` are not read at all; the others are
/// read and cached (the caller saves the cache).
pub fn load_run_summaries(
    roots: &[PathBuf],
    cache: &mut RunCache,
    on_progress: &(dyn Fn(Progress) + Sync),
) -> (Vec<TrajectorySummary>, EvalResults, Vec<LoadFailure>) {
    let (candidates, mut failures) = discover(roots);
    let mut summaries = Vec::new();
    let mut results = EvalResults::default();
    // The results files above the run (a SWE-bench run's predictions: megabytes of JSON
    // lines, 8% of listing the CodeR run) are read on a thread of their own while the run's
    // files are. Not a rayon job: a caller inside the pool would wait on its own queue.
    let above = std::thread::scope(|scope| {
        let above = scope.spawn(|| super::results_above(roots));
        read_run_files(
            &candidates,
            cache,
            &AtomicBool::new(false),
            Handover::Whole,
            |Candidate { path, .. }, cache| summarise(path, cache),
            on_progress,
            |items| {
                for (path, outcome) in items {
                    match outcome {
                        CachedOutcome::Trajectories(items) => summaries.extend(items),
                        CachedOutcome::Results(source) => results.sources.push(source),
                        CachedOutcome::Failed(message) => {
                            failures.push(LoadFailure { path, message });
                        }
                    }
                }
            },
        );
        // A panic there is a bug; the run is still listed, without those verdicts.
        above.join().unwrap_or_default()
    });
    results.sources.extend(above);
    results.apply(&mut summaries);
    (summaries, results, failures)
}

/// One file's summaries (or results, or failure) from `cache` when it is unchanged, else
/// read, with the entry to cache. A Parquet dataset is never cached (what a row means
/// depends on `--columns` too) and a big one is summarised from its header columns alone.
fn summarise(path: &Path, cache: &RunCache) -> FileRead<(PathBuf, CachedOutcome)> {
    if super::parquet::is_parquet(path) {
        let outcome = super::parquet::summaries(path).map_or_else(
            |err| CachedOutcome::Failed(err.to_string()),
            CachedOutcome::Trajectories,
        );
        return FileRead {
            item: (path.to_path_buf(), outcome),
            fresh: None,
        };
    }
    let stamp = file_stamp(path);
    if let Some(entry) = stamp.and_then(|(size, modified)| cache.get(path, size, modified)) {
        return FileRead {
            item: (path.to_path_buf(), entry.outcome.clone()),
            fresh: None,
        };
    }
    // A big file's steps are counted as they are read, never held.
    let read = match super::visit::summaries(path).or_else(|| super::lazy::summaries(path)) {
        Some(summaries) => summaries.map(CachedOutcome::Trajectories),
        None => read_summaries(path),
    };
    let outcome = match read {
        Ok(outcome) => outcome,
        Err(err) => CachedOutcome::Failed(err.to_string()),
    };
    let fresh = stamp.map(|(size, modified_ns)| CacheEntry {
        size,
        modified_ns,
        outcome: outcome.clone(),
        extras: Default::default(),
    });
    FileRead {
        item: (path.to_path_buf(), outcome),
        fresh,
    }
}

/// A file's summaries by reading it: a small SWE-agent or mini-swe-agent file from its raw bytes, without
/// building its steps' texts ([`super::raw_summary`]), anything else read at
/// [`Detail::Steps`] and summarised.
fn read_summaries(path: &Path) -> Result<CachedOutcome, LoadError> {
    let outcome = |loaded| match loaded {
        Loaded::Trajectories(ts) => {
            CachedOutcome::Trajectories(ts.iter().map(TrajectorySummary::of).collect())
        }
        Loaded::Results(source) => CachedOutcome::Results(source),
    };
    let len = std::fs::metadata(path)
        .map_err(|err| LoadError::io(path, err))?
        .len();
    if len >= super::LAZY_ABOVE {
        return load_file_with(path, Detail::Steps).map(outcome);
    }
    // What `load_file_with` does for a small file, with the raw-byte summary first. One too
    // big to read whole here is summarised a trajectory at a time where its format allows.
    if let Err(err) = super::check_fits(path, len) {
        return match super::visit::trace_summaries(path) {
            Some(read) => read.map(CachedOutcome::Trajectories),
            None => Err(err),
        };
    }
    super::with_file_bytes(path, |bytes| {
        if let Some(summary) = super::raw_summary(path, bytes) {
            return Ok(CachedOutcome::Trajectories(vec![summary]));
        }
        load_bytes_with(path, bytes, Detail::Steps).map(outcome)
    })?
}
