//! The gold proximity of small SWE-agent trajectories whose trees are known line by line.

use super::*;
use crate::model::{Format, Step};

const GOLD: &str = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -3,2 +3,2 @@\n def f():\n-    return 1\n+    return 2\n";

fn step(action: &str, observation: &str) -> Step {
    Step {
        action: action.into(),
        observation: observation.into(),
        ..Step::default()
    }
}

fn open_step() -> Step {
    step(
        "open src/a.py",
        "[File: /repo__x/src/a.py (4 lines total)]\n1:import os\n2:\n3:def f():\n4:    return 1",
    )
}

fn edit(to: &str) -> Step {
    step(
        &format!("edit 4:4\n    return {to}\nend_of_edit"),
        &format!(
            "[File: /repo__x/src/a.py (4 lines total)]\n1:import os\n2:\n3:def f():\n4:    return {to}\nFile updated."
        ),
    )
}

fn traj(steps: Vec<Step>, submission: Option<&str>) -> Trajectory {
    let mut t = Trajectory::new("t.traj", Format::SweAgent);
    t.steps = steps;
    t.submission = submission.map(String::from);
    t.number_steps();
    t
}

fn proximity(t: &Trajectory) -> GoldProximity {
    gold_proximity(t, &Reconstruction::of(t), GOLD)
}

#[test]
fn a_run_that_reaches_the_gold_change_and_keeps_it() {
    let kept = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -3,2 +3,2 @@\n def f():\n-    return 1\n+    return 2\n";
    let t = traj(vec![open_step(), edit("2"), step("submit", "")], Some(kept));
    let p = proximity(&t);
    assert_eq!(p.gold_files, ["src/a.py"]);
    assert_eq!(p.gold_hunks, 1);
    let cells: Vec<(usize, usize)> = p
        .steps
        .iter()
        .map(|s| (s.files_touched, s.hunks_present))
        .collect();
    // Viewed but not edited at step 1; the gold line is in the tree from step 2.
    assert_eq!(cells, [(0, 0), (1, 1), (1, 1)]);
    assert_eq!(p.reached_at, Some(2));
    assert_eq!(p.final_source, FinalSource::Patch);
    assert_eq!(p.final_hunks_present, 1);
    assert!(!p.lost);
    assert_eq!(p.strip(), "·●●");
}

#[test]
fn a_run_that_reaches_it_and_overwrites_it_has_lost_it() {
    let t = traj(vec![open_step(), edit("2"), edit("3")], None);
    let p = proximity(&t);
    assert_eq!(p.reached_at, Some(2));
    assert_eq!(p.steps[2].hunks_present, 0);
    assert_eq!(p.steps[2].files_touched, 1);
    assert_eq!(p.final_source, FinalSource::Tree);
    assert!(p.lost);
    assert_eq!(p.strip(), "·●○");
}

#[test]
fn the_submitted_patch_decides_the_final_state() {
    // The tree holds the fix, but the submitted patch does something else.
    let other = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -3,2 +3,2 @@\n def f():\n-    return 1\n+    return 9\n";
    let t = traj(vec![open_step(), edit("2")], Some(other));
    let p = proximity(&t);
    assert_eq!(p.reached_at, Some(2));
    assert_eq!(p.final_hunks_present, 0);
    assert!(p.lost);
    // A run that never had it has not lost it.
    let t = traj(vec![open_step(), edit("3")], Some(other));
    let p = proximity(&t);
    assert_eq!(p.reached_at, None);
    assert!(!p.lost);
}

#[test]
fn code_the_fix_only_moves_is_not_the_fix_until_it_moves() {
    // The fix moves `x = 1` from f to g; the file already has the line, under f.
    let gold = "diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,4 +1,4 @@\n def f():\n-    x = 1\n def g():\n+    x = 1\n     return\n";
    let view = step(
        "open m.py",
        "[File: /r__r/m.py (4 lines total)]\n1:def f():\n2:    x = 1\n3:def g():\n4:    return",
    );
    let t = traj(vec![view], None);
    let p = gold_proximity(&t, &Reconstruction::of(&t), gold);
    assert_eq!(p.gold_hunks, 1);
    assert_eq!(p.steps[0].hunks_present, 0, "x = 1 sits under f, not g");
    let moved = step(
        "edit 2:4\ndef g():\n    x = 1\n    return\nend_of_edit",
        "[File: /r__r/m.py (4 lines total)]\n1:def f():\n2:def g():\n3:    x = 1\n4:    return\nFile updated.",
    );
    let t = traj(
        vec![
            step(
                "open m.py",
                "[File: /r__r/m.py (4 lines total)]\n1:def f():\n2:    x = 1\n3:def g():\n4:    return",
            ),
            moved,
        ],
        None,
    );
    let p = gold_proximity(&t, &Reconstruction::of(&t), gold);
    assert_eq!(p.steps[1].hunks_present, 1);
    assert_eq!(p.reached_at, Some(2));
}
