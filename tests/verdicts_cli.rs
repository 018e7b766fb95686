//! Verdicts found where they live, rows told apart, filters that select: `ls`, `stats`,
//! `export` and `show` on small runs written by the tests (results beside, above, or named
//! with `--results`), and on the shared corpus when present.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A SWE-agent trajectory of instance `id` with `n` steps, in `dir`.
fn write_traj(dir: &Path, id: &str, n: usize, cost: Option<f64>) {
    std::fs::create_dir_all(dir).unwrap();
    let steps: Vec<Value> = (0..n)
        .map(|i| json!({"action": format!("ls {i}"), "observation": "ok", "response": "", "thought": "", "state": "{}"}))
        .collect();
    let mut stats = json!({"tokens_sent": 100, "tokens_received": 10});
    if let Some(cost) = cost {
        stats["instance_cost"] = json!(cost);
    }
    let doc = json!({
        "trajectory": steps,
        "history": [],
        "info": {"exit_status": "submitted", "submission": "diff --git a/x b/x\n+y\n",
                  "model_stats": stats}
    });
    std::fs::write(
        dir.join(format!("{id}.traj")),
        serde_json::to_vec(&doc).unwrap(),
    )
    .unwrap();
}

/// An old SWE-bench `results.json`: `resolved` ids, the others tried and not resolved.
fn write_results(path: &Path, resolved: &[&str], unresolved: &[&str]) {
    let applied = [resolved, unresolved].concat();
    let doc = json!({"resolved": resolved, "applied": applied, "no_generation": []});
    std::fs::write(path, serde_json::to_vec(&doc).unwrap()).unwrap();
}

/// A folder bounded by a `.git` (the walk up stops there), holding `run/results.json` and
/// `run/trajs/{a,b,c}.traj`: a resolved, b not, c not in the results.
fn eval_run() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let trajs = dir.path().join("run/trajs");
    write_traj(&trajs, "a", 3, Some(0.5));
    write_traj(&trajs, "b", 40, None);
    write_traj(&trajs, "c", 12, Some(2.0));
    write_results(&dir.path().join("run/results.json"), &["a"], &["b"]);
    dir
}

fn trajscope(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(args)
        .env("XDG_CONFIG_HOME", dir.join(".config"))
        .env("XDG_CACHE_HOME", dir.join(".cache"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn json_of(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn ls_json(paths: &[&Path], extra: &[&str], dir: &Path) -> Vec<Value> {
    let mut args: Vec<String> = vec!["ls".into(), "--json".into()];
    args.extend(paths.iter().map(|p| p.display().to_string()));
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    json_of(&trajscope(&args, dir)).as_array().unwrap().clone()
}

fn row<'a>(rows: &'a [Value], id: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["instance_id"] == id)
        .unwrap_or_else(|| panic!("no row {id} in {rows:?}"))
}

#[test]
fn results_one_folder_up_give_the_trajs_folder_its_verdicts() {
    let dir = eval_run();
    let results = dir.path().join("run/results.json").canonicalize().unwrap();
    let rows = ls_json(&[&dir.path().join("run/trajs")], &[], dir.path());
    assert_eq!(row(&rows, "a")["resolved"], json!(true));
    assert_eq!(row(&rows, "b")["resolved"], json!(false));
    assert_eq!(row(&rows, "c")["resolved"], Value::Null);
    assert_eq!(
        row(&rows, "a")["verdict_source"],
        json!(results.display().to_string())
    );
    assert_eq!(row(&rows, "c")["verdict_source"], Value::Null);

    // One file alone: the same verdict, the same source.
    let file = dir.path().join("run/trajs/b.traj");
    let rows = ls_json(&[&file], &[], dir.path());
    assert_eq!(rows[0]["resolved"], json!(false));
    assert_eq!(
        rows[0]["verdict_source"],
        json!(results.display().to_string())
    );
}

#[test]
fn a_nearer_results_file_wins_and_results_in_sibling_folders_are_not_read() {
    let dir = eval_run();
    // Two levels up says b was resolved; one level up says it was not: the nearer wins.
    write_results(&dir.path().join("results.json"), &["b", "c"], &[]);
    // A sibling's results are another run's, never read.
    std::fs::create_dir_all(dir.path().join("run/other")).unwrap();
    write_results(
        &dir.path().join("run/other/results.json"),
        &["a", "b", "c"],
        &[],
    );
    let rows = ls_json(&[&dir.path().join("run/trajs")], &[], dir.path());
    assert_eq!(row(&rows, "b")["resolved"], json!(false));
    // c is named only two levels up: that file speaks for it.
    assert_eq!(row(&rows, "c")["resolved"], json!(true));
    let far = dir.path().join("results.json").canonicalize().unwrap();
    assert_eq!(
        row(&rows, "c")["verdict_source"],
        json!(far.display().to_string())
    );
}

#[test]
fn named_results_come_first_everywhere() {
    let dir = eval_run();
    let named = dir.path().join("named.json");
    write_results(&named, &["b"], &["a"]);
    let named_arg = named.display().to_string();
    let trajs = dir.path().join("run/trajs");
    let rows = ls_json(&[&trajs], &["--results", &named_arg], dir.path());
    assert_eq!(row(&rows, "a")["resolved"], json!(false));
    assert_eq!(row(&rows, "b")["resolved"], json!(true));
    assert_eq!(row(&rows, "a")["verdict_source"], json!(named_arg));

    let file = trajs.join("b.traj");
    let file_arg = file.display().to_string();
    let shown = json_of(&trajscope(
        &["show", &file_arg, "--json", "--results", &named_arg],
        dir.path(),
    ));
    assert_eq!(shown["resolved"], json!(true));

    let stats = json_of(&trajscope(
        &[
            "stats",
            &trajs.display().to_string(),
            "--json",
            "--by-trajectory",
            "--results",
            &named_arg,
        ],
        dir.path(),
    ));
    let by = stats["by_trajectory"].as_array().unwrap();
    let b = by.iter().find(|t| t["instance_id"] == "b").unwrap();
    assert_eq!(b["resolved"], json!(true), "{stats}");

    // A trajectory is not a results file: an error naming it, before anything is read.
    let wrong = trajscope(
        &["ls", &trajs.display().to_string(), "--results", &file_arg],
        dir.path(),
    );
    assert!(!wrong.status.success());
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        stderr.contains("b.traj") && stderr.contains("not an eval results file"),
        "{stderr}"
    );
}

#[test]
fn export_of_one_file_finds_its_verdict() {
    let dir = eval_run();
    let file = dir.path().join("run/trajs/a.traj").display().to_string();
    let out = trajscope(&["export", &file, "--markdown"], dir.path());
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(page.contains("**Resolved:** yes"), "{page}");
}

#[test]
fn results_of_another_model_above_do_not_mislabel_a_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let trajs = dir.path().join("run/trajs");
    // A mini-swe-agent trajectory of model gpt-5-mini.
    std::fs::create_dir_all(&trajs).unwrap();
    let doc = json!({
        "info": {"exit_status": "Submitted", "submission": "", "config": {"model": {"model_name": "openai/gpt-5-mini"}}},
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
                     {"role": "assistant", "content": "THOUGHT\n```bash\nls\n```"},
                     {"role": "user", "content": "ok"}],
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": "x__y-1"
    });
    std::fs::write(
        trajs.join("x__y-1.traj.json"),
        serde_json::to_vec(&doc).unwrap(),
    )
    .unwrap();
    let summary = json!({"resolved_ids": ["x__y-1"], "unresolved_ids": []});
    std::fs::write(
        dir.path().join("run/anthropic__claude-sonnet-4.run.json"),
        serde_json::to_vec(&summary).unwrap(),
    )
    .unwrap();
    let rows = ls_json(&[&trajs], &[], dir.path());
    assert_eq!(rows[0]["model"], json!("openai/gpt-5-mini"), "{rows:?}");
    assert_eq!(rows[0]["resolved"], Value::Null, "{rows:?}");
}

#[test]
fn rows_of_one_instance_get_unique_labels_made_of_their_paths() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let both = dir.path().join("both");
    write_traj(&both.join("run-a/trajs"), "x__y-1", 3, None);
    write_traj(&both.join("run-b/trajs"), "x__y-1", 4, None);
    write_traj(&both.join("run-b/trajs"), "z__z-2", 4, None);
    let rows = ls_json(&[&both], &[], dir.path());
    let labels: Vec<&str> = rows.iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&"x__y-1 · …/run-a"), "{labels:?}");
    assert!(labels.contains(&"x__y-1 · …/run-b"), "{labels:?}");
    assert!(labels.contains(&"z__z-2"), "{labels:?}");

    // The table names rows the same way.
    let out = trajscope(&["ls", &both.display().to_string()], dir.path());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("x__y-1 · …/run-a"), "{table}");
}

#[test]
fn filters_select_exactly_their_rows() {
    let dir = eval_run();
    let trajs = dir.path().join("run/trajs");
    let ids = |expr: &str| -> Vec<String> {
        let rows = ls_json(&[&trajs], &["--filter", expr], dir.path());
        let mut ids: Vec<String> = rows
            .iter()
            .map(|r| r["instance_id"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids("resolved:yes"), ["a"]);
    assert_eq!(ids("-resolved:yes"), ["b", "c"]);
    assert_eq!(ids("resolved:unknown"), ["c"]);
    assert_eq!(ids("steps>=12"), ["b", "c"]);
    // b logs no cost: no comparison holds for it, its negation does.
    assert_eq!(ids("cost>0.1"), ["a", "c"]);
    assert_eq!(ids("-cost>0.1"), ["b"]);
    assert_eq!(ids("steps<20 format:swe-agent"), ["a", "c"]);
    // The bare word is looked for in labels and paths, not in "unresolved".
    assert_eq!(ids("resolved"), Vec::<String>::new());

    let bad = trajscope(
        &[
            "ls",
            &trajs.display().to_string(),
            "--filter",
            "resolved:maybe",
        ],
        dir.path(),
    );
    assert!(!bad.status.success());
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("resolved:maybe"), "{stderr}");
    assert!(bad.stdout.is_empty());

    let stats = json_of(&trajscope(
        &[
            "stats",
            &trajs.display().to_string(),
            "--json",
            "--filter",
            "-resolved:yes",
        ],
        dir.path(),
    ));
    assert_eq!(stats["trajectories"], json!(2), "{stats}");
    assert_eq!(stats["outcomes"]["resolved"], json!(0), "{stats}");
}

#[test]
fn nothing_read_is_a_failure_said_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = trajscope(&["stats", &empty.display().to_string()], dir.path());
    assert!(!out.status.success(), "stats on nothing must fail");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no trajectories found"));

    let out = trajscope(&["ls", &empty.display().to_string()], dir.path());
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "no table header before the error");

    // A folder named as a file: the error once, not twice.
    let out = trajscope(&["show", &empty.display().to_string()], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");
}

#[cfg(unix)]
#[test]
fn exported_files_get_the_permissions_of_any_new_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = eval_run();
    let trajs = dir.path().join("run/trajs").display().to_string();
    let out_path = dir.path().join("report.html");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 022 && exec \"$0\" stats \"{trajs}\" --html -o \"{}\"",
            out_path.display()
        ))
        .arg(env!("CARGO_BIN_EXE_trajscope"))
        .env("XDG_CONFIG_HOME", dir.path().join(".config"))
        .env("XDG_CACHE_HOME", dir.path().join(".cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mode = std::fs::metadata(&out_path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);
}

#[test]
fn the_corpus_trajs_folder_and_one_file_find_the_results_above() {
    let Some(trajs) = corpus::corpus("coder-swebench-lite/trajs") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let rows = ls_json(&[&trajs], &[], dir.path());
    assert!(rows.len() > 50);
    let results = trajs.parent().unwrap().join("results.json");
    let results = results.canonicalize().unwrap().display().to_string();
    // Every row the results file names has its verdict from there (a few instances of the
    // run are in no list of it and stay unknown).
    let judged: Vec<&Value> = rows.iter().filter(|r| r["resolved"].is_boolean()).collect();
    assert!(judged.len() > 50, "{}", judged.len());
    for r in &rows {
        let expected = if r["resolved"].is_boolean() {
            json!(results)
        } else {
            Value::Null
        };
        assert_eq!(r["verdict_source"], expected, "{r}");
    }
    let yes: Vec<&Value> = rows
        .iter()
        .filter(|r| r["resolved"] == json!(true))
        .collect();
    let filtered = ls_json(&[&trajs], &["--filter", "resolved:yes"], dir.path());
    assert_eq!(filtered.len(), yes.len());
    assert!(filtered.iter().all(|r| r["resolved"] == json!(true)));

    let one: PathBuf = trajs.join("django__django-11099.traj");
    if one.exists() {
        let rows = ls_json(&[&one], &[], dir.path());
        assert!(rows[0]["resolved"].is_boolean());
    }
}

#[test]
fn stats_says_when_results_files_name_none_of_the_trajectories() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let trajs = dir.path().join("run/trajs");
    write_traj(&trajs, "a", 3, None);
    write_results(&dir.path().join("run/results.json"), &["z"], &["y"]);
    let out = trajscope(
        &["stats", trajs.to_str().unwrap(), "--no-cache"],
        dir.path(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "resolved rate: unknown (1 results file found, it names none of these trajectories)"
        ),
        "{text}"
    );
    // With no results file anywhere, the old wording stays.
    std::fs::remove_file(dir.path().join("run/results.json")).unwrap();
    let out = trajscope(
        &["stats", trajs.to_str().unwrap(), "--no-cache"],
        dir.path(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("resolved rate: no eval results found"),
        "{text}"
    );
}
