//! Alerts: rules marked `alert = true`, reported as they fire while a trajectory is being
//! written. An alert fires at the first step of each streak of steps matching its rule (the
//! fifth identical action, not the sixth and seventh too); a `cost_above` alert fires once
//! per trajectory. [`AlertLog`] remembers what was reported, so that re-reading a growing
//! file reports each firing once. Pure data: the callers print or draw.

use super::matcher::Matcher;
use super::rule::RuleId;
use crate::model::Trajectory;
use std::collections::HashSet;

/// One firing of an alert rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Firing {
    pub rule: String,
    /// What the rule means, from its `description` (may be empty).
    pub description: String,
    /// 1-based step where it fired.
    pub step: usize,
}

/// Every firing of every alert rule of `matcher` in `trajectory`, in step order.
pub fn firings(matcher: &Matcher, trajectory: &Trajectory) -> Vec<Firing> {
    let alerts: Vec<RuleId> = matcher
        .rules()
        .iter()
        .enumerate()
        .filter(|(_, r)| r.alert)
        .map(|(id, _)| id)
        .collect();
    if alerts.is_empty() || trajectory.steps.is_empty() {
        return Vec::new();
    }
    let matches = matcher.scan(trajectory);
    let mut out = Vec::new();
    for step in 1..=matches.steps() {
        for &id in &alerts {
            let Some(rule) = matcher.rule(id) else {
                continue;
            };
            let here = matches.get(step, id) > 0;
            let before = step > 1 && matches.get(step - 1, id) > 0;
            if here && !before {
                out.push(Firing {
                    rule: rule.name.clone(),
                    description: rule.description.clone(),
                    step,
                });
            }
        }
    }
    out
}

/// Whether `matcher` has any alert rule at all (no need to scan otherwise).
pub fn has_alerts(matcher: &Matcher) -> bool {
    matcher.rules().iter().any(|r| r.alert)
}

/// What has been reported for one followed trajectory.
#[derive(Debug, Clone, Default)]
pub struct AlertLog {
    seen: HashSet<(String, usize)>,
    /// Rules that fire once per trajectory (`cost_above`): where a step's cost is unknown
    /// the total moves to the newest step, and would fire again at every step.
    once: HashSet<String>,
}

impl AlertLog {
    /// The firings in `trajectory` not reported before; remembers them.
    pub fn new_firings(&mut self, matcher: &Matcher, trajectory: &Trajectory) -> Vec<Firing> {
        firings(matcher, trajectory)
            .into_iter()
            .filter(|f| {
                let once = matcher
                    .id(&f.rule)
                    .and_then(|id| matcher.rule(id))
                    .is_some_and(|r| r.cost_above.is_some());
                if once {
                    self.once.insert(f.rule.clone())
                } else {
                    self.seen.insert((f.rule.clone(), f.step))
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::rule_file::{Entry, parse};
    use crate::model::{Format, Step, Usage};

    fn matcher(toml: &str) -> Matcher {
        let (entries, errors) = parse(toml, "test.toml");
        assert!(errors.is_empty(), "{errors:?}");
        let rules = entries
            .into_iter()
            .filter_map(|e| match e {
                Entry::Rule(r) => Some(*r),
                Entry::Disable { .. } => None,
            })
            .collect();
        let (m, errors) = Matcher::new(rules);
        assert!(errors.is_empty(), "{errors:?}");
        m
    }

    fn trajectory(steps: &[(&str, &str, Option<f64>)]) -> Trajectory {
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        t.steps = steps
            .iter()
            .map(|(action, observation, cost)| Step {
                action: action.to_string(),
                observation: observation.to_string(),
                usage: Usage {
                    cost: *cost,
                    ..Usage::default()
                },
                ..Step::default()
            })
            .collect();
        t.number_steps();
        t
    }

    const RULES: &str = r#"
[[rule]]
name = "syntax"
field = "observation"
pattern = "SyntaxError"

[[rule]]
name = "three_syntax"
matches = "syntax"
in_a_row = 3
alert = true

[[rule]]
name = "loop"
repeat = 3
alert = true

[[rule]]
name = "costly"
cost_above = 1.0
alert = true
"#;

    #[test]
    fn fires_once_per_streak() {
        let m = matcher(RULES);
        let t = trajectory(&[
            ("python a.py", "SyntaxError: x", None),
            ("python b.py", "SyntaxError: x", None),
            ("python c.py", "SyntaxError: x", None),
            ("python d.py", "SyntaxError: x", None),
            ("ls", "ok", None),
            ("python e.py", "SyntaxError: x", None),
            ("python f.py", "SyntaxError: x", None),
            ("python g.py", "SyntaxError: x", None),
        ]);
        let fired: Vec<(String, usize)> = firings(&m, &t)
            .into_iter()
            .map(|f| (f.rule, f.step))
            .collect();
        assert_eq!(
            fired,
            vec![("three_syntax".into(), 3), ("three_syntax".into(), 8)]
        );
        let counted = m.scan(&t);
        let id = m.id("three_syntax").unwrap();
        assert_eq!(
            (1..=8)
                .filter(|&s| counted.get(s, id) > 0)
                .collect::<Vec<_>>(),
            vec![3, 4, 8],
            "the rule itself counts every step that ends a streak of three"
        );
    }

    #[test]
    fn cost_crossing_fires_once_and_the_log_reports_each_firing_once() {
        let m = matcher(RULES);
        let mut log = AlertLog::default();
        let mut t = trajectory(&[("a", "", Some(0.4)), ("b", "", Some(0.4))]);
        assert!(log.new_firings(&m, &t).is_empty());
        t = trajectory(&[
            ("a", "", Some(0.4)),
            ("b", "", Some(0.4)),
            ("c", "", Some(0.4)),
        ]);
        let fired = log.new_firings(&m, &t);
        assert_eq!(fired.len(), 1);
        assert_eq!((fired[0].rule.as_str(), fired[0].step), ("costly", 3));
        t.steps.push(t.steps[2].clone());
        t.steps.push(t.steps[2].clone());
        t.number_steps();
        let fired = log.new_firings(&m, &t);
        assert_eq!(
            fired
                .iter()
                .map(|f| (f.rule.as_str(), f.step))
                .collect::<Vec<_>>(),
            vec![("loop", 5)],
            "cost reported once; the loop of c, c, c fires at its third step"
        );
        assert!(log.new_firings(&m, &t).is_empty());
    }

    #[test]
    fn trajectory_level_cost_counts_at_the_last_step() {
        let m = matcher(RULES);
        let mut t = trajectory(&[("a", "", None), ("b", "", None)]);
        t.usage.cost = Some(2.5);
        let fired = firings(&m, &t);
        assert_eq!(
            fired
                .iter()
                .map(|f| (f.rule.as_str(), f.step))
                .collect::<Vec<_>>(),
            vec![("costly", 2)]
        );
    }
}
