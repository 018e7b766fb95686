//! The work behind each effect (a job), as plain blocking functions that send back `Msg`s,
//! and [`run`], the one interpreter of effects. The runtime runs it on tokio's blocking pool
//! (in parallel, cancellable); the headless harness runs it inline. Neither owns any of this
//! logic.

pub mod clipboard;
pub mod export;
pub mod labels;
pub mod live;
mod parallel;
pub mod replay;
mod run_load;

pub use run_load::load_run;

use super::document::{self, DocRequest, Mode};
use super::effect::Effect;
use super::msg::Msg;
use super::panel::grep::GrepMatch;
use super::search::{self, Query};
use super::state::Opening;
use super::state::compare::{CompareWith, Compared};
use super::state::trajectory::{LoadedTrajectory, StepRow, TrajectoryRef};
use crate::formats::{
    LazyOpen, LoadError, Loaded, SampleLog, is_big, load_file, open_first, open_found_counted,
    open_inspect_log, trace_at,
};
use crate::model::Trajectory;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Runs one effect's job to the end, sending what it finds through `send` (`false`:
/// nobody listens any more) and checking `cancel` where the work is long. The runtime calls
/// this on tokio's blocking pool, the harness inline: both run every job the same way.
/// `cache_dir` is where the run cache lives (`None`: every file is read).
///
/// The effects that need the terminal or the clock (copy, the editor, timers, cancelling or
/// stopping a job) are left to the caller and do nothing here. `cancel` is the job's stop
/// flag in the runtime's job table; a replay watches it and stops, reporting how it ended.
pub fn run(
    effect: Effect,
    send: &(dyn Fn(Msg) -> bool + Sync),
    cancel: &AtomicBool,
    cache_dir: Option<&Path>,
) {
    match effect {
        Effect::LoadRun { roots, rules } => {
            load_run(&roots, &rules, cache_dir, send, cancel);
        }
        Effect::LoadTrajectory {
            id,
            source,
            lazy_above,
        } => load_trajectory_in_two(id, &source, lazy_above, send, cancel),
        Effect::LoadCompare { id, a, b } => {
            send(load_compare(id, &a, &b));
        }
        Effect::LoadInstance { id, sources } => {
            send(load_instance(id, &sources));
        }
        Effect::BuildDocument(request) => {
            if let Some(msg) = build_document(&request, cancel) {
                send(msg);
            }
        }
        Effect::Search {
            trajectory,
            query,
            source,
        } => {
            send(search(trajectory, &query, &source, cancel));
        }
        Effect::Grep { id, query, files } => {
            let mut files_done = 0;
            parallel::for_each_file(
                files,
                cancel,
                |path| grep_file(id, &query, &path),
                |msgs| {
                    files_done += 1;
                    for msg in msgs {
                        send(msg);
                    }
                    send(Msg::GrepProgress { id, files_done });
                },
            );
            send(Msg::GrepDone { id });
        }
        Effect::Watch { roots, rules } => live::watch(&roots, rules, send, cancel),
        Effect::LoadLabels { roots } => {
            send(labels::load(&roots));
        }
        Effect::SaveLabels { set, edit } => {
            send(labels::save(set, edit));
        }
        Effect::Export(request) => {
            send(export::export(&request));
        }
        Effect::Replay(request) => replay::run_blocking(*request, send, cancel),
        Effect::Copy { .. }
        | Effect::Edit { .. }
        | Effect::EditContext { .. }
        | Effect::Later { .. }
        | Effect::Cancel(_)
        | Effect::Stop(_) => {}
    }
}

/// How `roots` were given: one file (and whether it opens lazily at `lazy_above`) or not.
pub fn opening(roots: &[std::path::PathBuf], lazy_above: u64) -> Opening {
    let single_file = roots.len() == 1 && roots[0].is_file();
    Opening {
        single_file,
        lazy: single_file && crate::formats::opens_lazily(&roots[0], lazy_above),
    }
}

/// Reads one trajectory in full and computes its step rows.
pub fn load_trajectory(id: u64, source: &TrajectoryRef, lazy_above: u64) -> Msg {
    let result = match open_lazily(source, lazy_above) {
        Ok(Some(opened)) => Ok(opened),
        Ok(None) => read_opened(source),
        Err(message) => Err(message),
    };
    loaded_msg(id, source, result)
}

/// What opening a file's trajectory found.
enum Opened {
    One(Box<LoadedTrajectory>),
    /// The file, named without a place in it, holds this many trajectories.
    Several(usize),
}

/// The message for what `result` found.
fn loaded_msg(id: u64, source: &TrajectoryRef, result: Result<Opened, String>) -> Msg {
    match result {
        Ok(Opened::One(loaded)) => Msg::TrajectoryLoaded {
            id,
            result: Ok(loaded),
        },
        Ok(Opened::Several(count)) => Msg::TrajectorySeveral {
            id,
            path: source.path.clone(),
            count,
        },
        Err(message) => Msg::TrajectoryLoaded {
            id,
            result: Err(message),
        },
    }
}

/// Bytes of a big file read first, and the steps wanted from them: the first step and a
/// screenful of rows (more when the steps are bigger).
const FIRST_PART: u64 = 4 << 20;
const FIRST_STEPS: usize = 100;

/// [`load_trajectory`], in two goes for a big JSON Lines log or event list: its first steps
/// as soon as they are read (`TrajectoryStarted`), then, while the rest of the file is
/// indexed, how far it got (`TrajectoryIndexing`), then every step (`TrajectoryLoaded`).
/// Cancelling stops the index where it is, and nothing more is sent.
pub fn load_trajectory_in_two(
    id: u64,
    source: &TrajectoryRef,
    lazy_above: u64,
    send: &(dyn Fn(Msg) -> bool + Sync),
    cancel: &AtomicBool,
) {
    let Some(size) = lazy_size(source, lazy_above) else {
        send(load_trajectory(id, source, lazy_above));
        return;
    };
    let mut rows = Vec::new();
    let first = open_first(&source.path, FIRST_STEPS, FIRST_PART, &mut |step| {
        rows.push(StepRow::of(&step));
    });
    let first = match first {
        Ok(Some(first)) => first,
        // The whole open says what is wrong, with the line.
        Ok(None) | Err(_) => {
            send(load_trajectory(id, source, lazy_above));
            return;
        }
    };
    let complete = first.lazy.as_ref().is_none_or(|l| l.is_complete());
    let loaded = Box::new(LoadedTrajectory {
        trajectory: first,
        steps: std::mem::take(&mut rows),
    });
    if complete {
        send(Msg::TrajectoryLoaded {
            id,
            result: Ok(loaded),
        });
        return;
    }
    if !send(Msg::TrajectoryStarted { id, loaded }) {
        return;
    }
    // A percent at a time: a hundred messages for the whole file, whatever its size.
    let mut told = 0;
    let mut progress = |read: u64| {
        if cancel.load(Ordering::Relaxed) {
            return Err(std::io::Error::other("cancelled"));
        }
        let percent = read.saturating_mul(100) / size.max(1);
        if percent > told {
            told = percent;
            send(Msg::TrajectoryIndexing {
                id,
                read,
                total: size,
            });
        }
        Ok(())
    };
    let opened = open_found_counted(&source.path, &mut progress, &mut |step| {
        rows.push(StepRow::of(&step));
    });
    if cancel.load(Ordering::Relaxed) {
        return;
    }
    let result = match opened {
        Ok(Some(LazyOpen::One(trajectory))) => Ok(Opened::One(Box::new(LoadedTrajectory {
            trajectory: *trajectory,
            steps: rows,
        }))),
        Ok(Some(LazyOpen::Several(count))) => Ok(Opened::Several(count)),
        Ok(None) => read_opened(source),
        Err(err) => Err(err.to_string()),
    };
    send(loaded_msg(id, source, result));
}

/// The size of the file `source` names when it is one trajectory of at least `lazy_above`
/// bytes (what may open lazily).
fn lazy_size(source: &TrajectoryRef, lazy_above: u64) -> Option<u64> {
    let size = std::fs::metadata(&source.path).ok()?.len();
    (source.index.is_none() && size >= lazy_above).then_some(size)
}

/// The trajectory `source` names opened lazily, when its file is at least `lazy_above`
/// bytes and its format allows: the step rows are made as the scan decodes each step, and
/// no step is kept. `None`: read it whole.
fn open_lazily(source: &TrajectoryRef, lazy_above: u64) -> Result<Option<Opened>, String> {
    if lazy_size(source, lazy_above).is_none() {
        return Ok(None);
    }
    // A big Inspect `.json` log (told by its first keys): counted by its samples.
    if let Some(log) = open_inspect_log(&source.path).map_err(|e| e.to_string())? {
        return samples_opened(&log, &source.path).map(Some);
    }
    // An export of several trajectories made only at its end (OTel): counted from the
    // places of its spans, and the only one read back alone, never every one held.
    if let Some((one, count)) = trace_at(&source.path, 1).map_err(|e| e.to_string())? {
        return Ok(Some(match one {
            Some(one) if count == 1 => Opened::One(Box::new(LoadedTrajectory::new(one))),
            _ => Opened::Several(count),
        }));
    }
    let mut rows = Vec::new();
    let opened = open_found_counted(&source.path, &mut |_| Ok(()), &mut |step| {
        rows.push(StepRow::of(&step));
    })
    .map_err(|e| e.to_string())?;
    Ok(opened.map(|opened| match opened {
        LazyOpen::One(trajectory) => Opened::One(Box::new(LoadedTrajectory {
            trajectory: *trajectory,
            steps: rows,
        })),
        LazyOpen::Several(count) => Opened::Several(count),
    }))
}

/// [`read_trajectory`], saying so when `source` names a file without a place in it and the
/// file holds several trajectories.
fn read_opened(source: &TrajectoryRef) -> Result<Opened, String> {
    if source.index.is_some() || crate::formats::parquet::is_parquet(&source.path) {
        return read_trajectory(source).map(|t| Opened::One(Box::new(LoadedTrajectory::new(t))));
    }
    if is_big(&source.path)
        && let Some(log) = open_inspect_log(&source.path).map_err(|e| e.to_string())?
    {
        return samples_opened(&log, &source.path);
    }
    let loaded = load_file(&source.path).map_err(|e| e.to_string())?;
    let Loaded::Trajectories(mut trajectories) = loaded else {
        return Err(format!("{}: not a trajectory", source.path.display()));
    };
    match trajectories.len() {
        0 => Err(format!(
            "{}: no trajectory in the file",
            source.path.display()
        )),
        1 => Ok(Opened::One(Box::new(LoadedTrajectory::new(
            trajectories.remove(0),
        )))),
        count => Ok(Opened::Several(count)),
    }
}

/// The trajectory `source` names, or a one-line error.
pub fn read_trajectory(source: &TrajectoryRef) -> Result<Trajectory, String> {
    // A dataset row is read alone, from its row group.
    if let Some(index) = source.index
        && crate::formats::parquet::is_parquet(&source.path)
    {
        return crate::formats::parquet::read_row(&source.path, index).map_err(|e| e.to_string());
    }
    // One sample of a big Inspect `.json` log, read back alone.
    if let Some(index) = source.index
        && is_big(&source.path)
        && let Some(log) = open_inspect_log(&source.path).map_err(|e| e.to_string())?
    {
        return inspect_sample(&log, index)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| {
                format!(
                    "{}: the trajectory is no longer in the file",
                    source.path.display()
                )
            });
    }
    // One trajectory of a big export made only at its end (OTel), read back alone.
    if let Some(index) = source.index
        && is_big(&source.path)
        && let Some((one, _)) = trace_at(&source.path, index + 1).map_err(|e| e.to_string())?
    {
        return one.ok_or_else(|| {
            format!(
                "{}: the trajectory is no longer in the file",
                source.path.display()
            )
        });
    }
    let loaded = load_file(&source.path).map_err(|e| e.to_string())?;
    let Loaded::Trajectories(trajectories) = loaded else {
        return Err(format!("{}: not a trajectory", source.path.display()));
    };
    let count = trajectories.len();
    trajectories
        .into_iter()
        .find(|t| t.source_index == source.index)
        .ok_or_else(|| match source.index {
            None if count > 1 => format!(
                "{}: the file holds {count} trajectories; open one from the run",
                source.path.display()
            ),
            _ => format!(
                "{}: the trajectory is no longer in the file",
                source.path.display()
            ),
        })
}

/// What an Inspect log read a sample at a time holds: its one trajectory, or how many.
fn samples_opened(log: &SampleLog, path: &Path) -> Result<Opened, String> {
    match log.len() {
        0 => Err(format!("{}: no trajectory in the file", path.display())),
        1 => log
            .trajectory(0)
            .map(|t| Opened::One(Box::new(LoadedTrajectory::new(t))))
            .map_err(|e| e.to_string()),
        count => Ok(Opened::Several(count)),
    }
}

/// The trajectory of `log` at place `index` in the file: the `index`-th read, unless samples
/// before it were skipped (then looked for among the others, one at a time).
fn inspect_sample(log: &SampleLog, index: usize) -> Result<Option<Trajectory>, LoadError> {
    if index < log.len() {
        let t = log.trajectory(index)?;
        if t.source_index == Some(index) {
            return Ok(Some(t));
        }
    }
    for k in 0..log.len() {
        let t = log.trajectory(k)?;
        if t.source_index == Some(index) {
            return Ok(Some(t));
        }
    }
    Ok(None)
}

/// Reads the two trajectories of a comparison and aligns them.
pub fn load_compare(id: u64, a: &TrajectoryRef, b: &CompareWith) -> Msg {
    let result = read_trajectory(a).and_then(|a| {
        let b = match b {
            CompareWith::Trajectory(b) => read_trajectory(b)?,
            CompareWith::ForkParent => read_parent(&a)?,
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
    let parent = match fork.path.parent() {
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
                        path: t.path.clone(),
                        index: t.source_index,
                    },
                    instance_id: t.instance_id.clone(),
                    steps,
                },
            })
        })
        .collect()
}
