//! A file of several trajectories made only at its end (an OTel export: one per trace, its
//! spans interleaved with other traces' to the last line) handed over one trajectory at a
//! time: a first pass keeps where each trace's spans are ([`records::index_traces`]), then
//! each trace is read back from those places, made, handed over and dropped. A listing or a
//! tally of a 1 GB export holds its index and its largest trace, not its traces.
//!
//! The trajectories are the whole read's: the spans read back are the file's own bytes,
//! made into trajectories by the same code.

use super::{is_json, records, stamp};
use crate::formats::LoadError;
use crate::model::{Trajectory, TrajectorySummary};
use std::fs::File;
use std::path::Path;

/// Calls `on_trajectory` with each trajectory of `path`, in the order the whole read gives
/// them, strings longer than `threshold` left in the file while indexing; how many there
/// were. `None` when it is not a file read this way (read it another way). A file changed
/// while it was read is an error.
pub fn visit_traces(
    path: &Path,
    threshold: usize,
    on_trajectory: &mut dyn FnMut(Trajectory) -> Result<(), LoadError>,
) -> Result<Option<usize>, LoadError> {
    visit_some(path, threshold, None, on_trajectory)
}

/// Trajectory `index` (1-based) of `path` read as [`visit_traces`] reads each, the others
/// left in the file, and how many the file holds; `None` as there.
pub fn trace_at(
    path: &Path,
    threshold: usize,
    index: usize,
) -> Result<Option<(Option<Trajectory>, usize)>, LoadError> {
    let mut found = None;
    let only = index.checked_sub(1).unwrap_or(usize::MAX);
    let count = visit_some(path, threshold, Some(only), &mut |t| {
        found = Some(t);
        Ok(())
    })?;
    Ok(count.map(|count| (found, count)))
}

/// [`visit_traces`], of all trajectories or `only` one (0-based).
fn visit_some(
    path: &Path,
    threshold: usize,
    only: Option<usize>,
    on_trajectory: &mut dyn FnMut(Trajectory) -> Result<(), LoadError>,
) -> Result<Option<usize>, LoadError> {
    if !is_json(path) {
        return Ok(None);
    }
    let mut file = File::open(path).map_err(|err| LoadError::io(path, err))?;
    let before = stamp(&file).map_err(|err| LoadError::io(path, err))?;
    let Some(mut index) = records::index_traces(path, &mut file, threshold)? else {
        return Ok(None);
    };
    if !index.is_placed(path)? {
        return Ok(None);
    }
    let changed = |file: &File| -> Result<(), LoadError> {
        if stamp(file).map_err(|err| LoadError::io(path, err))? != before {
            return Err(LoadError::invalid(
                path,
                "the file changed while it was read; read it again",
            ));
        }
        Ok(())
    };
    changed(&file)?;
    let count = index.read_each(path, &file, only, on_trajectory)?;
    changed(&file)?;
    Ok(Some(count))
}

/// The summaries of `path`'s trajectories, each made from a trajectory read by
/// [`visit_traces`] and dropped; `None` as there.
pub fn trace_summaries(
    path: &Path,
    threshold: usize,
) -> Result<Option<Vec<TrajectorySummary>>, LoadError> {
    let mut summaries = Vec::new();
    let visited = visit_traces(path, threshold, &mut |t| {
        summaries.push(TrajectorySummary::of(&t));
        Ok(())
    })?;
    Ok(visited.map(|_| summaries))
}
