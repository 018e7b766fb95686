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
        let count = |o: Outcome| trajectories.iter().filter(|t| t.outcome() == o).count();
        let (resolved, unresolved, unknown) = (
            count(Outcome::Resolved),
            count(Outcome::Unresolved),
            count(Outcome::Unknown),
        );
        let judged = resolved + unresolved;
        let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
        let mut exit_kinds: BTreeMap<ExitKind, usize> =
            ExitKind::ALL.into_iter().map(|k| (k, 0)).collect();
        for t in trajectories {
            let status = t.exit_status.clone().unwrap_or_else(|| "(none)".into());
            *statuses.entry(status).or_default() += 1;
            *exit_kinds.entry(t.exit_kind()).or_default() += 1;
        }
        let mut exit_statuses: Vec<(String, usize)> = statuses.into_iter().collect();
        exit_statuses.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let empty_patches = trajectories.iter().filter(|t| t.patch_lines == 0).count();
        let values = |f: &dyn Fn(&TrajectoryTally) -> Option<f64>| -> Vec<f64> {
            trajectories.iter().filter_map(f).collect()
        };
        Overview {
            trajectories: trajectories.len(),
            resolved,
            unresolved,
            unknown,
            resolved_rate: (judged > 0).then(|| wilson(resolved as u64, judged as u64)),
            exit_statuses,
            exit_kinds,
            empty_patches,
            empty_patch_rate: if trajectories.is_empty() {
                0.0
            } else {
                empty_patches as f64 / trajectories.len() as f64
            },
            steps: Spread::of(&values(&|t| Some(t.steps as f64))),
            cost: Spread::of(&values(&|t| t.usage.cost)),
            tokens_in: Spread::of(&values(&|t| t.usage.tokens_in.map(|n| n as f64))),
            tokens_out: Spread::of(&values(&|t| t.usage.tokens_out.map(|n| n as f64))),
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
