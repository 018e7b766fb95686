//! The hits of a trajectory whose steps come one at a time and are dropped
//! ([`crate::formats::visit_steps`], a lazy trajectory's passes): each step is counted on its
//! own, the rules it decides alone give their hits at once, and the sequence rules theirs as
//! [`StreamedSequences`] decides them. What is kept grows with the hits, not with the steps:
//! the same hits, in the same order, as [`Matcher::scan`] of the whole trajectory.

use super::matcher::{Matcher, StepScanner};
use super::sequence::StreamedSequences;
use super::step_matches::StepHit;
use crate::model::Step;

/// Hits gathered step by step ([`Matcher::streamed_hits`]).
pub(crate) struct StreamedHits<'m> {
    scanner: StepScanner<'m>,
    sequences: StreamedSequences<'m>,
    /// The rules the sequences decide: their step-local counts are not hits yet.
    by_sequence: Vec<bool>,
    hits: Vec<StepHit>,
    steps: usize,
}

impl<'m> StreamedHits<'m> {
    pub(crate) fn new(matcher: &'m Matcher) -> StreamedHits<'m> {
        let mut by_sequence = vec![false; matcher.rules().len()];
        for plan in matcher.sequences() {
            if let Some(flag) = by_sequence.get_mut(plan.rule()) {
                *flag = true;
            }
        }
        StreamedHits {
            scanner: matcher.step_scanner(),
            sequences: StreamedSequences::new(matcher.sequences()),
            by_sequence,
            hits: Vec::new(),
            steps: 0,
        }
    }

    /// Counts the next step (they come in order).
    pub(crate) fn push(&mut self, step: &Step) {
        self.steps += 1;
        let row = self.scanner.row(step);
        let number = u32::try_from(self.steps).unwrap_or(u32::MAX);
        for (rule, &matches) in row.iter().enumerate() {
            if matches > 0 && !self.by_sequence[rule] {
                self.hits.push(StepHit {
                    step: number,
                    rule,
                    matches,
                });
            }
        }
        self.sequences.push(step, self.steps, row, &mut self.hits);
    }

    /// Every (step, rule) that matched, by step then rule; `total_cost` is the trajectory's
    /// own cost (`cost_above` reads it at the last step when no step has a cost).
    pub(crate) fn finish(mut self, total_cost: Option<f64>) -> Vec<StepHit> {
        self.sequences.finish(total_cost, &mut self.hits);
        self.hits.sort_unstable_by_key(|h| (h.step, h.rule));
        self.hits.shrink_to_fit();
        self.hits
    }
}

#[cfg(test)]
mod tests {
    use crate::metrics::{Matcher, RuleSet};
    use crate::model::{Format, Step, Trajectory, Usage};

    /// Every sequence condition, and windows that stay open over many steps.
    const RULES: &str = r#"
[[rule]]
name = "edit"
tool = ["edit"]

[[rule]]
name = "test"
tool = ["pytest"]

[[rule]]
name = "submit"
tool = ["submit"]

[[rule]]
name = "error"
field = "observation"
pattern = "Error"

[[rule]]
name = "looped"
repeat = 3

[[rule]]
name = "stuck"
repeat = 2
same_observation = true

[[rule]]
name = "untested"
matches = "edit"
not_followed_by = "test"
before = "submit"

[[rule]]
name = "never_tested"
matches = "edit"
not_followed_by = "test"

[[rule]]
name = "broke_it"
matches = "error"
after = "edit"

[[rule]]
name = "errors_in_a_row"
matches = "error"
in_a_row = 2

[[rule]]
name = "untested_edits_in_a_row"
matches = "edit"
not_followed_by = "test"
before = "submit"
in_a_row = 2

[[rule]]
name = "dear"
cost_above = 0.05
"#;

    /// A trajectory of `len` steps drawn from `seed`: a few actions and observations, so
    /// that streaks, windows and runs of every length occur.
    fn trajectory(seed: u64, len: usize, costs: bool, total: Option<f64>) -> Trajectory {
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let actions = ["edit a.py", "edit a.py", "pytest", "submit", "ls", ""];
        let outputs = ["ok", "SyntaxError: bad", "Error again", ""];
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        t.usage.cost = total;
        t.steps = (0..len)
            .map(|_| {
                let action = actions[next(actions.len() as u64) as usize];
                Step {
                    action: action.to_string(),
                    tool: action.split_whitespace().next().map(String::from),
                    observation: outputs[next(outputs.len() as u64) as usize].to_string(),
                    usage: Usage {
                        cost: (costs && next(3) > 0).then(|| next(100) as f64 / 1000.0),
                        ..Usage::default()
                    },
                    ..Step::default()
                }
            })
            .collect();
        t.number_steps();
        t
    }

    #[test]
    fn streamed_hits_equal_the_whole_scan() {
        let mut set = RuleSet::defaults();
        set.add_text(RULES, "streamed.toml");
        assert!(set.errors.is_empty(), "{:?}", set.errors);
        let (matcher, errors) = Matcher::new(set.rules);
        assert!(errors.is_empty(), "{errors:?}");
        let mut sequence_hits = 0;
        for seed in 0..300 {
            let len = (seed as usize * 7) % 90;
            let costs = seed % 3 != 0;
            let total = (seed % 2 == 0).then_some(0.5);
            let t = trajectory(seed, len, costs, total);
            let want = matcher.scan(&t).hits();
            let mut streamed = matcher.streamed_hits();
            for step in &t.steps {
                streamed.push(step);
            }
            let got = streamed.finish(t.usage.cost);
            assert_eq!(got, want, "seed {seed}, {len} steps");
            sequence_hits += got
                .iter()
                .filter(|h| matcher.sequences().iter().any(|p| p.rule() == h.rule))
                .count();
        }
        // The comparison reached the sequence rules, not only the step-local ones.
        assert!(sequence_hits > 1000, "{sequence_hits} sequence hits");
    }
}
