//! What one trajectory's scan found: the number of matches of every rule at every step.

use super::rule::RuleId;
use serde::{Deserialize, Serialize};

/// A rule that matched at a step: the unit of drill-down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepHit {
    /// 1-based step.
    pub step: u32,
    pub rule: RuleId,
    pub matches: u32,
}

/// A steps × rules table of match counts. Dense: trajectories have hundreds of steps and
/// rule sets dozens of rules, and sequence conditions look across steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepMatches {
    steps: usize,
    rules: usize,
    counts: Vec<u32>,
}

impl StepMatches {
    pub fn new(steps: usize, rules: usize) -> StepMatches {
        StepMatches {
            steps,
            rules,
            counts: vec![0; steps * rules],
        }
    }

    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Matches of `rule` at 1-based `step`; 0 outside the table.
    pub fn get(&self, step: usize, rule: RuleId) -> u32 {
        if step == 0 || step > self.steps || rule >= self.rules {
            return 0;
        }
        self.counts[(step - 1) * self.rules + rule]
    }

    pub(crate) fn set(&mut self, step: usize, rule: RuleId, count: u32) {
        if step >= 1 && step <= self.steps && rule < self.rules {
            self.counts[(step - 1) * self.rules + rule] = count;
        }
    }

    /// The counts of 1-based `step`, one per rule.
    pub(crate) fn row_mut(&mut self, step: usize) -> &mut [u32] {
        let start = (step.saturating_sub(1) * self.rules).min(self.counts.len());
        let end = (start + self.rules).min(self.counts.len());
        &mut self.counts[start..end]
    }

    /// The rules that matched at 1-based `step`, in rule order.
    pub fn rules_at(&self, step: usize) -> impl Iterator<Item = RuleId> + '_ {
        (0..self.rules).filter(move |&rule| self.get(step, rule) > 0)
    }

    /// Every (step, rule) that matched, by step then rule.
    pub fn hits(&self) -> Vec<StepHit> {
        let mut hits = Vec::new();
        for step in 1..=self.steps {
            for rule in 0..self.rules {
                let matches = self.get(step, rule);
                if matches > 0 {
                    hits.push(StepHit {
                        step: u32::try_from(step).unwrap_or(u32::MAX),
                        rule,
                        matches,
                    });
                }
            }
        }
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_set_and_hits() {
        let mut m = StepMatches::new(3, 2);
        m.set(2, 1, 4);
        m.set(3, 0, 1);
        m.set(9, 0, 1);
        assert_eq!(m.get(2, 1), 4);
        assert_eq!(m.get(0, 0), 0);
        assert_eq!(m.get(4, 0), 0);
        assert_eq!(m.rules_at(2).collect::<Vec<_>>(), vec![1]);
        assert_eq!(
            m.hits(),
            vec![
                StepHit {
                    step: 2,
                    rule: 1,
                    matches: 4
                },
                StepHit {
                    step: 3,
                    rule: 0,
                    matches: 1
                }
            ]
        );
    }
}
