//! The results files found above an opened run (`formats::results_search`), through the
//! binary: a run kept in a downloads folder beside big unrelated JSON files, and a
//! results-shaped file in the home folder, take their verdicts from the run's own
//! `results.json` only.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/cli.rs"]
mod cli;

use serde_json::{Value, json};
use std::path::Path;

fn write_traj(dir: &Path, id: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let doc = json!({
        "trajectory": [{"action": "ls", "observation": "ok", "response": "", "thought": ""}],
        "history": [],
        "info": {"exit_status": "submitted", "submission": "diff --git a/x b/x\n+y\n"}
    });
    std::fs::write(dir.join(format!("{id}.traj")), doc.to_string()).unwrap();
}

fn write_results(path: &Path, resolved: &[&str], unresolved: &[&str]) {
    let applied = [resolved, unresolved].concat();
    let doc = json!({"resolved": resolved, "applied": applied});
    std::fs::write(path, doc.to_string()).unwrap();
}

/// `instance_id` → `resolved` of `ls --json` on `run`, with `home` as the home folder.
fn verdicts(run: &Path, home: &Path) -> Vec<(String, Value)> {
    let out = cli::json_of(
        cli::isolated(home)
            .args(["ls", "--json", "--no-cache"])
            .arg(run),
    );
    let mut rows: Vec<(String, Value)> = out
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["instance_id"].as_str().unwrap().to_string(),
                r["resolved"].clone(),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

#[test]
fn a_run_in_downloads_reads_only_results_shaped_files_and_never_the_home_folder() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(top.join(".git")).unwrap();
    let home = top.join("home");
    let downloads = home.join("Downloads");
    let trajs = downloads.join("run/trajs");
    for id in ["a", "b", "c", "d"] {
        write_traj(&trajs, id);
    }
    write_results(&downloads.join("run/results.json"), &["a"], &["b"]);
    // Beside the run: big unrelated exports, and a file that parses as results but opens
    // with 70 KB of notes before any results key.
    let rows: Vec<Value> = (0..40_000)
        .map(|i| json!({"id": i, "name": format!("item {i}"), "note": "lorem ipsum ".repeat(8)}))
        .collect();
    for n in 0..3 {
        let export = serde_json::to_vec(&rows).unwrap();
        std::fs::write(downloads.join(format!("export{n}.json")), export).unwrap();
    }
    let late = format!(
        r#"{{"notes": "{}", "resolved": ["c"], "applied": ["c"]}}"#,
        "x".repeat(70_000)
    );
    std::fs::write(downloads.join("late.json"), late).unwrap();
    // In the home folder: results for d.
    write_results(&home.join("results.json"), &["d"], &[]);

    let want = |d: Value| {
        vec![
            ("a".to_string(), json!(true)),
            ("b".to_string(), json!(false)),
            ("c".to_string(), Value::Null),
            ("d".to_string(), d),
        ]
    };
    assert_eq!(verdicts(&trajs, &home), want(Value::Null));
    // The same folder when it is not the home folder: its results are found.
    assert_eq!(verdicts(&trajs, &top), want(json!(true)));
}
