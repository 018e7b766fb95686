//! A run's tally summed up as it is read, for outputs that need no per-trajectory data
//! (`stats` as text, its aggregate JSON): every trajectory's counts are added to the rule
//! and tool rows and to the overview's parts, then the trajectory's tally is dropped, so
//! memory stays flat however many rows a dataset has (only the values behind the
//! overview's medians grow, 8 bytes per trajectory and quantity). The same sums as
//! [`super::Tally`]'s over kept tallies, added in the same order.

use super::overview::OverviewParts;
use super::tally::{Counts, Split, TrajectoryTally};
use std::collections::HashMap;

/// The counts of trajectories no longer kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FoldedTally {
    trajectories: usize,
    /// By rule id.
    rules: Vec<Split>,
    tools: HashMap<String, Split>,
    overview: OverviewParts,
    /// One trajectory's counts per rule, reused between trajectories.
    scratch: Vec<Counts>,
}

impl FoldedTally {
    /// An empty fold for a matcher of `rules` rules.
    pub fn new(rules: usize) -> FoldedTally {
        FoldedTally {
            rules: vec![Split::default(); rules],
            scratch: vec![Counts::default(); rules],
            ..FoldedTally::default()
        }
    }

    /// Adds a trajectory's counts; its verdict must be final (no results left to join).
    pub fn add(&mut self, t: &TrajectoryTally) {
        self.trajectories += 1;
        add_rule_counts(&mut self.rules, &mut self.scratch, t);
        add_tools(&mut self.tools, t);
        self.overview.add(t);
    }

    /// Adds the fold of trajectories that came after these.
    pub fn append(&mut self, later: FoldedTally) {
        self.trajectories += later.trajectories;
        if self.rules.len() < later.rules.len() {
            self.rules.resize(later.rules.len(), Split::default());
        }
        for (split, other) in self.rules.iter_mut().zip(later.rules) {
            split.add_split(&other);
        }
        for (name, counts) in later.tools {
            self.tools.entry(name).or_default().add_split(&counts);
        }
        self.overview.append(later.overview);
    }

    pub fn len(&self) -> usize {
        self.trajectories
    }

    pub fn is_empty(&self) -> bool {
        self.trajectories == 0
    }

    pub(super) fn rules(&self) -> &[Split] {
        &self.rules
    }

    pub(super) fn tools(&self) -> &HashMap<String, Split> {
        &self.tools
    }

    pub(super) fn overview(&self) -> &OverviewParts {
        &self.overview
    }
}

/// Adds one trajectory's matches, steps and (once) itself to the rules it matched.
/// `scratch` holds one `Counts` per rule.
pub(super) fn add_rule_counts(splits: &mut [Split], scratch: &mut [Counts], t: &TrajectoryTally) {
    scratch.fill(Counts::default());
    for hit in &t.hits {
        if let Some(c) = scratch.get_mut(hit.rule) {
            c.matches += u64::from(hit.matches);
            c.steps += 1;
            c.trajectories = 1;
        }
    }
    for (split, counts) in splits.iter_mut().zip(scratch.iter()) {
        if counts.trajectories > 0 {
            split.add(t.outcome(), *counts);
        }
    }
}

/// Adds one trajectory's calls, steps and (once) itself to the tools it used.
pub(super) fn add_tools(rows: &mut HashMap<String, Split>, t: &TrajectoryTally) {
    for tool in &t.tools {
        let counts = Counts {
            matches: u64::from(tool.calls),
            steps: u64::from(tool.steps),
            trajectories: 1,
        };
        match rows.get_mut(&tool.name) {
            Some(split) => split.add(t.outcome(), counts),
            None => {
                let mut split = Split::default();
                split.add(t.outcome(), counts);
                rows.insert(tool.name.clone(), split);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::field::Field;
    use crate::metrics::matcher::Matcher;
    use crate::metrics::rule::{Pattern, Rule};
    use crate::metrics::tally::Tally;
    use crate::model::{ToolCall, Trajectory, Usage};
    use std::sync::Arc;

    /// The tally tests' trajectory, ended as a resolved run (submitted) or not (out of budget).
    fn trajectory(name: &str, resolved: Option<bool>, observations: &[&str]) -> Trajectory {
        let mut t = crate::metrics::tally::tests::trajectory(name, resolved, observations);
        let exit = if resolved == Some(true) {
            "submitted"
        } else {
            "exit_cost"
        };
        t.exit_status = Some(exit.into());
        t
    }

    #[test]
    fn a_folded_run_counts_as_the_same_run_kept() {
        let (matcher, errors) = Matcher::new(vec![
            Rule::new("error", Pattern::literal("Error"), Field::Observation),
            Rule::new("ls", Pattern::literal("ls"), Field::Action),
        ]);
        assert!(errors.is_empty());
        let matcher = Arc::new(matcher);
        let mut runs = [
            trajectory("a", Some(true), &["Error Error", "fine"]),
            trajectory("b", Some(false), &["Error", "Error", "ok"]),
            trajectory("c", None, &["ok"]),
            trajectory("d", Some(false), &["ok", "Error"]),
        ];
        runs[1].steps[0].tool_calls =
            vec![ToolCall::new("edit", "{}"), ToolCall::new("edit", "{}")];
        runs[1].usage = Usage {
            cost: Some(0.1),
            ..Usage::default()
        };
        runs[3].usage = Usage {
            cost: Some(0.2),
            ..Usage::default()
        };
        runs[3].submission = Some("diff --git a/x b/x\n+y\n".into());
        let tallies: Vec<TrajectoryTally> = runs
            .iter()
            .map(|t| TrajectoryTally::of(&matcher, t))
            .collect();

        let mut kept = Tally::new(Arc::clone(&matcher));
        for t in &tallies {
            kept.insert(t.clone());
        }
        // Two files' folds, appended in order, as a run of two shards is summed up.
        let mut folded = Tally::new(Arc::clone(&matcher));
        for part in tallies.chunks(3) {
            let mut fold = FoldedTally::new(matcher.rules().len());
            for t in part {
                fold.add(t);
            }
            folded.fold(fold);
        }

        assert!(
            folded.trajectories().is_empty(),
            "nothing per trajectory is kept"
        );
        assert_eq!(folded.len(), 4);
        assert_eq!(folded.rows(), kept.rows());
        assert_eq!(folded.rule_counts()[0].all.matches, 5);
        assert_eq!(folded.tools(), kept.tools());
        assert_eq!(folded.tools().len(), 2);
        assert_eq!(folded.outcomes(), (1, 2, 1));
        assert_eq!(folded.outcomes(), kept.outcomes());
        let overview = folded.overview();
        assert_eq!(overview, kept.overview());
        assert_eq!(overview, crate::metrics::Overview::of(kept.trajectories()));
        assert_eq!(overview.empty_patches, 3);
        assert_eq!(overview.cost.known, 2);
    }
}
