//! The run-level numbers beside the rule table: outcomes and the resolved rate with its
//! interval, how runs ended, empty patches, and steps, cost and tokens.

use super::exit_kind::ExitKind;
use super::stats::{Rate, mean, median, wilson};
use super::tally::{Outcome, TrajectoryTally};
use serde::Serialize;
use std::collections::BTreeMap;

/// Total, mean and median of a quantity over the trajectories that record it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub total: f64,
    pub mean: Option<f64>,
    pub median: Option<f64>,
    /// How many trajectories record it: cost and tokens are missing from some logs.
    pub known: usize,
}

impl Spread {
    fn of(values: &[f64]) -> Spread {
        Spread {
            total: values.iter().sum(),
            mean: mean(values),
            median: median(values),
            known: values.len(),
        }
    }
}

/// A run at a glance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overview {
    pub trajectories: usize,
    pub resolved: usize,
    pub unresolved: usize,
    pub unknown: usize,
    /// Resolved among the trajectories with a verdict, with its 95% Wilson interval;
    /// `None` when no trajectory has one.
    pub resolved_rate: Option<Rate>,
    /// Exit statuses as written, most frequent first; a missing status is `(none)`.
    pub exit_statuses: Vec<(String, usize)>,
    /// Exit statuses by kind, every kind listed. A SWE-agent run whose last step is a forced
    /// exit (`exit_cost`) counts by that, whatever its status says.
    pub exit_kinds: BTreeMap<ExitKind, usize>,
    pub empty_patches: usize,
    /// Empty patches per trajectory.
    pub empty_patch_rate: f64,
    pub steps: Spread,
    pub cost: Spread,
    pub tokens_in: Spread,
    pub tokens_out: Spread,
}

impl Overview {
    pub fn of(trajectories: &[TrajectoryTally]) -> Overview {
        let mut parts = OverviewParts::default();
        for t in trajectories {
            parts.add(t);
        }
        parts.finish()
    }
}

/// What an [`Overview`] is made of, gathered one trajectory at a time, so that a run can be
/// summed up without keeping its trajectories (`stats` over a 100,000-row dataset). Only the
/// values behind the medians are kept: 8 bytes per trajectory and quantity recorded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OverviewParts {
    resolved: usize,
    unresolved: usize,
    unknown: usize,
    statuses: BTreeMap<String, usize>,
    exit_kinds: BTreeMap<ExitKind, usize>,
    empty_patches: usize,
    /// In the order the trajectories came: sums of floats depend on it.
    steps: Vec<f64>,
    cost: Vec<f64>,
    tokens_in: Vec<f64>,
    tokens_out: Vec<f64>,
}

impl OverviewParts {
    pub fn add(&mut self, t: &TrajectoryTally) {
        match t.outcome() {
            Outcome::Resolved => self.resolved += 1,
            Outcome::Unresolved => self.unresolved += 1,
            Outcome::Unknown => self.unknown += 1,
        }
        let status = t.exit_status.as_deref().unwrap_or("(none)");
        match self.statuses.get_mut(status) {
            Some(n) => *n += 1,
            None => {
                self.statuses.insert(status.to_string(), 1);
            }
        }
        *self.exit_kinds.entry(t.exit_kind()).or_default() += 1;
        if t.patch_lines == 0 {
            self.empty_patches += 1;
        }
        self.steps.push(t.steps as f64);
        self.cost.extend(t.usage.cost);
        self.tokens_in.extend(t.usage.tokens_in.map(|n| n as f64));
        self.tokens_out.extend(t.usage.tokens_out.map(|n| n as f64));
    }

    /// Trajectories by outcome: (resolved, unresolved, unknown).
    pub fn outcomes(&self) -> (usize, usize, usize) {
        (self.resolved, self.unresolved, self.unknown)
    }

    /// Adds the parts of trajectories that came after these.
    pub fn append(&mut self, later: OverviewParts) {
        self.resolved += later.resolved;
        self.unresolved += later.unresolved;
        self.unknown += later.unknown;
        for (status, n) in later.statuses {
            *self.statuses.entry(status).or_default() += n;
        }
        for (kind, n) in later.exit_kinds {
            *self.exit_kinds.entry(kind).or_default() += n;
        }
        self.empty_patches += later.empty_patches;
        self.steps.extend(later.steps);
        self.cost.extend(later.cost);
        self.tokens_in.extend(later.tokens_in);
        self.tokens_out.extend(later.tokens_out);
    }

    pub fn finish(&self) -> Overview {
        let (resolved, unresolved, unknown) = (self.resolved, self.unresolved, self.unknown);
        let trajectories = resolved + unresolved + unknown;
        let judged = resolved + unresolved;
        let mut exit_kinds: BTreeMap<ExitKind, usize> =
            ExitKind::ALL.into_iter().map(|k| (k, 0)).collect();
        for (kind, n) in &self.exit_kinds {
            *exit_kinds.entry(*kind).or_default() += n;
        }
        let mut exit_statuses: Vec<(String, usize)> = self
            .statuses
            .iter()
            .map(|(status, n)| (status.clone(), *n))
            .collect();
        exit_statuses.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let empty_patches = self.empty_patches;
        Overview {
            trajectories,
            resolved,
            unresolved,
            unknown,
            resolved_rate: (judged > 0).then(|| wilson(resolved as u64, judged as u64)),
            exit_statuses,
            exit_kinds,
            empty_patches,
            empty_patch_rate: if trajectories == 0 {
                0.0
            } else {
                empty_patches as f64 / trajectories as f64
            },
            steps: Spread::of(&self.steps),
            cost: Spread::of(&self.cost),
            tokens_in: Spread::of(&self.tokens_in),
            tokens_out: Spread::of(&self.tokens_out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::matcher::Matcher;
    use crate::model::{Format, Step, Trajectory, Usage};

    fn tallied(
        resolved: Option<bool>,
        status: Option<&str>,
        steps: usize,
        cost: Option<f64>,
        patch: bool,
    ) -> TrajectoryTally {
        let mut t = Trajectory::new("x.traj", Format::SweAgent);
        t.resolved = resolved;
        t.exit_status = status.map(String::from);
        t.steps = vec![Step::default(); steps];
        t.usage = Usage {
            cost,
            ..Usage::default()
        };
        t.submission = patch.then(|| "diff --git a/x b/x\n+y\n".to_string());
        let (m, _) = Matcher::new(Vec::new());
        TrajectoryTally::of(&m, &t)
    }

    #[test]
    fn the_numbers_of_a_small_run() {
        let ts = vec![
            tallied(Some(true), Some("submitted"), 10, Some(1.0), true),
            tallied(Some(false), Some("exit_cost"), 30, Some(3.0), true),
            tallied(Some(false), Some("Submitted"), 20, None, false),
            tallied(None, None, 40, Some(2.0), true),
        ];
        let o = Overview::of(&ts);
        assert_eq!((o.resolved, o.unresolved, o.unknown), (1, 2, 1));
        let rate = o.resolved_rate.unwrap();
        assert_eq!(
            (rate.successes, rate.total),
            (1, 3),
            "unknowns are not in the rate"
        );
        assert_eq!(o.exit_kinds[&ExitKind::Submitted], 2);
        assert_eq!(o.exit_kinds[&ExitKind::Limit], 1);
        assert_eq!(o.exit_kinds[&ExitKind::None], 1);
        assert_eq!(o.exit_kinds[&ExitKind::Context], 0, "every kind is listed");
        assert_eq!(o.exit_statuses[0].1, 1);
        assert_eq!(o.empty_patches, 1);
        assert_eq!(o.empty_patch_rate, 0.25);
        assert_eq!(
            (o.steps.total, o.steps.mean, o.steps.median),
            (100.0, Some(25.0), Some(25.0))
        );
        assert_eq!((o.cost.known, o.cost.median), (3, Some(2.0)));
        assert_eq!(o.tokens_in.known, 0);
        assert!(Overview::of(&[]).resolved_rate.is_none());
    }
}
