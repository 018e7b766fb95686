//! A trajectory's phases, step by step, read from the rules that already classify steps:
//! `edit`, `test_run` (verify) and `submit` (the defaults, or the user's rules of those names,
//! which replace them); any other step that executed something (the `tool_calls` rule)
//! explores. And the flag on a resolved run whose last edit no test run followed: a pass
//! that nothing verified.

use super::matcher::Matcher;
use super::tally::TrajectoryTally;
use serde::Serialize;

/// What a step was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Explore,
    Edit,
    Verify,
    Submit,
}

impl Phase {
    /// Its cell in a strip: `·` explore, `e` edit, `v` verify, `s` submit.
    pub fn symbol(self) -> char {
        match self {
            Phase::Explore => '·',
            Phase::Edit => 'e',
            Phase::Verify => 'v',
            Phase::Submit => 's',
        }
    }
}

/// The rule behind each phase but explore, by name.
pub const PHASE_RULES: [(Phase, &str); 3] = [
    (Phase::Edit, "edit"),
    (Phase::Verify, "test_run"),
    (Phase::Submit, "submit"),
];

/// The rule whose steps executed something: the rest of them explore.
const ACTED_RULE: &str = "tool_calls";

/// The phases of one trajectory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Phases {
    /// Per step (step k is `steps[k - 1]`): the step's phase, the highest of submit, verify,
    /// edit, explore that it matched; `None` for a step that executed nothing.
    pub steps: Vec<Option<Phase>>,
    /// The last step that edited, 1-based.
    pub last_edit: Option<usize>,
    /// A test ran at or after the last edit (a step that edits and runs tests counts).
    pub verified_after_last_edit: bool,
}

impl Phases {
    pub fn of(matcher: &Matcher, t: &TrajectoryTally) -> Phases {
        let ids: Vec<(Phase, Option<usize>)> = PHASE_RULES
            .iter()
            .map(|(phase, name)| (*phase, matcher.id(name)))
            .collect();
        let acted = matcher.id(ACTED_RULE);
        let mut steps: Vec<Option<Phase>> = vec![None; t.steps];
        let mut edits = Vec::new();
        let mut verifies = Vec::new();
        for hit in &t.hits {
            let Some(index) = (hit.step as usize).checked_sub(1).filter(|&i| i < t.steps) else {
                continue;
            };
            let phase = if Some(hit.rule) == acted {
                Some(Phase::Explore)
            } else {
                ids.iter()
                    .find(|(_, id)| *id == Some(hit.rule))
                    .map(|(phase, _)| *phase)
            };
            let Some(phase) = phase else {
                continue;
            };
            match phase {
                Phase::Edit => edits.push(index + 1),
                Phase::Verify => verifies.push(index + 1),
                Phase::Explore | Phase::Submit => {}
            }
            steps[index] = steps[index].max(Some(phase));
        }
        let last_edit = edits.into_iter().max();
        let verified_after_last_edit =
            last_edit.is_some_and(|edit| verifies.iter().any(|&v| v >= edit));
        Phases {
            steps,
            last_edit,
            verified_after_last_edit,
        }
    }

    /// Resolved, with an edit that no test run followed.
    pub fn unverified_pass(&self, resolved: Option<bool>) -> bool {
        resolved == Some(true) && self.last_edit.is_some() && !self.verified_after_last_edit
    }

    /// The strip in at most `width` cells: one per step, or for longer trajectories each cell
    /// the highest phase of its share of the steps; a space where nothing was executed.
    pub fn strip(&self, width: usize) -> String {
        let n = self.steps.len();
        if width == 0 || n == 0 {
            return String::new();
        }
        let cells = n.min(width);
        (0..cells)
            .map(|c| {
                let (from, to) = (c * n / cells, ((c + 1) * n / cells).max(c * n / cells + 1));
                self.steps[from..to.min(n)]
                    .iter()
                    .copied()
                    .max()
                    .flatten()
                    .map_or(' ', Phase::symbol)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::RuleSet;
    use crate::model::{Format, Step, Trajectory};

    fn tally(actions: &[&str]) -> (Matcher, TrajectoryTally) {
        let (matcher, _) = Matcher::new(RuleSet::defaults().rules);
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        t.steps = actions
            .iter()
            .map(|a| Step {
                action: (*a).into(),
                // Loaders name a text action's tool by its command, as here.
                tool: a.split_whitespace().next().map(String::from),
                observation: "ok".into(),
                ..Step::default()
            })
            .collect();
        t.number_steps();
        let tally = TrajectoryTally::of(&matcher, &t);
        (matcher, tally)
    }

    #[test]
    fn the_default_rules_give_each_step_its_phase() {
        let (m, t) = tally(&[
            "find_file evaluator.py",
            "open tinycalc/evaluator.py",
            "edit 35:35\n            value = value / right\nend_of_edit",
            "python -m pytest tests",
            "",
            "submit",
        ]);
        let p = Phases::of(&m, &t);
        assert_eq!(
            p.steps,
            [
                Some(Phase::Explore),
                Some(Phase::Explore),
                Some(Phase::Edit),
                Some(Phase::Verify),
                None,
                Some(Phase::Submit)
            ]
        );
        assert_eq!(p.strip(40), "··ev s");
        assert_eq!((p.last_edit, p.verified_after_last_edit), (Some(3), true));
        assert!(!p.unverified_pass(Some(true)));
        // Squeezed into 3 cells, each shows the highest phase of its two steps.
        assert_eq!(p.strip(3), "·vs");
    }

    #[test]
    fn an_edit_after_the_last_test_run_is_an_unverified_pass() {
        let (m, t) = tally(&[
            "python reproduce.py",
            "sed -i 's/a/b/' x.py",
            "python reproduce.py",
            "sed -i 's/b/c/' x.py",
            "submit",
        ]);
        let p = Phases::of(&m, &t);
        assert_eq!(p.strip(10), "veves");
        assert_eq!(p.last_edit, Some(4));
        assert!(!p.verified_after_last_edit);
        assert!(p.unverified_pass(Some(true)));
        assert!(
            !p.unverified_pass(Some(false)),
            "only resolved runs are flagged"
        );
        assert!(!p.unverified_pass(None));
        // No edit at all: nothing to verify.
        let (m, t) = tally(&["ls", "submit"]);
        assert!(!Phases::of(&m, &t).unverified_pass(Some(true)));
    }
}
