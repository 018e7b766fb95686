//! The tally of a big file whose steps are visited one at a time
//! ([`crate::formats::visit_steps`]): each step is counted ([`StreamedHits`]) and dropped,
//! the sequence rules decided as the steps come. The result is the [`TrajectoryTally`] (and
//! summary) of the whole read: `stats` of a 1 GB session holds its hits, not its steps nor a
//! row of counts per step.

use super::matcher::Matcher;
use super::streamed_hits::StreamedHits;
use super::tally::{ToolUse, TrajectoryTally, count_tools};
use crate::formats::{
    LoadError, StepCount, TextLogOut, is_big, open_inspect_log, visit_steps, visit_text_log,
    visit_traces,
};
use crate::model::{Step, Trajectory, TrajectorySummary, patch_files};
use std::path::Path;

/// The tally and summary of `path` when it is big and its format can be visited; `None`:
/// read it whole instead.
pub(crate) fn tally_big(
    path: &Path,
    matcher: &Matcher,
) -> Option<Result<(TrajectoryTally, TrajectorySummary), LoadError>> {
    if !is_big(path) {
        return None;
    }
    tally_visited(path, matcher)
}

/// [`tally_big`] for a file that may hold several trajectories (an Aider history's
/// sessions, an OTel export's traces): one tally and summary each.
pub(crate) fn tally_big_all(
    path: &Path,
    matcher: &Matcher,
) -> Option<Result<Vec<(TrajectoryTally, TrajectorySummary)>, LoadError>> {
    if !is_big(path) {
        return None;
    }
    tally_samples(path, matcher)
        .or_else(|| tally_text_log(path, matcher))
        .or_else(|| tally_big(path, matcher).map(|r| r.map(|one| vec![one])))
        .or_else(|| tally_traces(path, matcher))
}

/// The tally and summary of each trajectory of a file whose trajectories are made only at
/// its end (an OTel export), each read back, tallied and dropped in turn
/// ([`visit_traces`]); `None` when it is not such a file.
pub fn tally_traces(
    path: &Path,
    matcher: &Matcher,
) -> Option<Result<Vec<(TrajectoryTally, TrajectorySummary)>, LoadError>> {
    let mut tallies = Vec::new();
    let visited = visit_traces(path, &mut |t| {
        tallies.push((TrajectoryTally::of(matcher, &t), TrajectorySummary::of(&t)));
        Ok(())
    });
    visited.map(|n| n.map(|_| tallies)).transpose()
}

/// The tally and summary of each trajectory of an Inspect `.json` log read a sample at a
/// time ([`crate::formats::SampleLog`]), whatever the file's size, each trajectory dropped
/// once tallied; `None` when it is not one.
pub fn tally_samples(
    path: &Path,
    matcher: &Matcher,
) -> Option<Result<Vec<(TrajectoryTally, TrajectorySummary)>, LoadError>> {
    let log = match open_inspect_log(path) {
        Ok(Some(log)) => log,
        Ok(None) => return None,
        Err(err) => return Some(Err(err)),
    };
    let mut tallies = Vec::with_capacity(log.len());
    let visited = log.visit(&mut |t| {
        tallies.push((TrajectoryTally::of(matcher, &t), TrajectorySummary::of(&t)));
        Ok(())
    });
    Some(visited.map(|()| tallies))
}

/// The tally and summary of each trajectory of a text log (Aider, Llama), each tallied as its
/// steps are read, whatever the file's size; `None` when it is not one read step by step.
pub fn tally_text_log(
    path: &Path,
    matcher: &Matcher,
) -> Option<Result<Vec<(TrajectoryTally, TrajectorySummary)>, LoadError>> {
    let mut tallies = Vec::new();
    let mut tally = VisitTally::new(matcher);
    let visited = visit_text_log(path, &mut |out| {
        match out {
            TextLogOut::Step(step) => tally.add(step),
            TextLogOut::Trajectory(t) => {
                let done = std::mem::replace(&mut tally, VisitTally::new(matcher));
                tallies.push(done.finish(*t));
            }
        }
        Ok(())
    });
    match visited {
        Ok(Some(())) => Some(Ok(tallies)),
        Ok(None) => None,
        Err(err) => Some(Err(err)),
    }
}

/// [`tally_big`] whatever the file's size (tests compare it with the whole read's tally on
/// small files).
pub fn tally_visited(
    path: &Path,
    matcher: &Matcher,
) -> Option<Result<(TrajectoryTally, TrajectorySummary), LoadError>> {
    let mut tally = VisitTally::new(matcher);
    match visit_steps(path, &mut |step| tally.add(step)) {
        Ok(Some(trajectory)) => Some(Ok(tally.finish(trajectory))),
        Ok(None) => None,
        Err(err) => Some(Err(err)),
    }
}

/// A tally fed one step at a time.
struct VisitTally<'m> {
    hits: StreamedHits<'m>,
    tools: Vec<ToolUse>,
    count: StepCount,
}

impl<'m> VisitTally<'m> {
    fn new(matcher: &'m Matcher) -> VisitTally<'m> {
        VisitTally {
            hits: matcher.streamed_hits(),
            tools: Vec::new(),
            count: StepCount::default(),
        }
    }

    fn add(&mut self, step: Step) {
        self.hits.push(&step);
        count_tools(&mut self.tools, &step);
        self.count.add(step);
    }

    fn finish(mut self, trajectory: Trajectory) -> (TrajectoryTally, TrajectorySummary) {
        let hits = self.hits.finish(trajectory.usage.cost);
        let patch_lines = trajectory.patch_lines();
        let mut files = trajectory
            .submission
            .as_deref()
            .map_or_else(Vec::new, patch_files);
        files.shrink_to_fit();
        let summary = self.count.summary(trajectory);
        self.tools.shrink_to_fit();
        let tally = TrajectoryTally {
            header: summary.header.clone(),
            forced_exit: summary.forced_exit.clone(),
            error_steps: Some(summary.error_steps),
            steps: summary.steps,
            usage: summary.usage,
            patch_lines,
            patch_files: files,
            hits,
            tools: self.tools,
        };
        (tally, summary)
    }
}
