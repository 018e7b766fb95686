//! Compiled rules and how a trajectory is scanned with them: per step, each field's
//! patterns ([`literals`]), then the conditions on the step (tool, after a tool call,
//! `unless`, rules without a pattern, `when` and classifiers), then the sequences over the
//! steps. `scan` gives the matches per step and rule; [`compile`] builds a `Matcher`.
//!
//! Counting follows `str::matches`: non-overlapping occurrences, leftmost first. A rule on
//! `any` searches each field on its own and adds the counts up.

mod compile;
mod literals;
#[cfg(test)]
mod tests;

pub(crate) use compile::pattern_regex;

use super::field::{Field, made_tool_call, tool_calls_of};
use super::rule::{Rule, RuleId};
use super::rule_regex::RuleRegex;
use super::sequence;
use super::sparse_tally::SparsePlan;
use super::step_conditions::StepConditions;
use super::step_matches::StepMatches;
use super::streamed_hits::StreamedHits;
use crate::model::{Step, Trajectory};
use literals::{FieldScanner, Scratch};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Rules compiled for scanning. Build once, share (it is `Send + Sync`), scan many
/// trajectories in parallel.
#[derive(Debug, Clone)]
pub struct Matcher {
    rules: Vec<Rule>,
    ids: HashMap<String, RuleId>,
    scanners: Vec<FieldScanner>,
    /// Rules without a pattern: counted by their conditions alone.
    patternless: Vec<RuleId>,
    /// Rules with a condition on the step itself (tool, after a tool call).
    conditional: Vec<RuleId>,
    /// Rules with an `unless` pattern, and it compiled.
    excluding: Vec<(RuleId, RuleRegex)>,
    /// `when` conditions and classifiers.
    step_conditions: StepConditions,
    sequences: Vec<sequence::Plan>,
    /// What the raw-byte tally needs of these rules, built on first use.
    sparse: OnceLock<Option<SparsePlan>>,
}

/// Counts steps one at a time with a [`Matcher`] ([`Matcher::step_scanner`]).
pub(crate) struct StepScanner<'m> {
    matcher: &'m Matcher,
    scratch: Scratch,
}

impl StepScanner<'_> {
    /// What `step` matches on its own: one count per rule.
    pub(crate) fn row(&mut self, step: &Step) -> Vec<u32> {
        let mut row = vec![0; self.matcher.rules.len()];
        self.matcher.count_step(step, &mut row, &mut self.scratch);
        row
    }
}

/// The regex a rule's pattern compiles to: line-anchored like rg, case-insensitive on
impl Matcher {
    /// The rules that run, in order: a [`RuleId`] indexes this slice.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    pub fn rule(&self, id: RuleId) -> Option<&Rule> {
        self.rules.get(id)
    }

    /// What the raw-byte tally ([`super::sparse_tally`]) needs of these rules; `None` when
    /// they read the steps in ways it cannot follow.
    pub(crate) fn sparse_plan(&self) -> Option<&SparsePlan> {
        self.sparse.get_or_init(|| SparsePlan::new(self)).as_ref()
    }

    /// The id of the rule named `name`.
    pub fn id(&self, name: &str) -> Option<RuleId> {
        self.ids.get(name).copied()
    }
    /// Every rule's matches at every step of `trajectory`.
    pub fn scan(&self, trajectory: &Trajectory) -> StepMatches {
        self.scan_with(trajectory, trajectory, &mut |_, _| {})
    }

    /// [`Matcher::scan`], with `counted(i, row)` adding to step `i`'s row what was counted
    /// elsewhere (the raw-byte tally's counts of texts it left empty) before the conditions
    /// on the step and the sequences apply, which read `facts` (the trajectory's own, or
    /// the raw-byte tally's, which knows repeated observations it left empty).
    pub(crate) fn scan_with(
        &self,
        trajectory: &Trajectory,
        facts: &dyn sequence::Facts,
        counted: &mut dyn FnMut(usize, &mut [u32]),
    ) -> StepMatches {
        let rules = self.rules.len();
        let mut matches = StepMatches::new(trajectory.steps.len(), rules);
        let mut scratch = Scratch::default();
        for (i, step) in trajectory.steps.iter().enumerate() {
            let row = matches.row_mut(i + 1);
            self.count_fields(step, row, &mut scratch);
            counted(i, row);
            self.qualify(step, row);
        }
        self.apply_sequences(facts, &mut matches);
        matches
    }

    /// The sequence conditions, over the step-local counts of every step.
    pub(crate) fn apply_sequences(&self, facts: &dyn sequence::Facts, matches: &mut StepMatches) {
        for plan in &self.sequences {
            plan.apply(facts, matches);
        }
    }

    /// The sequence conditions, one plan per rule that has any.
    pub(crate) fn sequences(&self) -> &[sequence::Plan] {
        &self.sequences
    }

    /// The hits of steps counted one at a time as they are read and dropped.
    pub(crate) fn streamed_hits(&self) -> StreamedHits<'_> {
        StreamedHits::new(self)
    }

    /// A scanner of steps one at a time: each step's counts of the rules that look at that
    /// step alone ([`Matcher::apply_sequences`] does the rest).
    pub(crate) fn step_scanner(&self) -> StepScanner<'_> {
        StepScanner {
            matcher: self,
            scratch: Scratch::default(),
        }
    }

    /// Counts into `row` (one count per rule) what `step` matches on its own.
    fn count_step(&self, step: &Step, row: &mut [u32], scratch: &mut Scratch) {
        self.count_fields(step, row, scratch);
        self.qualify(step, row);
    }

    /// What each field's patterns find in `step`, before the step's conditions.
    fn count_fields(&self, step: &Step, row: &mut [u32], scratch: &mut Scratch) {
        for scanner in &self.scanners {
            scanner.count(step, row, scratch);
        }
    }

    /// The conditions on `step` applied to its counts: tool, after a tool call, exclusions,
    /// rules without a pattern.
    fn qualify(&self, step: &Step, row: &mut [u32]) {
        for &id in &self.conditional {
            if !self.step_qualifies(&self.rules[id], step) {
                row[id] = 0;
            }
        }
        for &id in &self.patternless {
            row[id] = self.patternless_count(&self.rules[id], step);
        }
        for (id, regex) in &self.excluding {
            if row[*id] > 0 && excluded(self.rules[*id].field, regex, step) {
                row[*id] = 0;
            }
        }
        if !self.step_conditions.is_empty() {
            self.step_conditions.apply(step, row);
        }
    }

    /// The step-local conditions: the tool called, and that a tool was called at all.
    fn step_qualifies(&self, rule: &Rule, step: &Step) -> bool {
        if rule.after_tool_call && !made_tool_call(step) {
            return false;
        }
        match &rule.tool {
            None => true,
            Some(condition) => tool_calls_of(step).iter().any(|t| condition.accepts(t)),
        }
    }

    /// A rule without a pattern counts each qualifying tool call, or the step once.
    fn patternless_count(&self, rule: &Rule, step: &Step) -> u32 {
        if rule.after_tool_call && !made_tool_call(step) {
            return 0;
        }
        match &rule.tool {
            None => 1,
            Some(condition) => {
                let calls = tool_calls_of(step)
                    .into_iter()
                    .filter(|t| condition.accepts(t))
                    .count();
                u32::try_from(calls).unwrap_or(u32::MAX)
            }
        }
    }
}

/// Whether `regex` matches in any of the fields `field` covers.
fn excluded(field: Field, regex: &RuleRegex, step: &Step) -> bool {
    Field::CONCRETE
        .into_iter()
        .filter(|f| field.covers(*f))
        .any(|f| regex.is_match(&f.text(step)))
}
