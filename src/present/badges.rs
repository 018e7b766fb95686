//! The badges of a step: the visible rules it matched, then the labels people gave it
//! (`label: wrong file localized`). One list for every output that tags steps (the TUI's
//! export, `trajscope export`), so that none can show fewer than another.

use crate::metrics::{LabelSet, Matcher, StepMatches};
use crate::model::Trajectory;
use std::collections::HashMap;

/// How a label reads among the rule names.
pub const LABEL_PREFIX: &str = "label: ";

/// The badges of each step (1-based) that has any. Held for every step of an export before
/// its first step is written (a sequence rule's match is known only later), so held small:
/// each distinct list of names once, and per step that has badges a step number and an
/// index (8 bytes; a 1 GB log's million steps cost a few MB, not the 500 bytes a step a
/// list of names of its own costs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StepBadges {
    /// The distinct lists of badges, in order of first use.
    lists: Vec<Vec<String>>,
    /// (step, index in `lists`), by step.
    by_step: Vec<(u32, u32)>,
}

impl StepBadges {
    /// No badges at all (a caller that has no rules, a test).
    pub const NONE: StepBadges = StepBadges {
        lists: Vec::new(),
        by_step: Vec::new(),
    };

    /// The badges of `steps` from what matched there: `rules_at` gives the names of the
    /// visible rules that matched at a step, `labels_at` its labels.
    pub fn collect<'a>(
        steps: impl IntoIterator<Item = usize>,
        rules_at: impl Fn(usize) -> Vec<&'a str>,
        labels_at: impl Fn(usize) -> Vec<&'a str>,
    ) -> StepBadges {
        let mut badges = StepBadges::default();
        let mut interned: HashMap<Vec<String>, u32> = HashMap::new();
        for step in steps {
            let Ok(number) = u32::try_from(step) else {
                continue;
            };
            let mut names: Vec<String> = rules_at(step).into_iter().map(String::from).collect();
            names.extend(
                labels_at(step)
                    .into_iter()
                    .map(|l| format!("{LABEL_PREFIX}{l}")),
            );
            if names.is_empty() {
                continue;
            }
            let next = u32::try_from(badges.lists.len()).unwrap_or(u32::MAX);
            let index = *interned.entry(names).or_insert_with_key(|names| {
                badges.lists.push(names.clone());
                next
            });
            badges.by_step.push((number, index));
        }
        // Callers give steps in order; any other order is sorted, the last list of a step
        // given twice kept.
        if !badges.by_step.is_sorted_by_key(|&(step, _)| step) {
            badges.by_step.reverse();
            badges.by_step.sort_by_key(|&(step, _)| step);
            badges.by_step.dedup_by_key(|&mut (step, _)| step);
        }
        badges.lists.shrink_to_fit();
        badges.by_step.shrink_to_fit();
        badges
    }

    /// The badges of every step of `trajectory`: `matcher`'s rules scanned afresh (hidden
    /// rules left out, as the TUI leaves them out) and the labels of `labels`.
    pub fn scan(
        matcher: &Matcher,
        trajectory: &Trajectory,
        labels: Option<&LabelSet>,
    ) -> StepBadges {
        let matches: StepMatches = matcher.scan(trajectory);
        let rules_at = |step: usize| {
            matches
                .rules_at(step)
                .filter_map(|id| matcher.rule(id))
                .filter(|r| !r.hidden)
                .map(|r| r.name.as_str())
                .collect::<Vec<&str>>()
        };
        StepBadges::collect(
            1..=trajectory.steps.len(),
            rules_at,
            labels_at(trajectory, labels),
        )
    }

    /// The badges of a trajectory opened lazily, its steps read back one at a time and
    /// dropped: the rules each step matched, the sequence rules included (decided as the
    /// steps come, the same as [`StepBadges::scan`] of the whole read), and the labels saved
    /// for it. A step that cannot be read back ends the scan: the badges found so far come
    /// back with the reason.
    pub fn scan_lazily(
        matcher: &Matcher,
        trajectory: &Trajectory,
        labels: Option<&LabelSet>,
    ) -> (StepBadges, Result<(), String>) {
        let mut streamed = matcher.streamed_hits();
        let walked = trajectory.visit_steps(|step| {
            streamed.push(step);
            true
        });
        let hits = streamed.finish(trajectory.usage.cost);
        let rules_at = |step: usize| {
            let step = u32::try_from(step).unwrap_or(u32::MAX);
            let first = hits.partition_point(|h| h.step < step);
            hits[first..]
                .iter()
                .take_while(|h| h.step == step)
                .filter_map(|h| matcher.rule(h.rule))
                .filter(|r| !r.hidden)
                .map(|r| r.name.as_str())
                .collect()
        };
        let badges = StepBadges::collect(
            1..=trajectory.step_count(),
            rules_at,
            labels_at(trajectory, labels),
        );
        (badges, walked)
    }

    /// The badges of 1-based `step`, in order: rules, then labels.
    pub fn at(&self, step: usize) -> &[String] {
        let Ok(step) = u32::try_from(step) else {
            return &[];
        };
        self.by_step
            .binary_search_by_key(&step, |&(s, _)| s)
            .ok()
            .and_then(|i| self.lists.get(self.by_step[i].1 as usize))
            .map_or(&[], Vec::as_slice)
    }

    pub fn is_empty(&self) -> bool {
        self.by_step.is_empty()
    }
}

/// The labels `labels` holds for each step of `trajectory`, as `StepBadges::collect` asks
/// for them.
fn labels_at<'a>(
    trajectory: &'a Trajectory,
    labels: Option<&'a LabelSet>,
) -> impl Fn(usize) -> Vec<&'a str> {
    move |step| {
        labels
            .map(|set| {
                set.at_step(&trajectory.path, trajectory.source_index, step)
                    .into_iter()
                    .map(|l| l.label.as_str())
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{Field, Pattern, Rule};
    use crate::model::{Format, Step};

    fn trajectory() -> Trajectory {
        let mut t = Trajectory::new("run/t.traj", Format::SweAgent);
        t.steps = vec![
            Step {
                action: "ls".into(),
                observation: "a.py".into(),
                ..Step::default()
            },
            Step {
                action: "python a.py".into(),
                observation: "SyntaxError: invalid syntax".into(),
                ..Step::default()
            },
        ];
        t.number_steps();
        t
    }

    #[test]
    fn rules_then_labels_and_hidden_rules_left_out() {
        let mut hidden = Rule::new("hidden", Pattern::literal("Syntax"), Field::Observation);
        hidden.hidden = true;
        let (matcher, errors) = Matcher::new(vec![
            Rule::new(
                "Syntax error",
                Pattern::literal("SyntaxError"),
                Field::Observation,
            ),
            hidden,
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        let badges = StepBadges::scan(&matcher, &trajectory(), None);
        assert!(badges.at(1).is_empty());
        assert_eq!(badges.at(2), ["Syntax error".to_string()]);
        let with_labels = StepBadges::collect(
            1..=2,
            |s| if s == 2 { vec!["Syntax error"] } else { vec![] },
            |s| {
                if s == 1 {
                    vec!["looked around"]
                } else {
                    vec![]
                }
            },
        );
        assert_eq!(with_labels.at(1), ["label: looked around".to_string()]);
        assert_eq!(with_labels.at(2), ["Syntax error".to_string()]);
        assert!(StepBadges::NONE.is_empty());
    }
}
