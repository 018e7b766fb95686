//! `trajscope table`: a run written as the two Parquet relations, streamed. A first pass
//! reads each file's summary (from the run cache when unchanged) and joins the eval results,
//! so every row carries the verdict `stats` counts it under; the second reads the files a
//! few at a time, in order, and appends their steps, so memory holds a handful of
//! trajectories and one row group whatever the size of the run. The table is written in a
//! hidden folder beside the target and renamed into place once complete.

use super::columns::{
    Columns, Identity, Pending, STEP_SCHEMA, StepRows, TRAJECTORY_SCHEMA, TrajectoryRows,
};
use super::error::TableError;
use super::parts::{Bounds, Parts};
use super::{STEPS, TRAJECTORIES};
use crate::formats::{Detail, Loaded, Progress, RunCache, load_file_with, load_run_summaries};
use crate::model::{LabelKey, LoadFailure, Trajectory, labels};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How to write.
#[derive(Debug, Clone)]
pub struct TableOptions {
    /// The `run` column, and the start of the files' names (`NAME-part-00000.parquet`, so
    /// that shards' tables can be copied into one folder); by default the `run` column is
    /// the path given that holds the file.
    pub run: Option<String>,
    /// Replace a non-empty output folder (only once the new table is complete).
    pub force: bool,
    /// Rows of a row group.
    pub group_rows: usize,
    /// Bytes a row group may buffer.
    pub group_bytes: usize,
    /// Bytes after which a Parquet file is closed and the next begun.
    pub file_bytes: usize,
}

impl Default for TableOptions {
    fn default() -> TableOptions {
        TableOptions {
            run: None,
            force: false,
            group_rows: 16 * 1024,
            group_bytes: 24 << 20,
            file_bytes: 256 << 20,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Default)]
pub struct TableReport {
    pub folder: PathBuf,
    pub trajectories: u64,
    pub steps: u64,
    pub files: Vec<PathBuf>,
    /// Bytes of the Parquet files.
    pub bytes: u64,
    /// Files that could not be read (the others are in the table).
    pub failures: Vec<LoadFailure>,
}

/// Writes the trajectories under `roots` as a table in `out`.
pub fn write_run(
    roots: &[PathBuf],
    out: &Path,
    options: &TableOptions,
    cache: &mut RunCache,
    on_progress: &(dyn Fn(Progress) + Sync),
) -> Result<TableReport, TableError> {
    let out_abs = std::path::absolute(out).map_err(|e| TableError::io(out, e))?;
    for root in roots {
        let root_abs = std::path::absolute(root).map_err(|e| TableError::io(root, e))?;
        if root_abs.starts_with(&out_abs) {
            return Err(TableError::HoldsInput {
                out: out.to_path_buf(),
                input: root.clone(),
            });
        }
    }
    let replaces = check_target(out, options.force)?;

    let (summaries, _results, mut failures) = load_run_summaries(roots, cache, on_progress);
    if summaries.is_empty() {
        return Err(TableError::NothingRead(
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(" + "),
        ));
    }
    let keys: Vec<LabelKey<'_>> = summaries.iter().map(|s| s.label_key()).collect();
    let names = labels(&keys);
    let mut identities: HashMap<(PathBuf, Option<usize>), (Identity, Option<String>)> =
        HashMap::new();
    let mut files: Vec<PathBuf> = Vec::new();
    for (summary, label) in summaries.iter().zip(names) {
        let run = options
            .run
            .clone()
            .unwrap_or_else(|| run_of(roots, &summary.path));
        let identity = Identity {
            run,
            trajectory: summary.display_source(),
            path: summary.path.display().to_string(),
            source_index: summary.source_index,
            label,
            instance_id: summary.instance_id.clone(),
            model: summary.model.clone(),
            resolved: summary.resolved,
            exit_status: summary.exit_status.clone(),
        };
        // A file's trajectories come together.
        if files.last() != Some(&summary.path) {
            files.push(summary.path.clone());
        }
        identities.insert(
            (summary.path.clone(), summary.source_index),
            (identity, summary.forced_exit.clone()),
        );
    }
    drop(summaries);

    let parent = match out_abs.parent() {
        Some(parent) => parent.to_path_buf(),
        None => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| TableError::io(&parent, e))?;
    let name = out_abs
        .file_name()
        .map_or_else(|| "table".to_string(), |n| n.to_string_lossy().into_owned());
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.partial-"))
        .tempdir_in(&parent)
        .map_err(|e| TableError::io(&parent, e))?;
    let bounds = Bounds {
        group_rows: options.group_rows.max(1),
        group_bytes: options.group_bytes.max(1),
        file_bytes: options.file_bytes.max(1),
    };
    let prefix = options.run.as_deref().map_or_else(String::new, file_prefix);
    let mut steps = Parts::new(
        &staging.path().join(STEPS),
        &prefix,
        STEP_SCHEMA.clone(),
        bounds,
    )?;
    let mut trajectories = Parts::new(
        &staging.path().join(TRAJECTORIES),
        &prefix,
        TRAJECTORY_SCHEMA.clone(),
        bounds,
    )?;
    let mut step_rows = StepRows::default();
    let mut trajectory_rows = TrajectoryRows::default();

    // A few files per thread at a time, in order: parallel reading, bounded memory, and the
    // same table from the same run every time.
    let chunk = rayon::current_num_threads().max(1) * 2;
    for paths in files.chunks(chunk) {
        let loaded: Vec<(PathBuf, Result<Vec<Trajectory>, String>)> = paths
            .par_iter()
            .map(|path| {
                let read = match load_file_with(path, Detail::Steps) {
                    Ok(Loaded::Trajectories(ts)) => Ok(ts),
                    Ok(Loaded::Results(_)) => Ok(Vec::new()),
                    Err(err) => Err(err.to_string()),
                };
                (path.clone(), read)
            })
            .collect();
        for (path, read) in loaded {
            let trajectories_of_file = match read {
                Ok(ts) => ts,
                Err(message) => {
                    failures.push(LoadFailure { path, message });
                    continue;
                }
            };
            for trajectory in trajectories_of_file {
                let key = (trajectory.path.clone(), trajectory.source_index);
                let Some((identity, forced_exit)) = identities.get(&key) else {
                    failures.push(LoadFailure {
                        path: trajectory.path.clone(),
                        message: format!(
                            "{}: changed while the table was written; left out",
                            trajectory.display_source()
                        ),
                    });
                    continue;
                };
                for (i, step) in trajectory.steps.iter().enumerate() {
                    step_rows.push(identity, i + 1, step);
                    if step_rows.full(&bounds) {
                        write_batch(&mut step_rows, &mut steps, out)?;
                    }
                }
                trajectory_rows.push(identity, &trajectory, forced_exit.as_deref());
                if trajectory_rows.full(&bounds) {
                    write_batch(&mut trajectory_rows, &mut trajectories, out)?;
                }
            }
        }
    }
    if step_rows.rows() > 0 {
        write_batch(&mut step_rows, &mut steps, out)?;
    }
    if trajectory_rows.rows() > 0 {
        write_batch(&mut trajectory_rows, &mut trajectories, out)?;
    }
    let (step_files, step_count) = steps.finish()?;
    let (trajectory_files, trajectory_count) = trajectories.finish()?;

    let staged = staging.keep();
    let mut bytes = 0;
    let mut written = Vec::new();
    for file in step_files.iter().chain(&trajectory_files) {
        bytes += std::fs::metadata(file).map_or(0, |m| m.len());
        if let Ok(relative) = file.strip_prefix(&staged) {
            written.push(out.join(relative));
        }
    }
    if let Err(err) = put_in_place(&staged, out, replaces, &parent) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(err);
    }
    Ok(TableReport {
        folder: out.to_path_buf(),
        trajectories: trajectory_count,
        steps: step_count,
        files: written,
        bytes,
        failures,
    })
}

/// A run name as the start of a file name: `shard-07-`.
fn file_prefix(run: &str) -> String {
    let safe: String = run
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}-")
}

/// The root (as given) that holds `path`: the run a trajectory belongs to.
fn run_of(roots: &[PathBuf], path: &Path) -> String {
    roots
        .iter()
        .filter(|r| path.starts_with(r))
        .max_by_key(|r| r.components().count())
        .or(roots.first())
        .map_or_else(String::new, |r| r.display().to_string())
}

/// Whether `out` holds something the new table will replace; an error when it does and
/// `force` was not given.
fn check_target(out: &Path, force: bool) -> Result<bool, TableError> {
    let entries = match std::fs::read_dir(out) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(err) => return Err(TableError::io(out, err)),
    };
    let mut entries = entries;
    if entries.next().is_none() {
        return Ok(true);
    }
    if force {
        Ok(true)
    } else {
        Err(TableError::NotEmpty {
            path: out.to_path_buf(),
        })
    }
}

/// Renames the finished table to `out`, moving what was there aside first and removing it
/// only once the new table is in place.
fn put_in_place(
    staged: &Path,
    out: &Path,
    replaces: bool,
    parent: &Path,
) -> Result<(), TableError> {
    if !replaces {
        return std::fs::rename(staged, out).map_err(|e| TableError::io(out, e));
    }
    let old = tempfile::Builder::new()
        .prefix(".trajscope-table-old-")
        .tempdir_in(parent)
        .map_err(|e| TableError::io(parent, e))?
        .keep();
    // `old` is an empty folder: renaming a folder onto an empty one replaces it.
    std::fs::rename(out, &old).map_err(|e| TableError::io(out, e))?;
    if let Err(err) = std::fs::rename(staged, out) {
        let _ = std::fs::rename(&old, out);
        return Err(TableError::io(out, err));
    }
    std::fs::remove_dir_all(&old).map_err(|e| TableError::io(&old, e))
}

/// Cuts the pending `rows` into one batch and writes it to `parts` (one row group of the
/// table at `out`).
fn write_batch<C: Columns>(
    rows: &mut Pending<C>,
    parts: &mut Parts,
    out: &Path,
) -> Result<(), TableError> {
    let batch = rows.cut().map_err(|source| TableError::Arrow {
        path: out.to_path_buf(),
        source,
    })?;
    parts.write(&batch)
}
