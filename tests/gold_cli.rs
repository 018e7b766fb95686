//! `show --dataset` and `stats --dataset`: each step's reconstructed tree against the gold
//! patch, on the samples (with the dataset written for them), on a run written by the test
//! that finds the fix and loses it, and on a CodeR trajectory of the corpus whose gold patch
//! comes from the public SWE-bench Lite instances (tests/fixtures/gold).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/cli.rs"]
mod cli;
#[path = "support/corpus.rs"]
mod corpus;

use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn trajscope(args: &[&str], home: &Path) -> Value {
    cli::json_of(
        cli::trajscope()
            .args(args)
            .env("XDG_CONFIG_HOME", home)
            .env("XDG_CACHE_HOME", home),
    )
}

const SAMPLES_GOLD: &str = "tests/fixtures/gold/tinycalc.jsonl";

#[test]
fn the_mini_swe_agent_sample_reaches_the_gold_change_at_its_second_sed() {
    let home = tempfile::tempdir().unwrap();
    let file =
        "sample-trajectories/mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json";
    let t = trajscope(
        &["show", file, "--dataset", SAMPLES_GOLD, "--json"],
        home.path(),
    );
    // Steps 1-3 read and run; step 4's sed writes `value / right if right else raise …`
    // (the gold file is edited, the gold line is not there); step 7's sed makes the line
    // `value = value / right`, the gold hunk; the submitted patch keeps it.
    let per_step: Vec<(u64, u64)> = t["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["gold"]["files_touched"].as_u64().unwrap(),
                s["gold"]["hunks_present"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        per_step,
        [
            (0, 0),
            (0, 0),
            (0, 0),
            (1, 0),
            (1, 0),
            (1, 0),
            (1, 1),
            (1, 1),
            (1, 1),
            (1, 1)
        ]
    );
    let gold = &t["gold"];
    assert_eq!(gold["gold_files"], json!(["tinycalc/evaluator.py"]));
    assert_eq!(gold["reached_at"], 7);
    assert_eq!(gold["final_source"], "patch");
    assert_eq!(gold["lost"], false);
    assert_eq!(gold["strip"], "···○○○●●●●");
}

#[test]
fn the_samples_reach_the_gold_change_only_where_they_make_it() {
    let home = tempfile::tempdir().unwrap();
    let report = trajscope(
        &[
            "stats",
            "sample-trajectories",
            "--dataset",
            SAMPLES_GOLD,
            "--json",
        ],
        home.path(),
    );
    let change = &report["localization"]["gold_change"];
    // Every sample trajectory is of tinycalc-1 or -2, so every one is compared.
    assert_eq!(change["compared"], report["localization"]["with_gold"]);
    // tinycalc-2's gold patch adds a `_number` helper that no agent wrote: only tinycalc-1
    // trajectories can reach it, and only those that wrote the plain `value / right`.
    let reached = change["reached"]["trajectories"].as_u64().unwrap();
    assert!(reached > 0 && reached < change["compared"]["trajectories"].as_u64().unwrap());
    assert_eq!(
        change["reached"]["unresolved"], 0,
        "no unresolved sample has the fix"
    );
    assert_eq!(change["lost"]["trajectories"], 0);
}

/// A SWE-agent run of one instance that opens `src/a.py`, then edits line 4 to each of
/// `values` in turn, and submits nothing.
fn write_edits(dir: &Path, values: &[&str]) {
    let view =
        "[File: /repo__x/src/a.py (4 lines total)]\n1:import os\n2:\n3:def f():\n4:    return 1";
    let mut steps = vec![json!({"action": "open src/a.py", "observation": view,
                                "response": "", "thought": "", "state": "{}"})];
    for v in values {
        steps.push(json!({
            "action": format!("edit 4:4\n    return {v}\nend_of_edit"),
            "observation": format!("[File: /repo__x/src/a.py (4 lines total)]\n1:import os\n2:\n3:def f():\n4:    return {v}\nFile updated."),
            "response": "", "thought": "", "state": "{}"
        }));
    }
    let doc = json!({"trajectory": steps, "history": [], "info": {"exit_status": "exit_cost"}});
    std::fs::write(
        dir.join("repo__x-1.traj"),
        serde_json::to_vec(&doc).unwrap(),
    )
    .unwrap();
}

#[test]
fn a_run_that_finds_the_fix_and_overwrites_it_is_listed_as_lost() {
    let home = tempfile::tempdir().unwrap();
    let run = home.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    write_edits(&run, &["2", "3"]);
    let gold = "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -3,2 +3,2 @@\n def f():\n-    return 1\n+    return 2\n";
    let dataset = home.path().join("gold.jsonl");
    std::fs::write(
        &dataset,
        format!("{}\n", json!({"instance_id": "repo__x-1", "patch": gold})),
    )
    .unwrap();
    let report = trajscope(
        &[
            "stats",
            run.to_str().unwrap(),
            "--dataset",
            dataset.to_str().unwrap(),
            "--json",
        ],
        home.path(),
    );
    let change = &report["localization"]["gold_change"];
    assert_eq!(change["reached"]["trajectories"], 1);
    assert_eq!(change["lost"]["trajectories"], 1);
    let lost = &change["lost_trajectories"][0];
    assert_eq!(lost["instance_id"], "repo__x-1");
    assert_eq!(
        (&lost["reached_at"], &lost["steps"]),
        (&json!(2), &json!(3))
    );
    assert_eq!(lost["final_hunks_present"], 0);
    assert_eq!(lost["strip"], "·●○");
    // The text report names it.
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args([
            "stats",
            run.to_str().unwrap(),
            "--dataset",
            dataset.to_str().unwrap(),
        ])
        .env("XDG_CONFIG_HOME", home.path())
        .env("XDG_CACHE_HOME", home.path())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("reached the gold change at step 2/3 and lost it (0/1 gold hunks in the final patch): repo__x-1"),
        "{text}"
    );
    // Edited to 2 and left there: reached, not lost.
    write_edits(&run, &["3", "2"]);
    let report = trajscope(
        &[
            "stats",
            run.to_str().unwrap(),
            "--dataset",
            dataset.to_str().unwrap(),
            "--json",
            "--no-cache",
        ],
        home.path(),
    );
    let change = &report["localization"]["gold_change"];
    assert_eq!(change["reached"]["trajectories"], 1);
    assert_eq!(change["lost"]["trajectories"], 0);
}

#[test]
fn a_coder_trajectory_reaches_the_gold_change_and_keeps_it() {
    // django__django-10924 in the CodeR run: the gold patch (SWE-bench Lite, kept in
    // tests/fixtures/gold/swe-bench-lite-corpus.jsonl) changes one hunk of
    // django/db/models/fields/__init__.py; CodeR's Programmer makes that change at step 7 of 9
    // and submits it.
    let Some(file) = corpus::corpus("coder-swebench-lite/trajs/django__django-10924.traj") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let t = trajscope(
        &[
            "show",
            file.to_str().unwrap(),
            "--dataset",
            "tests/fixtures/gold/swe-bench-lite-corpus.jsonl",
            "--json",
        ],
        home.path(),
    );
    let gold = &t["gold"];
    assert_eq!(gold["gold_hunks"], 1);
    assert_eq!(gold["reached_at"], 7);
    assert_eq!(gold["final_hunks_present"], 1);
    assert_eq!(gold["lost"], false);
    assert_eq!(gold["strip"], "····○○●●●");
    // sympy__sympy-21847: two gold hunks in one file; step 11 writes the first, step 12 the
    // second, and the patch keeps both.
    let Some(file) = corpus::corpus("coder-swebench-lite/trajs/sympy__sympy-21847.traj") else {
        return;
    };
    let t = trajscope(
        &[
            "show",
            file.to_str().unwrap(),
            "--dataset",
            "tests/fixtures/gold/swe-bench-lite-corpus.jsonl",
            "--json",
        ],
        home.path(),
    );
    assert_eq!(t["gold"]["gold_hunks"], 2);
    assert_eq!(t["steps"][10]["gold"]["hunks_present"], 1);
    assert_eq!(t["gold"]["reached_at"], 12);
    assert_eq!(t["gold"]["strip"], "··········◐●●●●●●");
}
