//! A big file's steps visited one at a time as its reader lets each go
//! ([`records::visit`]), each read back whole from the file and dropped: a listing or a
//! tally of a 1 GB session holds the steps its reader still has open, not the session's
//! steps nor an index of them. What comes out equals the whole read's steps (contexts
//! aside: a visit reads none) and [`TrajectorySummary::of`] (`tests/stream_open.rs`).

use super::inflate::Inflater;
use super::{STRING_CAP, inflate_header, is_json, records, stamp};
use crate::formats::LoadError;
use crate::formats::visit::StepCount;
use crate::model::{Step, Trajectory, TrajectorySummary};
use std::fs::File;
use std::path::Path;

/// Calls `on_step` with each step of `path` in order, read back whole and without its
/// context, strings longer than `threshold` left in the file while reading; returns the
/// trajectory without its steps. `None` when the file is not JSON or its format has no
/// record reader: read it another way. A file changed while it was read is an error.
pub fn visit(
    path: &Path,
    threshold: usize,
    on_step: &mut dyn FnMut(Step) -> Result<(), LoadError>,
) -> Result<Option<Trajectory>, LoadError> {
    visit_keeping(path, threshold, false, on_step)
}

/// [`visit`], the steps keeping their contexts when `contexts` (whose message ids then
/// point into a pool that is not kept: what a step alone shows in JSON).
fn visit_keeping(
    path: &Path,
    threshold: usize,
    contexts: bool,
    on_step: &mut dyn FnMut(Step) -> Result<(), LoadError>,
) -> Result<Option<Trajectory>, LoadError> {
    if !is_json(path) {
        // Aider histories and Llama prompt logs are read line by line instead.
        return crate::formats::text_logs::visit_one(path, contexts, on_step);
    }
    // An Inspect log holds several trajectories, read a sample at a time elsewhere.
    if crate::formats::may_be_inspect_log(path) {
        return Ok(None);
    }
    let file = File::open(path).map_err(|err| LoadError::io(path, err))?;
    let before = stamp(&file).map_err(|err| LoadError::io(path, err))?;
    let whole = Inflater {
        file: &file,
        preview: false,
        cap: STRING_CAP,
    };
    let mut each = |slim: Step| {
        let mut step = whole
            .inflate(&slim)
            .map_err(|err| LoadError::io(path, err))?;
        if !contexts {
            step.context = None;
        }
        on_step(step)
    };
    let Some(trajectories) = records::visit(path, threshold, &mut each)? else {
        return Ok(None);
    };
    // The strings were read back from the file while it was read: a writer that changed it
    // meanwhile may have mixed two versions.
    if stamp(&file).map_err(|err| LoadError::io(path, err))? != before {
        return Err(LoadError::invalid(
            path,
            "the file changed while it was read; read it again",
        ));
    }
    let [mut trajectory] = <[_; 1]>::try_from(trajectories).map_err(|_| {
        LoadError::invalid(
            path,
            "a record reader gave several trajectories for one file",
        )
    })?;
    // The pool is what contexts index into, and a visit reads no context: reading it back
    // would cost what the file's messages hold.
    trajectory.messages = Vec::new();
    inflate_header(path, &file, &mut trajectory)?;
    Ok(Some(trajectory))
}

/// The summaries of `path`'s trajectories, counted step by step by [`visit`]; `None` as
/// there.
pub fn summaries(
    path: &Path,
    threshold: usize,
) -> Result<Option<Vec<TrajectorySummary>>, LoadError> {
    let mut count = StepCount::default();
    let mut on_step = |step: Step| {
        count.add(step);
        Ok(())
    };
    let Some(trajectory) = visit(path, threshold, &mut on_step)? else {
        return Ok(None);
    };
    Ok(Some(vec![count.summary(trajectory)]))
}

/// Step `index` (1-based) of a file read by a visit, and the steps it has.
pub struct StepAt {
    /// `None` when the file has fewer steps.
    pub step: Option<Step>,
    /// Steps read: all of them when `exact`, else a floor (the visit stopped one step
    /// past `index`).
    pub count: usize,
    pub exact: bool,
}

/// Step `index` of `path` (with its context, as the whole read gives it) read by a [`visit`]
/// that stops one step past it: what `show --step N` prints of a big file whose format is
/// read record by record but cannot be opened lazily (mini-swe-agent, whose reader needs
/// each text whole). `None` as for [`visit`].
pub fn step_at(path: &Path, threshold: usize, index: usize) -> Result<Option<StepAt>, LoadError> {
    let mut at = StepAt {
        step: None,
        count: 0,
        exact: true,
    };
    let result = visit_keeping(path, threshold, true, &mut |step| {
        at.count += 1;
        if at.count == index {
            at.step = Some(step);
        } else if at.count > index {
            at.exact = false;
            return Err(LoadError::invalid(path, "read as far as asked"));
        }
        Ok(())
    });
    match result {
        Ok(None) => Ok(None),
        Ok(Some(_)) => Ok(Some(at)),
        Err(_) if !at.exact => Ok(Some(at)),
        Err(err) => Err(err),
    }
}
