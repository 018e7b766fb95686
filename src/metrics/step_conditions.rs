//! The step conditions of a compiled rule set: rules' `when` conditions and the classifiers
//! whose modes are rules. Applied to each step's row of matches after the pattern scan, so
//! a rule set without them (the defaults) pays one empty check per step and nothing more.

use super::classifier::Classifier;
use super::condition::{Condition, StepTexts};
use super::rule::{Rule, RuleId};
use crate::model::Step;
use std::sync::Arc;

/// A classifier and the rule of each of its modes.
type ClassifierModes = (Arc<Classifier>, Vec<(String, RuleId)>);

#[derive(Debug, Clone, Default)]
pub(crate) struct StepConditions {
    /// Rules with a `when`: their matches at a step where it does not hold are cleared.
    guarded: Vec<(RuleId, Condition)>,
    /// Each classifier once, with the rule of each of its modes (modes without a rule in
    /// the set, switched off say, count nowhere).
    classifiers: Vec<ClassifierModes>,
}

impl StepConditions {
    pub(crate) fn new(rules: &[Rule]) -> StepConditions {
        let mut plan = StepConditions::default();
        for (id, rule) in rules.iter().enumerate() {
            if let Some(when) = &rule.when {
                plan.guarded.push((id, when.clone()));
            }
            let Some(shared) = &rule.classifier else {
                continue;
            };
            let mode = (rule.name.clone(), id);
            match plan
                .classifiers
                .iter_mut()
                .find(|(c, _)| Arc::ptr_eq(c, &shared.0))
            {
                Some((_, modes)) => modes.push(mode),
                None => plan.classifiers.push((Arc::clone(&shared.0), vec![mode])),
            }
        }
        plan
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.guarded.is_empty() && self.classifiers.is_empty()
    }

    /// Clears the matches of guarded rules whose condition fails at `step` and counts the
    /// step once under the mode each classifier gives it.
    pub(crate) fn apply(&self, step: &Step, row: &mut [u32]) {
        let mut texts = StepTexts::new(step);
        for (id, when) in &self.guarded {
            if row[*id] > 0 && !when.holds(&mut texts) {
                row[*id] = 0;
            }
        }
        for (classifier, modes) in &self.classifiers {
            let Some(mode) = classifier.classify(&mut texts) else {
                continue;
            };
            if let Some((_, id)) = modes.iter().find(|(m, _)| m == mode) {
                row[*id] = 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::metrics::{Matcher, RuleSet};
    use crate::model::{Format, Step, Trajectory};

    fn trajectory(steps: &[(&str, &str)]) -> Trajectory {
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        t.steps = steps
            .iter()
            .map(|(action, observation)| Step {
                action: (*action).into(),
                observation: (*observation).into(),
                ..Step::default()
            })
            .collect();
        t.number_steps();
        t
    }

    const RULES: &str = r#"
[[rule]]
name = "error_in_test_run"
field = "observation"
pattern = "Error"
when = { field = "action", prefix = "pytest" }

[[rule]]
name = "twice_not_found"
when = { field = "observation", contains = "not found", at_least = 2 }

[[classifier]]
name = "kind"
[[classifier.case]]
when = { field = "observation", contains = "not found" }
mode = "missing"
[[classifier.case]]
when = { field = "observation", contains = "Error" }
mode = "error"

[[rule]]
name = "missing"
classifier = "kind"
description = "x"

[[rule]]
name = "error"
classifier = "kind"
description = "y"
"#;

    #[test]
    fn when_filters_and_counts_and_classifiers_partition() {
        let mut set = RuleSet::default();
        set.add_text(RULES, "t.toml");
        assert!(set.errors.is_empty(), "{:?}", set.errors);
        let (m, errors) = Matcher::new(set.rules.clone());
        assert!(errors.is_empty(), "{errors:?}");
        let t = trajectory(&[
            ("pytest", "Error Error"),
            ("python x.py", "Error"),
            ("ls", "a not found\nb not found Error"),
            ("ls", "fine"),
        ]);
        let found = m.scan(&t);
        let id = |name: &str| m.id(name).unwrap();
        let column = |name: &str| (1..=4).map(|s| found.get(s, id(name))).collect::<Vec<_>>();
        assert_eq!(
            column("error_in_test_run"),
            vec![2, 0, 0, 0],
            "occurrences still count"
        );
        assert_eq!(column("twice_not_found"), vec![0, 0, 1, 0]);
        assert_eq!(column("missing"), vec![0, 0, 1, 0]);
        assert_eq!(
            column("error"),
            vec![1, 1, 0, 0],
            "step 3 went to the earlier case only"
        );

        // Switching one mode off leaves the other's counts as they were.
        set.add_text(
            "[[rule]]\nname = \"missing\"\nenabled = false\n",
            "off.toml",
        );
        let (m, _) = Matcher::new(set.rules);
        let found = m.scan(&t);
        let error = m.id("error").unwrap();
        assert_eq!(
            (1..=4).map(|s| found.get(s, error)).collect::<Vec<_>>(),
            vec![1, 1, 0, 0]
        );
    }

    #[test]
    fn classifier_mistakes_are_reported_with_the_file() {
        let mut set = RuleSet::default();
        set.add_text(
            "[[classifier]]\nname = \"k\"\n[[classifier.case]]\nmode = \"a\"\n[[classifier.case]]\nmode = \"b\"\n\n[[rule]]\nname = \"a\"\nclassifier = \"k\"\n\n[[rule]]\nname = \"c\"\nclassifier = \"k\"\n\n[[rule]]\nname = \"d\"\nclassifier = \"nope\"\n\n[[rule]]\nname = \"b\"\nclassifier = \"k\"\npattern = \"x\"\n",
            "k.toml",
        );
        let shown: Vec<String> = set.errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(shown.len(), 4, "{shown:#?}");
        assert!(
            shown[0].starts_with("k.toml:14: rule `c`: classifier `k` never gives the mode `c`"),
            "{}",
            shown[0]
        );
        assert!(
            shown[1].contains("no `[[classifier]]` named `nope`"),
            "{}",
            shown[1]
        );
        assert!(
            shown[2].contains("`pattern` does not apply to a mode"),
            "{}",
            shown[2]
        );
        assert!(
            shown[3].starts_with("k.toml:1: rule `k`: classifier: mode `b` has no `[[rule]]`"),
            "{}",
            shown[3]
        );
    }
}
