//! A big file's steps one at a time, whatever its format: a SWE-agent `.traj` through its
//! lazy scan, a JSON or JSON Lines log through the bounded read's record readers
//! ([`super::stream::visit`]), an Aider history or a Llama prompt log line by line
//! ([`super::text_logs`]). Each step is handed over as it is read and never held, so a
//! tally or a listing of a 1 GB file costs about what one step does. The steps are those of
//! a read at [`super::Detail::Steps`] (no contexts).

use super::lazy::{LAZY_ABOVE, lazy_format};
use super::{LoadError, stream, swe_agent};
use crate::model::{Format, Step, Trajectory, TrajectorySummary, Usage};
use std::path::Path;

/// Whether `path` is big enough to be visited rather than read.
pub fn is_big(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() >= LAZY_ABOVE)
}

/// Calls `on_trajectory` with each trajectory of a file that holds several, made only at its
/// end (an OTel export), one at a time ([`stream::visit_traces`]): the same trajectories as
/// the whole read's. `None` when it is not such a file.
pub fn visit_traces(
    path: &Path,
    on_trajectory: &mut dyn FnMut(Trajectory) -> Result<(), LoadError>,
) -> Result<Option<usize>, LoadError> {
    stream::visit_traces(path, stream::SLIM_ABOVE, on_trajectory)
}

/// Calls `on_step` with each step of `path` in order; returns the trajectory without its
/// steps. `None` when its format cannot be visited (read it whole instead).
pub fn visit_steps(
    path: &Path,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Option<Trajectory>, LoadError> {
    if matches!(lazy_format(path), Ok(Format::SweAgent)) {
        let Some(mut trajectory) =
            swe_agent::open_lazy_part(path, &mut stream::Part::whole(&mut |_| Ok(())), on_step)?
        else {
            return Ok(None);
        };
        trajectory.lazy = None;
        return Ok(Some(trajectory));
    }
    stream::visit(path, stream::SLIM_ABOVE, &mut |step| {
        on_step(step);
        Ok(())
    })
}

/// Trajectory `index` (1-based) of a file read as [`visit_traces`] reads each (the others
/// left in the file), and how many it holds; `None` when it is not such a file.
pub fn trace_at(
    path: &Path,
    index: usize,
) -> Result<Option<(Option<Trajectory>, usize)>, LoadError> {
    stream::trace_at(path, stream::SLIM_ABOVE, index)
}

/// The summaries of a big `path` counted from its visited steps ([`visit_steps`]), or made
/// from its trajectories one at a time ([`visit_traces`]); `None` when it is not big or
/// cannot be visited.
pub fn summaries(path: &Path) -> Option<Result<Vec<TrajectorySummary>, LoadError>> {
    if !is_big(path) {
        return None;
    }
    // A text log may hold several trajectories (an Aider history's sessions).
    match super::text_logs::summaries(path) {
        Ok(Some(summaries)) => return Some(Ok(summaries)),
        Ok(None) => {}
        Err(err) => return Some(Err(err)),
    }
    let mut count = StepCount::default();
    match visit_steps(path, &mut |step| count.add(step)) {
        Ok(Some(trajectory)) => return Some(Ok(vec![count.summary(trajectory)])),
        Ok(None) => {}
        Err(err) => return Some(Err(err)),
    }
    trace_summaries(path)
}

/// The summaries of `path`'s trajectories made one at a time ([`visit_traces`]), whatever
/// its size (a small file too big to read whole within the memory budget); `None` when it
/// is not a file read that way.
pub fn trace_summaries(path: &Path) -> Option<Result<Vec<TrajectorySummary>, LoadError>> {
    stream::trace_summaries(path, stream::SLIM_ABOVE).transpose()
}

/// What a summary counts of steps visited one at a time.
#[derive(Default)]
pub struct StepCount {
    steps: usize,
    errors: usize,
    usage: Usage,
    last: Option<Step>,
}

impl StepCount {
    pub fn add(&mut self, step: Step) {
        self.steps += 1;
        self.errors += usize::from(step.is_error());
        self.usage.add(&step.usage);
        self.last = Some(step);
    }

    /// The summary of `trajectory` (its steps visited): what [`TrajectorySummary::of`] gives
    /// on the whole read.
    pub fn summary(self, mut trajectory: Trajectory) -> TrajectorySummary {
        trajectory.steps = self.last.into_iter().collect();
        let mut summary = TrajectorySummary::of(&trajectory);
        summary.steps = self.steps;
        summary.usage = trajectory.usage.or(self.usage);
        summary.error_steps = self.errors;
        summary
    }
}
