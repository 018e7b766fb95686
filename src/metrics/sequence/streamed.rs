//! The sequence conditions decided as the steps come, one at a time, for a trajectory whose
//! steps are not held ([`crate::metrics::visit_tally`], the lazy export's badges): what it
//! keeps is the previous step's counts, the streaks and the dollars up to the step, and for a
//! `not_followed_by` rule the steps whose window is still open (the ones that would count,
//! as (step, count) pairs). The decisions are the same as [`Plan::apply`]'s over the whole
//! table: `tests/visit_tally.rs` and the tests below compare them.
//!
//! Each step is decided when the next one arrives, or at the end: the last step's dollars
//! are the trajectory's total when no step has a cost of its own.

use super::Plan;
use crate::metrics::step_matches::StepHit;
use crate::model::Step;

/// The sequence rules of a matcher, fed one step's step-local counts at a time.
pub(crate) struct StreamedSequences<'p> {
    plans: Vec<Streamed<'p>>,
    facts: Running,
    /// The step waiting to be decided: its number, counts and facts.
    held: Option<Held>,
    /// The counts of the step before the held one (`after` reads them).
    before_held: Vec<u32>,
}

/// What a step's decision needs of it and of the steps up to it.
struct Held {
    step: usize,
    row: Vec<u32>,
    same_action: usize,
    same_both: usize,
    cost_so_far: f64,
}

/// One plan and what it still waits on.
struct Streamed<'p> {
    plan: &'p Plan,
    /// The steps whose `not_followed_by` window is open and that count if it closes well:
    /// (step, the rule's count there).
    open: Vec<(usize, u32)>,
    /// The last step the rule kept before `in_a_row`, and how many in a row up to it.
    last_kept: usize,
    run: usize,
}

/// The streaks and dollars up to the latest step (as `sequence::streaks` and
/// `costs_so_far` count them over a whole trajectory).
#[derive(Default)]
struct Running {
    previous: Option<(String, String)>,
    same_action: usize,
    same_both: usize,
    cost_so_far: f64,
    any_cost: bool,
}

impl Running {
    fn add(&mut self, step: &Step) {
        let action = step.action.trim();
        let (same_action, same_both) = match &self.previous {
            Some((a, o)) if a == action => (true, *o == step.observation),
            _ => (false, false),
        };
        let next = |continues: bool, streak: usize| match (action.is_empty(), continues) {
            (true, _) => 0,
            (false, true) => streak + 1,
            (false, false) => 1,
        };
        self.same_action = next(same_action, self.same_action);
        self.same_both = next(same_both, self.same_both);
        self.previous = Some((action.to_string(), step.observation.clone()));
        self.any_cost |= step.usage.cost.is_some();
        self.cost_so_far += step.usage.cost.unwrap_or(0.0);
    }
}

impl<'p> StreamedSequences<'p> {
    pub(crate) fn new(plans: &'p [Plan]) -> StreamedSequences<'p> {
        StreamedSequences {
            plans: plans
                .iter()
                .map(|plan| Streamed {
                    plan,
                    open: Vec::new(),
                    last_kept: 0,
                    run: 0,
                })
                .collect(),
            facts: Running::default(),
            held: None,
            before_held: Vec::new(),
        }
    }

    /// Takes step number `step` (1-based, in order) with its step-local counts `row`; hits of
    /// the sequence rules go to `hit` as they are decided (not in step order).
    pub(crate) fn push(
        &mut self,
        step: &Step,
        number: usize,
        row: Vec<u32>,
        hit: &mut Vec<StepHit>,
    ) {
        if self.plans.is_empty() {
            return;
        }
        self.facts.add(step);
        let next = Held {
            step: number,
            row,
            same_action: self.facts.same_action,
            same_both: self.facts.same_both,
            cost_so_far: self.facts.cost_so_far,
        };
        if let Some(held) = self.held.replace(next) {
            self.decide(&held, held.cost_so_far, hit);
            self.before_held = held.row;
        }
    }

    /// Decides the last step and closes the open windows; `total_cost` is the trajectory's
    /// own cost, the last step's dollars when no step has a cost.
    pub(crate) fn finish(mut self, total_cost: Option<f64>, hit: &mut Vec<StepHit>) {
        if let Some(held) = self.held.take() {
            let cost = if self.facts.any_cost {
                held.cost_so_far
            } else {
                total_cost.unwrap_or(0.0)
            };
            self.decide(&held, cost, hit);
        }
        for streamed in &mut self.plans {
            // Without `before` a window runs to the end; with it, a window no `before` step
            // closed fails.
            let closes_well = streamed.plan.before.is_none();
            streamed.close(closes_well, hit);
        }
    }

    fn decide(&mut self, held: &Held, cost: f64, hit: &mut Vec<StepHit>) {
        let count = |row: &[u32], rule: usize| row.get(rule).copied().unwrap_or(0);
        let step = held.step;
        for streamed in &mut self.plans {
            let plan = streamed.plan;
            let mut keep = count(&held.row, plan.rule) > 0;
            if let Some(other) = plan.matches {
                keep &= count(&held.row, other) > 0;
            }
            if let Some(after) = plan.after {
                keep &= step > 1 && count(&self.before_held, after) > 0;
            }
            if let Some(n) = plan.repeat {
                let streak = if plan.same_observation {
                    held.same_both
                } else {
                    held.same_action
                };
                keep &= streak >= n;
            }
            if let Some(limit) = plan.cost_above {
                keep &= cost > limit;
            }
            let Some(follower) = plan.not_followed_by else {
                if keep {
                    streamed.open.push((step, count(&held.row, plan.rule)));
                }
                streamed.close(true, hit);
                continue;
            };
            // A `before` step closes the windows of the steps before it, not its own; the
            // step itself is in its window.
            if plan.before.is_some_and(|b| count(&held.row, b) > 0) {
                streamed.close(true, hit);
            }
            if keep {
                streamed.open.push((step, count(&held.row, plan.rule)));
            }
            if count(&held.row, follower) > 0 {
                streamed.close(false, hit);
            }
        }
    }
}

impl Streamed<'_> {
    /// Closes the open windows: their steps count when `well` (and `in_a_row` holds).
    fn close(&mut self, well: bool, hit: &mut Vec<StepHit>) {
        if !well {
            self.open.clear();
            return;
        }
        for (step, matches) in self.open.drain(..) {
            self.run = if self.run > 0 && self.last_kept + 1 == step {
                self.run + 1
            } else {
                1
            };
            self.last_kept = step;
            if self.plan.in_a_row.is_none_or(|n| self.run >= n) {
                hit.push(StepHit {
                    step: u32::try_from(step).unwrap_or(u32::MAX),
                    rule: self.plan.rule,
                    matches,
                });
            }
        }
    }
}
