//! Two runs side by side: per-rule deltas, each run's resolved rate with its interval, the
//! instances that flipped, and McNemar's test on the instances both runs attempted, with a
//! verdict in plain words. Runs of 50 instances differ by chance more than people think.

use super::overview::Overview;
use super::stats::{McNemar, mcnemar};
use super::tally::{Counts, Tally};
use serde::Serialize;
use std::collections::HashMap;

/// Below this mid-p value the difference in resolved rate is called more than noise.
pub const SIGNIFICANCE: f64 = 0.05;

/// Paired runs smaller than this get a warning about how wide their intervals are.
pub const SMALL_RUN: usize = 100;

/// One rule (or label) in both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleDelta {
    pub name: String,
    pub a: Counts,
    pub b: Counts,
    /// Trajectories with a match per trajectory of the run: comparable across run sizes.
    pub a_share: f64,
    pub b_share: f64,
}

/// The instances both runs attempted and judged, and how their verdicts compare.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pairing {
    /// Instances with a verdict in both runs (`instances` in `stats --json`).
    #[serde(rename = "instances")]
    pub paired: usize,
    pub both_resolved: usize,
    pub neither_resolved: usize,
    /// Resolved in A, not in B.
    pub only_a: Vec<String>,
    /// Resolved in B, not in A.
    pub only_b: Vec<String>,
    /// Instances of A with no verdict, or not in B with one; left out of the test.
    pub unpaired_a: usize,
    pub unpaired_b: usize,
}

/// What the paired test says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// No instance has a verdict in both runs.
    NothingToCompare,
    WithinNoise,
    ABetter,
    BBetter,
}

/// Two runs compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub a: Overview,
    pub b: Overview,
    pub rules: Vec<RuleDelta>,
    pub pairing: Pairing,
    pub test: McNemar,
    pub verdict: Verdict,
    /// The verdict in a sentence.
    pub message: String,
    pub warnings: Vec<String>,
}

impl Comparison {
    pub fn of(a: &Tally, b: &Tally) -> Comparison {
        let overview_a = Overview::of(a.trajectories());
        let overview_b = Overview::of(b.trajectories());
        let rules = rule_deltas(a, b);
        let mut warnings = Vec::new();
        let (verdicts_a, duplicates_a) = verdicts(a);
        let (verdicts_b, duplicates_b) = verdicts(b);
        for (name, n) in [("A", duplicates_a), ("B", duplicates_b)] {
            if n > 0 {
                warnings.push(format!(
                    "run {name} holds {n} instance(s) more than once; the first trajectory of each is used"
                ));
            }
        }
        let pairing = pair(&verdicts_a, &verdicts_b);
        let test = mcnemar(pairing.only_a.len() as u64, pairing.only_b.len() as u64);
        let verdict = if pairing.paired == 0 {
            Verdict::NothingToCompare
        } else if test.mid_p >= SIGNIFICANCE {
            Verdict::WithinNoise
        } else if pairing.only_a.len() > pairing.only_b.len() {
            Verdict::ABetter
        } else {
            Verdict::BBetter
        };
        let message = message(verdict, &pairing, &test);
        warnings.extend(size_warnings(&pairing, &overview_a, &overview_b));
        Comparison {
            a: overview_a,
            b: overview_b,
            rules,
            pairing,
            test,
            verdict,
            message,
            warnings,
        }
    }
}

fn rule_deltas(a: &Tally, b: &Tally) -> Vec<RuleDelta> {
    let rows_a = a.rows();
    let rows_b = b.rows();
    let mut names: Vec<&str> = rows_a.iter().map(|r| r.name.as_str()).collect();
    for row in &rows_b {
        if !names.contains(&row.name.as_str()) {
            names.push(&row.name);
        }
    }
    let share = |counts: Counts, size: usize| {
        if size == 0 {
            0.0
        } else {
            counts.trajectories as f64 / size as f64
        }
    };
    names
        .into_iter()
        .map(|name| {
            let find = |rows: &[super::tally::Row]| {
                rows.iter()
                    .find(|r| r.name == name)
                    .map(|r| r.counts.all)
                    .unwrap_or_default()
            };
            let (ca, cb) = (find(&rows_a), find(&rows_b));
            RuleDelta {
                name: name.to_string(),
                a: ca,
                b: cb,
                a_share: share(ca, a.len()),
                b_share: share(cb, b.len()),
            }
        })
        .collect()
}

/// Instance id → verdict (first trajectory of each instance), and how many repeats.
pub(super) fn verdicts(tally: &Tally) -> (HashMap<&str, Option<bool>>, usize) {
    let mut out: HashMap<&str, Option<bool>> = HashMap::new();
    let mut duplicates = 0;
    for t in tally.trajectories() {
        if out.contains_key(t.instance_id.as_str()) {
            duplicates += 1;
        } else {
            out.insert(&t.instance_id, t.resolved);
        }
    }
    (out, duplicates)
}

fn pair(a: &HashMap<&str, Option<bool>>, b: &HashMap<&str, Option<bool>>) -> Pairing {
    let mut pairing = Pairing {
        paired: 0,
        both_resolved: 0,
        neither_resolved: 0,
        only_a: Vec::new(),
        only_b: Vec::new(),
        unpaired_a: 0,
        unpaired_b: 0,
    };
    for (id, verdict_a) in a {
        match (verdict_a, b.get(id).copied().flatten()) {
            (Some(ra), Some(rb)) => {
                pairing.paired += 1;
                match (ra, rb) {
                    (true, true) => pairing.both_resolved += 1,
                    (false, false) => pairing.neither_resolved += 1,
                    (true, false) => pairing.only_a.push(id.to_string()),
                    (false, true) => pairing.only_b.push(id.to_string()),
                }
            }
            _ => pairing.unpaired_a += 1,
        }
    }
    pairing.unpaired_b = b.len() - pairing.paired;
    pairing.only_a.sort();
    pairing.only_b.sort();
    pairing
}

fn message(verdict: Verdict, pairing: &Pairing, test: &McNemar) -> String {
    let (na, nb) = (pairing.only_a.len(), pairing.only_b.len());
    let flips = format!(
        "{na} instance(s) resolved only by A, {nb} only by B, of {} judged in both",
        pairing.paired
    );
    match verdict {
        Verdict::NothingToCompare => {
            "no instance has a verdict in both runs: there is nothing to compare".into()
        }
        Verdict::WithinNoise => format!(
            "the difference is within noise: {flips} (McNemar mid-p = {:.3}); a split this uneven happens by chance",
            test.mid_p
        ),
        Verdict::ABetter | Verdict::BBetter => format!(
            "run {} resolves more than noise explains: {flips} (McNemar mid-p = {:.3}, exact p = {:.3})",
            if verdict == Verdict::ABetter {
                "A"
            } else {
                "B"
            },
            test.mid_p,
            test.exact_p
        ),
    }
}

fn size_warnings(pairing: &Pairing, a: &Overview, b: &Overview) -> Vec<String> {
    let mut warnings = Vec::new();
    if pairing.paired > 0 && pairing.paired < SMALL_RUN {
        let widest = [a, b]
            .iter()
            .filter_map(|o| o.resolved_rate)
            .map(|r| (r.high - r.low) / 2.0)
            .fold(0.0_f64, f64::max);
        warnings.push(format!(
            "small runs: with {} paired instances each resolved rate is only known to about ±{:.0} points (95%), so differences of several points are expected by chance",
            pairing.paired,
            widest * 100.0
        ));
    }
    let discordant = pairing.only_a.len() + pairing.only_b.len();
    if pairing.paired > 0 && discordant < 10 {
        warnings.push(format!(
            "only {discordant} instance(s) flipped between the runs: the test can only detect a lopsided split"
        ));
    }
    if pairing.unpaired_a > 0 || pairing.unpaired_b > 0 {
        warnings.push(format!(
            "{} instance(s) of A and {} of B have no verdict in both runs and are left out of the paired test",
            pairing.unpaired_a, pairing.unpaired_b
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::field::Field;
    use crate::metrics::matcher::Matcher;
    use crate::metrics::rule::{Pattern, Rule};
    use crate::model::{Format, Step, Trajectory};
    use std::sync::Arc;

    /// A run of `n` instances `i0..`: resolved where `resolved(i)`; instance `i` has an error
    /// step when `error(i)`.
    fn run(
        name: &str,
        n: usize,
        resolved: impl Fn(usize) -> Option<bool>,
        error: impl Fn(usize) -> bool,
    ) -> Tally {
        let (m, _) = Matcher::new(vec![Rule::new(
            "error",
            Pattern::literal("Error"),
            Field::Observation,
        )]);
        let mut tally = Tally::new(Arc::new(m));
        for i in 0..n {
            let mut t = Trajectory::new(format!("{name}/i{i}.traj"), Format::SweAgent);
            t.resolved = resolved(i);
            t.steps = vec![Step {
                observation: if error(i) {
                    "Error".into()
                } else {
                    "ok".into()
                },
                ..Step::default()
            }];
            t.number_steps();
            tally.add(&t);
        }
        tally
    }

    #[test]
    fn an_uneven_split_of_ten_flips_is_within_noise() {
        // 40 instances; both resolve 0..10; A alone resolves 10..12, B alone 12..20.
        let a = run("a", 40, |i| Some(i < 12), |i| i < 20);
        let b = run(
            "b",
            40,
            |i| Some(i < 10 || (12..20).contains(&i)),
            |i| i < 10,
        );
        let c = Comparison::of(&a, &b);
        assert_eq!(c.pairing.paired, 40);
        assert_eq!(c.pairing.both_resolved, 10);
        assert_eq!(c.pairing.neither_resolved, 20);
        assert_eq!(c.pairing.only_a, vec!["i10", "i11"]);
        assert_eq!(c.pairing.only_b.len(), 8);
        // 2 vs 8: mid-p = 67/1024 = 0.065, exact p = 0.109: not significant.
        assert!((c.test.mid_p - 67.0 / 1024.0).abs() < 1e-9);
        assert_eq!(c.verdict, Verdict::WithinNoise);
        assert!(
            c.message.starts_with("the difference is within noise"),
            "{}",
            c.message
        );
        assert!(
            c.warnings.iter().any(|w| w.starts_with("small runs")),
            "{:?}",
            c.warnings
        );
        assert!(
            !c.warnings.iter().any(|w| w.contains("flipped")),
            "10 flips are enough to test"
        );
        let error = &c.rules[0];
        assert_eq!((error.a.trajectories, error.b.trajectories), (20, 10));
        assert_eq!((error.a_share, error.b_share), (0.5, 0.25));
    }

    #[test]
    fn a_lopsided_split_is_more_than_noise() {
        // B alone resolves 12 instances, A alone none: mid-p = 2 · 0.5^12 − 0.5^12.
        let a = run("a", 30, |i| Some(i < 5), |_| false);
        let b = run("b", 30, |i| Some(i < 17), |_| false);
        let c = Comparison::of(&a, &b);
        assert_eq!((c.pairing.only_a.len(), c.pairing.only_b.len()), (0, 12));
        assert!((c.test.mid_p - 0.5_f64.powi(12)).abs() < 1e-12);
        assert!((c.test.exact_p - 2.0 * 0.5_f64.powi(12)).abs() < 1e-12);
        assert_eq!(c.verdict, Verdict::BBetter);
        assert!(
            c.message
                .starts_with("run B resolves more than noise explains"),
            "{}",
            c.message
        );
        let swapped = Comparison::of(&b, &a);
        assert_eq!(swapped.verdict, Verdict::ABetter);
    }

    #[test]
    fn unpaired_and_unjudged_instances_stay_out_of_the_test() {
        // A has i0..i9, B i5..i14 (named by index, so i5..i9 pair up); i9 has no verdict in B.
        let a = run("a", 10, |_| Some(true), |_| false);
        let mut b = Tally::new(Arc::clone(a.matcher()));
        for i in 5..15 {
            let mut t = Trajectory::new(format!("b/i{i}.traj"), Format::SweAgent);
            t.resolved = if i == 9 { None } else { Some(false) };
            b.add(&t);
        }
        let c = Comparison::of(&a, &b);
        assert_eq!(c.pairing.paired, 4);
        assert_eq!(c.pairing.only_a.len(), 4);
        assert_eq!((c.pairing.unpaired_a, c.pairing.unpaired_b), (6, 6));
        assert!(
            c.warnings
                .iter()
                .any(|w| w.contains("6 instance(s) of A and 6 of B"))
        );
        assert!(
            c.warnings
                .iter()
                .any(|w| w.contains("only 4 instance(s) flipped"))
        );
        let nothing = Comparison::of(
            &run("x", 3, |_| None, |_| false),
            &run("y", 3, |_| Some(true), |_| false),
        );
        assert_eq!(nothing.verdict, Verdict::NothingToCompare);
    }
}
