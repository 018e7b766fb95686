//! Conditions that look beyond the step they count, or at other rules: the step also
//! matched a rule (`matches`), the step before matched one (`after`), the same action several
//! times in a row (`repeat`), and no later step matching a rule before another one
//! (`not_followed_by` … `before`). They run after every rule has
//! been decided step by step, and only refer to such step-by-step rules.

mod streamed;

pub(crate) use streamed::StreamedSequences;

use super::rule::{Rule, RuleId};
use super::step_matches::StepMatches;
use crate::model::Trajectory;
use std::collections::HashMap;

/// A rule's sequence conditions with the rules they name resolved to ids.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    rule: RuleId,
    matches: Option<RuleId>,
    after: Option<RuleId>,
    repeat: Option<usize>,
    same_observation: bool,
    not_followed_by: Option<RuleId>,
    before: Option<RuleId>,
    in_a_row: Option<usize>,
    cost_above: Option<f64>,
}

impl Plan {
    /// The plan of `rule`, or `None` when it has no sequence conditions. Names are known to
    /// resolve: the matcher drops rules whose references do not.
    pub(crate) fn new(id: RuleId, rule: &Rule, ids: &HashMap<String, RuleId>) -> Option<Plan> {
        if !rule.is_sequence() {
            return None;
        }
        let resolve = |name: &Option<String>| name.as_ref().and_then(|n| ids.get(n).copied());
        Some(Plan {
            rule: id,
            matches: resolve(&rule.matches),
            after: resolve(&rule.after),
            repeat: rule.repeat,
            same_observation: rule.same_observation,
            not_followed_by: resolve(&rule.not_followed_by),
            before: resolve(&rule.before),
            in_a_row: rule.in_a_row,
            cost_above: rule.cost_above,
        })
    }

    /// The rule these conditions decide.
    pub(crate) fn rule(&self) -> RuleId {
        self.rule
    }

    /// Clears the rule's matches at the steps where a condition fails.
    pub(crate) fn apply(&self, facts: &dyn Facts, matches: &mut StepMatches) {
        let steps = matches.steps();
        let streaks = self.repeat.map(|_| facts.streaks(self.same_observation));
        let windows = self
            .not_followed_by
            .map(|follower| follow_windows(matches, follower, self.before));
        let costs = self.cost_above.map(|_| facts.costs_so_far());
        let mut run = 0;
        for step in 1..=steps {
            let mut keep = true;
            if let Some(other) = self.matches {
                keep &= matches.get(step, other) > 0;
            }
            if let Some(after) = self.after {
                keep &= step > 1 && matches.get(step - 1, after) > 0;
            }
            if let (Some(n), Some(streaks)) = (self.repeat, &streaks) {
                keep &= streaks[step - 1] >= n;
            }
            if let Some(windows) = &windows {
                keep &= windows[step - 1];
            }
            if let (Some(limit), Some(costs)) = (self.cost_above, &costs) {
                keep &= costs[step - 1] > limit;
            }
            keep &= matches.get(step, self.rule) > 0;
            run = if keep { run + 1 } else { 0 };
            if let Some(n) = self.in_a_row {
                keep &= run >= n;
            }
            if !keep {
                matches.set(step, self.rule, 0);
            }
        }
    }
}

/// What the sequence conditions read of a trajectory's steps beyond the rules' counts (a
/// trajectory held whole; one whose steps are visited one at a time is decided as they come
/// by [`StreamedSequences`]).
pub(crate) trait Facts {
    /// For each step, how many steps in a row up to it had the same (non-empty) action,
    /// and the same observation when `same_observation`.
    fn streaks(&self, same_observation: bool) -> Vec<usize>;
    /// For each step, the dollars spent up to and including it.
    fn costs_so_far(&self) -> Vec<f64>;
}

impl Facts for Trajectory {
    fn streaks(&self, same_observation: bool) -> Vec<usize> {
        streaks(self, same_observation)
    }

    fn costs_so_far(&self) -> Vec<f64> {
        costs_so_far(self)
    }
}

/// For each step, the dollars spent up to and including it: the sum of the steps' costs, or,
/// when no step has one, the trajectory's total counted at its last step.
fn costs_so_far(trajectory: &Trajectory) -> Vec<f64> {
    let steps = &trajectory.steps;
    if steps.iter().any(|s| s.usage.cost.is_some()) {
        steps
            .iter()
            .scan(0.0, |sum, s| {
                *sum += s.usage.cost.unwrap_or(0.0);
                Some(*sum)
            })
            .collect()
    } else {
        let mut out = vec![0.0; steps.len()];
        if let (Some(last), Some(total)) = (out.last_mut(), trajectory.usage.cost) {
            *last = total;
        }
        out
    }
}

/// For each step, how many steps in a row up to it had the same (non-empty) action, and the
/// same observation when `same_observation`.
fn streaks(trajectory: &Trajectory, same_observation: bool) -> Vec<usize> {
    let steps = &trajectory.steps;
    streaks_by(trajectory, same_observation, &|i| {
        steps[i - 1].observation == steps[i].observation
    })
}

/// [`streaks`], with `same_as_previous(i)` saying whether step `i`'s observation is step
/// `i - 1`'s: asked only where their actions are the same. The raw-byte tally answers it
/// from the texts' raw bytes, which it leaves undecoded
/// ([`crate::formats::Skipped::same_observation`]).
pub(crate) fn streaks_by(
    trajectory: &Trajectory,
    same_observation: bool,
    same_as_previous: &dyn Fn(usize) -> bool,
) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(trajectory.steps.len());
    for (i, step) in trajectory.steps.iter().enumerate() {
        let action = step.action.trim();
        let continues = i > 0 && {
            let previous = &trajectory.steps[i - 1];
            previous.action.trim() == action && (!same_observation || same_as_previous(i))
        };
        let streak = match (action.is_empty(), continues, out.last()) {
            (true, _, _) => 0,
            (false, true, Some(&n)) => n + 1,
            (false, _, _) => 1,
        };
        out.push(streak);
    }
    out
}

/// For each step: true when no step from it up to (not including) the next step matching
/// `before` matches `follower`, and such a `before` step exists. Without `before` the window
/// runs to the end. The step itself is in its window: one shell command can edit and test.
fn follow_windows(matches: &StepMatches, follower: RuleId, before: Option<RuleId>) -> Vec<bool> {
    let steps = matches.steps();
    let mut out = vec![false; steps];
    // Walking backwards: whether a `before` step lies ahead, and whether `follower` matched
    // between here and it.
    let mut closer_ahead = before.is_none();
    let mut follower_seen = false;
    for step in (1..=steps).rev() {
        if matches.get(step, follower) > 0 {
            follower_seen = true;
        }
        out[step - 1] = closer_ahead && !follower_seen;
        // A `before` step closes the windows of the steps before it, not its own.
        if let Some(before) = before
            && matches.get(step, before) > 0
        {
            closer_ahead = true;
            follower_seen = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::field::Field;
    use crate::metrics::matcher::Matcher;
    use crate::metrics::rule::{Pattern, ToolCondition};
    use crate::model::{Format, Step};

    fn trajectory(actions: &[&str]) -> Trajectory {
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        t.steps = actions
            .iter()
            .map(|a| Step {
                action: a.to_string(),
                tool: a.split_whitespace().next().map(String::from),
                observation: if a.starts_with("python") {
                    "Traceback (most recent call last):".into()
                } else {
                    String::new()
                },
                ..Step::default()
            })
            .collect();
        t.number_steps();
        t
    }

    fn tool_rule(name: &str, tools: &[&str]) -> Rule {
        let mut r = Rule::new(name, Pattern::literal("-"), Field::Any);
        r.pattern = None;
        r.tool = Some(ToolCondition::Named(
            tools.iter().map(|s| s.to_string()).collect(),
        ));
        r
    }

    fn steps_of(m: &Matcher, t: &Trajectory, name: &str) -> Vec<usize> {
        let id = m.id(name).unwrap();
        let found = m.scan(t);
        (1..=t.steps.len())
            .filter(|&s| found.get(s, id) > 0)
            .collect()
    }

    #[test]
    fn after_needs_the_previous_step() {
        let mut error_after_edit =
            Rule::new("err", Pattern::literal("Traceback"), Field::Observation);
        error_after_edit.after = Some("edit".into());
        let (m, errors) = Matcher::new(vec![tool_rule("edit", &["edit"]), error_after_edit]);
        assert!(errors.is_empty());
        let t = trajectory(&[
            "python a.py",
            "edit 1:2",
            "python a.py",
            "ls",
            "python a.py",
        ]);
        assert_eq!(steps_of(&m, &t, "err"), vec![3]);
    }

    #[test]
    fn repeat_counts_from_the_nth_identical_action() {
        let mut looped = Rule::new("loop", Pattern::literal("-"), Field::Any);
        looped.pattern = None;
        looped.repeat = Some(3);
        let (m, _) = Matcher::new(vec![looped]);
        let t = trajectory(&[
            "ls", "ls", "ls", "ls", "cat a", "ls", "ls", "ls", "", "", "",
        ]);
        assert_eq!(steps_of(&m, &t, "loop"), vec![3, 4, 8]);
    }

    #[test]
    fn not_followed_by_before() {
        let mut untested = tool_rule("untested", &["edit"]);
        untested.not_followed_by = Some("test".into());
        untested.before = Some("submit".into());
        let (m, errors) = Matcher::new(vec![
            tool_rule("test", &["pytest"]),
            tool_rule("submit", &["submit"]),
            untested,
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        // Edits 1 and 2 are tested at 3; edit 4 reaches the submit untested; edit 6 is never
        // submitted, so it is not counted.
        let t = trajectory(&["edit a", "edit b", "pytest", "edit c", "submit", "edit d"]);
        assert_eq!(steps_of(&m, &t, "untested"), vec![4]);

        let mut built_on = Rule::new("untested_via_matches", Pattern::literal("-"), Field::Any);
        built_on.pattern = None;
        built_on.matches = Some("edit".into());
        built_on.not_followed_by = Some("test".into());
        built_on.before = Some("submit".into());
        let (m, errors) = Matcher::new(vec![
            tool_rule("edit", &["edit"]),
            tool_rule("test", &["pytest"]),
            tool_rule("submit", &["submit"]),
            built_on,
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(steps_of(&m, &t, "untested_via_matches"), vec![4]);

        let mut to_end = tool_rule("untested_to_end", &["edit"]);
        to_end.not_followed_by = Some("test".into());
        let (m, _) = Matcher::new(vec![tool_rule("test", &["pytest"]), to_end]);
        assert_eq!(steps_of(&m, &t, "untested_to_end"), vec![4, 6]);
    }

    #[test]
    fn streaks_ignore_empty_actions() {
        assert_eq!(
            streaks(&trajectory(&["a", "a", "", "a", " a "]), false),
            vec![1, 2, 0, 1, 2]
        );
    }

    #[test]
    fn same_observation_tells_a_loop_from_paging() {
        let mut t = trajectory(&[
            "scroll_down",
            "scroll_down",
            "scroll_down",
            "edit 1:2",
            "edit 1:2",
        ]);
        for (i, step) in t.steps.iter_mut().enumerate() {
            step.observation = if i < 3 {
                format!("page {i}")
            } else {
                "rejected".into()
            };
        }
        assert_eq!(streaks(&t, false), vec![1, 2, 3, 1, 2]);
        assert_eq!(streaks(&t, true), vec![1, 1, 1, 1, 2]);
    }
}
