//! The tally of a big file whose steps are visited one at a time
//! ([`crate::formats::visit_steps`]): each step is scanned for the rules that look at it
//! alone and dropped; what is kept per step is its row of counts, and for the sequence
//! conditions its cost, and the streaks of same actions (and observations) up to it. The
//! result is the [`TrajectoryTally`] (and summary) of the whole read: `stats` of a 1 GB
//! session holds a few numbers per step, not its steps.

use super::matcher::{Matcher, StepScanner};
use super::sequence::Facts;
use super::step_matches::StepMatches;
use super::tally::{ToolUse, TrajectoryTally, count_tools};
use crate::formats::{LoadError, StepCount, is_big, visit_steps};
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
    matcher: &'m Matcher,
    scanner: StepScanner<'m>,
    /// Every step's counts, row after row.
    rows: Vec<u32>,
    tools: Vec<ToolUse>,
    facts: VisitedFacts,
    count: StepCount,
}

impl<'m> VisitTally<'m> {
    fn new(matcher: &'m Matcher) -> VisitTally<'m> {
        VisitTally {
            matcher,
            scanner: matcher.step_scanner(),
            rows: Vec::new(),
            tools: Vec::new(),
            facts: VisitedFacts::default(),
            count: StepCount::default(),
        }
    }

    fn add(&mut self, step: Step) {
        self.rows.extend(self.scanner.row(&step));
        count_tools(&mut self.tools, &step);
        self.facts.add(&step);
        self.count.add(step);
    }

    fn finish(mut self, trajectory: Trajectory) -> (TrajectoryTally, TrajectorySummary) {
        let rules = self.matcher.rules().len();
        let steps = self.rows.len().checked_div(rules).unwrap_or(0);
        self.facts.total_cost = trajectory.usage.cost;
        let mut matches = StepMatches::from_rows(steps, rules, std::mem::take(&mut self.rows));
        self.matcher.apply_sequences(&self.facts, &mut matches);
        let patch_lines = trajectory.patch_lines();
        let mut files = trajectory
            .submission
            .as_deref()
            .map_or_else(Vec::new, patch_files);
        files.shrink_to_fit();
        let summary = self.count.summary(trajectory);
        let mut hits = matches.hits();
        hits.shrink_to_fit();
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

/// What the sequence conditions read of visited steps.
#[derive(Default)]
struct VisitedFacts {
    /// Streaks of the same action, and of the same action and observation.
    same_action: Vec<usize>,
    same_both: Vec<usize>,
    /// The previous step's action (trimmed) and observation.
    previous: Option<(String, String)>,
    costs: Vec<f64>,
    any_cost: bool,
    /// The trajectory's own cost, counted at its last step when no step has one.
    total_cost: Option<f64>,
}

impl VisitedFacts {
    fn add(&mut self, step: &Step) {
        let action = step.action.trim();
        let (same_action, same_both) = match &self.previous {
            Some((a, o)) if a == action => (true, *o == step.observation),
            _ => (false, false),
        };
        for (out, continues) in [
            (&mut self.same_action, same_action),
            (&mut self.same_both, same_both),
        ] {
            let streak = match (action.is_empty(), continues, out.last()) {
                (true, _, _) => 0,
                (false, true, Some(&n)) => n + 1,
                (false, _, _) => 1,
            };
            out.push(streak);
        }
        self.previous = Some((action.to_string(), step.observation.clone()));
        self.any_cost |= step.usage.cost.is_some();
        self.costs.push(step.usage.cost.unwrap_or(0.0));
    }
}

impl Facts for VisitedFacts {
    fn streaks(&self, same_observation: bool) -> Vec<usize> {
        if same_observation {
            self.same_both.clone()
        } else {
            self.same_action.clone()
        }
    }

    fn costs_so_far(&self) -> Vec<f64> {
        if self.any_cost {
            self.costs
                .iter()
                .scan(0.0, |sum, cost| {
                    *sum += cost;
                    Some(*sum)
                })
                .collect()
        } else {
            let mut out = vec![0.0; self.costs.len()];
            if let (Some(last), Some(total)) = (out.last_mut(), self.total_cost) {
                *last = total;
            }
            out
        }
    }
}
