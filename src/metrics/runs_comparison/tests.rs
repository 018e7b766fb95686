//! Three small runs with hand-picked verdicts; every expected number is recomputed outside
//! trajscope by the command quoted next to it.

use super::*;
use crate::metrics::field::Field;
use crate::metrics::matcher::Matcher;
use crate::metrics::rule::{Pattern, Rule};
use crate::model::{Format, Step, Trajectory};
use std::sync::Arc;

/// A run: `(instance, verdict, has an error step)` per trajectory.
fn run(name: &str, rows: &[(&str, Option<bool>, bool)]) -> Tally {
    let (m, _) = Matcher::new(vec![Rule::new(
        "error",
        Pattern::literal("Error"),
        Field::Observation,
    )]);
    let mut tally = Tally::new(Arc::new(m));
    for (id, resolved, error) in rows {
        let mut t = Trajectory::new(format!("{name}/{id}.traj"), Format::SweAgent);
        t.resolved = *resolved;
        t.steps = vec![Step {
            observation: if *error { "Error".into() } else { "ok".into() },
            ..Step::default()
        }];
        t.number_steps();
        tally.add(&t);
    }
    tally
}

const A: [bool; 9] = [true, true, true, true, false, false, true, false, true];
const B: [bool; 9] = [true, true, false, false, false, true, true, false, false];
const C: [bool; 9] = [true, false, false, true, false, true, true, true, false];

fn three_runs() -> (Tally, Tally, Tally) {
    let ids: Vec<String> = (0..10).map(|i| format!("i{i}")).collect();
    let rows = |verdicts: &[bool; 9], last: Option<bool>, extra: Option<&'static str>| {
        let mut rows: Vec<(&str, Option<bool>, bool)> = (0..9)
            .map(|i| (ids[i].as_str(), Some(verdicts[i]), i % 2 == 0))
            .collect();
        rows.push((ids[9].as_str(), last, false));
        if let Some(extra) = extra {
            rows.push((extra, Some(true), true));
        }
        rows
    };
    (
        run("a", &rows(&A, Some(true), Some("only-in-a"))),
        run("b", &rows(&B, Some(true), Some("only-in-b"))),
        run("c", &rows(&C, None, None)),
    )
}

#[test]
fn three_runs_on_their_shared_instances() {
    let (a, b, c) = three_runs();
    let runs = [
        ("A".to_string(), &a),
        ("B".to_string(), &b),
        ("C".to_string(), &c),
    ];
    let cmp = RunsComparison::of(&runs);
    assert_eq!(cmp.runs, ["A", "B", "C"]);
    assert_eq!(cmp.trajectories, [11, 11, 10]);
    // i0..i9 are shared; the extra instance of A and of B are not.
    assert_eq!(cmp.instances.len(), 10);
    assert_eq!(cmp.instances[9].instance_id, "i9");
    assert_eq!(cmp.instances[9].resolved, [Some(true), Some(true), None]);
    // Solved by 0..3 runs, over the 9 instances with a verdict everywhere (i9 has none in C).
    assert_eq!(cmp.solve_counts, SolveCounts(vec![1, 3, 3, 2]));
    assert_eq!(cmp.pairs.len(), 3);
    let ab = &cmp.pairs[0];
    // A–B has 10 instances judged by both (i9 included): 4 both, 3 only A, 1 only B, 2 neither.
    assert_eq!(
        (ab.a, ab.b, ab.both, ab.only_a, ab.only_b, ab.neither),
        (0, 1, 4, 3, 1, 2)
    );
    // McNemar by hand: χ² = (3−1)²/4 = 1; exact p = 2·(C(4,0)+C(4,1))/2⁴ = 0.625, mid-p =
    // 0.625 − C(4,1)/2⁴ = 0.375:
    //   python3 -c "import math; n=4; s=sum(math.comb(n,i) for i in range(2))/2**n;
    //               print(2*s, 2*s-math.comb(n,1)/2**n)"
    assert_eq!(ab.mcnemar.statistic, Some(1.0));
    assert!((ab.mcnemar.exact_p - 0.625).abs() < 1e-12);
    assert!((ab.mcnemar.mid_p - 0.375).abs() < 1e-12);
    let ac = &cmp.pairs[1];
    assert_eq!((ac.both, ac.only_a, ac.only_b, ac.neither), (3, 3, 2, 1));
    assert!((ac.mcnemar.statistic.unwrap() - 0.2).abs() < 1e-12);
    // 3 vs 2 of 5: exact p = 2·(1+5+10)/32 = 1, mid-p = 1 − 10/32 = 0.6875.
    assert!((ac.mcnemar.exact_p - 1.0).abs() < 1e-12);
    assert!((ac.mcnemar.mid_p - 0.6875).abs() < 1e-12);
    let bc = &cmp.pairs[2];
    assert_eq!((bc.a, bc.b), (1, 2));
    assert_eq!((bc.both, bc.only_a, bc.only_b, bc.neither), (3, 1, 2, 3));
    // Cochran's Q over the 9 complete rows: C = (6, 4, 5), T = 15, Σ R² = 33, so
    // Q = 2·(3·77 − 225)/(3·15 − 33) = 1, and p = e^(−1/2) for df = 2:
    //   python3 -c "import math; print(math.exp(-0.5))"   # 0.6065306597126334
    let q = cmp.cochran_q.unwrap();
    assert_eq!((q.instances, q.df), (9, 2));
    assert!((q.statistic.unwrap() - 1.0).abs() < 1e-12);
    assert!((q.p_value.unwrap() - 0.606_530_659_712_633_4).abs() < 1e-10);
    // Error steps in even-numbered instances (0, 2, 4, 6, 8) and A's and B's extra one.
    let error = &cmp.rules[0];
    assert_eq!(error.name, "error");
    let trajs: Vec<u64> = error.runs.iter().map(|r| r.trajectories).collect();
    assert_eq!(trajs, [6, 6, 5]);
    assert!((error.runs[2].share - 0.5).abs() < 1e-12);
    assert!(
        cmp.warnings.iter().any(|w| w.contains("1 of 10 shared")),
        "{:?}",
        cmp.warnings
    );
}

#[test]
fn two_runs_agree_with_the_two_run_comparison() {
    let (a, b, _) = three_runs();
    let cmp = RunsComparison::of(&[("A".to_string(), &a), ("B".to_string(), &b)]);
    let two = crate::metrics::Comparison::of(&a, &b);
    let pair = &cmp.pairs[0];
    // Both runs hold every shared instance, so the pair is the two-run pairing.
    assert_eq!(pair.both, two.pairing.both_resolved);
    assert_eq!(pair.only_a, two.pairing.only_a.len());
    assert_eq!(pair.only_b, two.pairing.only_b.len());
    assert_eq!(pair.mcnemar.exact_p, two.test.exact_p);
    assert_eq!(cmp.cochran_q, None, "two runs have McNemar, not Cochran");
    let json = serde_json::to_value(&cmp).unwrap();
    let counts = json["solve_counts"].as_object().unwrap();
    let keys: Vec<&String> = counts.keys().collect();
    assert_eq!(keys, ["0", "1", "2"]);
}

#[test]
fn runs_without_a_common_instance_say_so() {
    let a = run("a", &[("x", Some(true), false)]);
    let b = run("b", &[("y", Some(true), false)]);
    let c = run("c", &[("x", Some(false), false)]);
    let cmp = RunsComparison::of(&[
        ("a".to_string(), &a),
        ("b".to_string(), &b),
        ("c".to_string(), &c),
    ]);
    assert!(cmp.instances.is_empty());
    assert_eq!(cmp.solve_counts, SolveCounts(vec![0; 4]));
    assert!(
        cmp.pairs
            .iter()
            .all(|p| p.both + p.only_a + p.only_b + p.neither == 0)
    );
    assert_eq!(cmp.cochran_q.unwrap().statistic, None);
    assert!(cmp.warnings[0].contains("share no instance"));
}
