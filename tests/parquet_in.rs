//! Trajectory datasets in Parquet, as the Hugging Face Hub lays them out: generated here in
//! the layouts of the published SWE-agent, OpenHands and SWE-smith datasets (and one only
//! `--columns` can read), written with the `parquet` crate, then read through the CLI as a
//! user would: `ls`, `show`, `stats`, `diff`, `export`. Bad input (a truncated shard, a
//! schema without the expected columns) is reported naming the file, never a panic, and
//! never stops the other shards. One dataset is converted from the real mini-swe-agent run
//! of the shared corpus and must list and tally as the original files do.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/hub_parquet.rs"]
mod hub_parquet;

use hub_parquet::{field, list_of, openhands_schema, swe_agent_schema, swe_smith_schema, text};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

fn trajscope(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The JSON a command printed when nothing could be read: `ls` then exits non-zero.
fn json_of_failed(out: &Output) -> Value {
    assert!(!out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

const PATCH: &str =
    "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n";

/// A nebius/SWE-agent-trajectories row: two text-mode steps; the first observation a
/// traceback when `fails`.
fn swe_agent_row(id: &str, resolved: Option<bool>, fails: bool) -> Value {
    let observation = if fails {
        "Traceback (most recent call last):\n  File \"x.py\", line 1\nSyntaxError: invalid syntax"
    } else {
        "a = 1"
    };
    json!({
        "instance_id": id,
        "model_name": "swe-agent-llama-70b",
        "target": resolved,
        "exit_status": "submitted",
        "generated_patch": PATCH,
        "eval_logs": "tests passed",
        "trajectory": [
            {"role": "system", "system_prompt": "You are SWE-agent.", "mask": false},
            {"role": "user", "text": format!("Fix the bug in {id}"), "mask": false},
            {"role": "ai", "text": "Let me look.\n```\ncat x.py\n```", "mask": true},
            {"role": "user", "text": observation, "mask": false},
            {"role": "ai", "text": "Done.\n```\nsubmit\n```", "mask": true},
            {"role": "user", "text": PATCH, "mask": false},
        ],
    })
}

/// A nebius/SWE-rebench-openhands-trajectories row: tool calls, `resolved` as 0/1.
fn openhands_row(id: &str, resolved: i64) -> Value {
    let call = |cid: &str, command: &str| {
        json!([{"id": cid, "type": "function",
                "function": {"name": "execute_bash",
                             "arguments": json!({"command": command}).to_string()}}])
    };
    json!({
        "trajectory_id": format!("chatcmpl-{id}"),
        "instance_id": id,
        "repo": "octo/repo",
        "model_patch": PATCH,
        "exit_status": "submit",
        "resolved": resolved,
        "trajectory": [
            {"role": "system", "content": "You are OpenHands agent."},
            {"role": "user", "content": "Fix the failing test."},
            {"role": "assistant", "content": "Running the tests.", "tool_calls": call("c1", "pytest -q")},
            {"role": "tool", "content": "1 failed, 3 passed", "tool_call_id": "c1", "name": "execute_bash"},
            {"role": "assistant", "content": "", "tool_calls": call("c2", "sed -i s/1/2/ x.py")},
            {"role": "tool", "content": "", "tool_call_id": "c2", "name": "execute_bash"},
            {"role": "assistant", "content": "Fixed."},
        ],
    })
}

#[test]
fn swe_agent_shards_list_show_and_tally_as_files_do() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("swe-agent-trajectories/data");
    let schema = swe_agent_schema();
    let first = data.join("train-00000-of-00002.parquet");
    let second = data.join("train-00001-of-00002.parquet");
    hub_parquet::write(
        &first,
        &schema,
        &[
            swe_agent_row("astropy__astropy-1", Some(true), false),
            swe_agent_row("django__django-2", Some(false), true),
        ],
        1,
    );
    hub_parquet::write(
        &second,
        &schema,
        &[swe_agent_row("sympy__sympy-3", None, true)],
        1,
    );
    let cache = dir.path().join("cache");
    let rows = json_of(&trajscope(
        &[
            "ls",
            "--json",
            s(&dir.path().join("swe-agent-trajectories")),
        ],
        &cache,
    ));
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 3, "{rows:#?}");
    let by_id = |id: &str| rows.iter().find(|r| r["instance_id"] == id).unwrap();
    let django = by_id("django__django-2");
    assert_eq!(django["path"], s(&first));
    assert_eq!(django["index"], 2);
    assert_eq!(django["label"], "django__django-2");
    assert_eq!(django["steps"], 2);
    assert_eq!(django["resolved"], false);
    assert_eq!(django["verdict_source"], s(&first));
    assert_eq!(django["model"], "swe-agent-llama-70b");
    assert_eq!(django["exit_status"], "submitted");
    assert_eq!(django["patch_lines"], PATCH.lines().count());
    assert_eq!(django["error_steps"], 1);
    assert!(
        django["format_detail"]
            .as_str()
            .unwrap()
            .starts_with("parquet: trajectory"),
        "{django}"
    );
    assert_eq!(by_id("astropy__astropy-1")["resolved"], true);
    assert_eq!(by_id("astropy__astropy-1")["error_steps"], 0);
    let sympy = by_id("sympy__sympy-3");
    assert_eq!(sympy["resolved"], Value::Null);
    assert_eq!(sympy["verdict_source"], Value::Null);
    assert_eq!(sympy["path"], s(&second));

    // One row, read from its row group: the steps the text turns hold.
    let shown = json_of(&trajscope(
        &["show", "--json", &format!("{}#2", first.display())],
        &cache,
    ));
    assert_eq!(shown["instance_id"], "django__django-2");
    assert_eq!(shown["steps"][0]["action"], "cat x.py");
    assert!(
        shown["steps"][0]["observation"]
            .as_str()
            .unwrap()
            .contains("SyntaxError")
    );
    assert_eq!(shown["steps"][1]["action"], "submit");
    assert_eq!(shown["submission"], PATCH);

    // Tallied like files: the verdicts split the counts.
    let stats = json_of(&trajscope(
        &[
            "stats",
            "--json",
            s(&dir.path().join("swe-agent-trajectories")),
        ],
        &cache,
    ));
    assert_eq!(stats["trajectories"], 3);
    assert_eq!(stats["outcomes"]["resolved"], 1);
    assert_eq!(stats["outcomes"]["unresolved"], 1);
    assert_eq!(stats["outcomes"]["unknown"], 1);
    assert_eq!(stats["exit_statuses"]["submitted"], 3);
    assert!(stats["unreadable"].as_array().unwrap().is_empty());
}

/// `stats` of a dataset alone sums each row up as it is read and keeps none (its outputs need
/// no per-row data); `--by-trajectory` keeps every row's tally. Both must give the same run.
#[test]
fn a_dataset_summed_up_as_it_is_read_counts_as_the_rows_kept() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("hub/data");
    let schema = swe_agent_schema();
    let rows: Vec<Value> = (0..7)
        .map(|i| {
            let resolved = [Some(true), Some(false), None][i % 3];
            swe_agent_row(&format!("django__django-{i}"), resolved, i % 2 == 0)
        })
        .collect();
    hub_parquet::write(
        &data.join("train-00000-of-00002.parquet"),
        &schema,
        &rows[..4],
        2,
    );
    hub_parquet::write(
        &data.join("train-00001-of-00002.parquet"),
        &schema,
        &rows[4..],
        2,
    );
    let cache = dir.path().join("cache");
    let summed = json_of(&trajscope(&["stats", "--json", s(&data)], &cache));
    let mut kept = json_of(&trajscope(
        &["stats", "--json", "--by-trajectory", s(&data)],
        &cache,
    ));
    assert_eq!(kept["by_trajectory"].as_array().unwrap().len(), 7);
    kept.as_object_mut().unwrap().remove("by_trajectory");
    assert_eq!(summed, kept);
    assert_eq!(summed["trajectories"], 7);
    assert_eq!(summed["outcomes"]["unknown"], 2);
    let traceback = summed["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "python_traceback")
        .unwrap();
    assert_eq!(traceback["trajectories"], 4);
    assert_eq!(traceback["resolved"]["trajectories"], 2);
}

#[test]
fn openhands_rows_become_tool_steps_and_diff_and_export() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("train-00000-of-00001.parquet");
    let rows = [
        openhands_row("octo__repo-7", 1),
        openhands_row("octo__repo-7", 0),
    ];
    hub_parquet::write(&file, &openhands_schema(), &rows, 64);
    let cache = dir.path().join("cache");
    let listed = json_of(&trajscope(&["ls", "--json", s(&file)], &cache));
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 2);
    // Rows of one file sharing an instance id are told apart by their number.
    assert_eq!(listed[0]["label"], "octo__repo-7 #1");
    assert_eq!(listed[1]["label"], "octo__repo-7 #2");
    assert_eq!(listed[0]["format"], "chat-messages");
    assert_eq!(listed[0]["steps"], 3);
    assert_eq!(listed[0]["resolved"], true);
    assert_eq!(listed[1]["resolved"], false);

    let shown = json_of(&trajscope(
        &["show", "--json", s(&file), "--trajectory", "1"],
        &cache,
    ));
    assert_eq!(shown["steps"][0]["tool"], "execute_bash");
    assert_eq!(shown["steps"][0]["action"], "pytest -q");
    assert_eq!(shown["steps"][0]["observation"], "1 failed, 3 passed");
    let many = trajscope(&["show", s(&file)], &cache);
    assert!(!many.status.success());
    assert!(
        String::from_utf8_lossy(&many.stderr).contains("holds 2 trajectories"),
        "{}",
        String::from_utf8_lossy(&many.stderr)
    );

    let diff = trajscope(
        &[
            "diff",
            &format!("{}#1", file.display()),
            &format!("{}#2", file.display()),
        ],
        &cache,
    );
    assert!(
        diff.status.success(),
        "{}",
        String::from_utf8_lossy(&diff.stderr)
    );
    let out = dir.path().join("one.md");
    let export = trajscope(
        &["export", &format!("{}#1", file.display()), "-o", s(&out)],
        &cache,
    );
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    assert!(std::fs::read_to_string(&out).unwrap().contains("pytest -q"));
}

#[test]
fn other_layouts_are_read_through_columns_and_refused_without() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rollouts.parquet");
    let schema = Arc::new(arrow_schema::Schema::new(vec![
        field("task", text()),
        field("passed", arrow_schema::DataType::Boolean),
        field(
            "dialog",
            list_of(vec![field("from", text()), field("value", text())]),
        ),
    ]));
    let row = json!({
        "task": "rollout-1",
        "passed": true,
        "dialog": [
            {"from": "human", "value": "Fix it"},
            {"from": "gpt", "value": "Looking.\n```bash\nls\n```"},
            {"from": "human", "value": "x.py"},
        ],
    });
    hub_parquet::write(&file, &schema, &[row], 10);
    let cache = dir.path().join("cache");

    let refused = json_of_failed(&trajscope(&["ls", "--json", s(&file)], &cache));
    let error = refused[0]["error"].as_str().unwrap();
    assert!(error.starts_with(s(&file)), "{error}");
    assert!(error.contains("--columns trajectory=COLUMN"), "{error}");
    assert!(error.contains("task, passed, dialog"), "{error}");

    let wrong = trajscope(
        &[
            "ls",
            "--json",
            s(&file),
            "--columns",
            "trajectory=dialog,resolved=verdict",
        ],
        &cache,
    );
    let error = json_of_failed(&wrong)[0]["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("`verdict` (--columns resolved=verdict)"),
        "{error}"
    );

    let mapped = json_of(&trajscope(
        &[
            "ls",
            "--json",
            "--columns",
            "trajectory=dialog,resolved=passed,instance_id=task",
            s(&file),
        ],
        &cache,
    ));
    assert_eq!(mapped[0]["instance_id"], "rollout-1");
    assert_eq!(mapped[0]["resolved"], true);
    assert_eq!(mapped[0]["steps"], 1);
    let stats = json_of(&trajscope(
        &[
            "stats",
            "--json",
            s(&file),
            "--columns",
            "trajectory=dialog,resolved=passed,instance_id=task",
        ],
        &cache,
    ));
    assert_eq!(stats["outcomes"]["resolved"], 1);

    let typo = trajscope(&["ls", s(&file), "--columns", "verdict=passed"], &cache);
    assert!(!typo.status.success());
    assert!(String::from_utf8_lossy(&typo.stderr).contains("no field `verdict`"));
}

#[test]
fn a_truncated_shard_is_reported_and_the_others_still_open() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let schema = swe_agent_schema();
    let good = data.join("train-00000-of-00002.parquet");
    let cut = data.join("train-00001-of-00002.parquet");
    hub_parquet::write(
        &good,
        &schema,
        &[swe_agent_row("a__a-1", Some(true), false)],
        8,
    );
    let rows: Vec<Value> = (0..20)
        .map(|i| swe_agent_row(&format!("b__b-{i}"), Some(false), true))
        .collect();
    hub_parquet::write(&cut, &schema, &rows, 5);
    let bytes = std::fs::read(&cut).unwrap();
    let cache = dir.path().join("cache");
    for keep in [bytes.len() / 2, bytes.len() - 3, 4, 12] {
        std::fs::write(&cut, &bytes[..keep]).unwrap();
        let listed = json_of(&trajscope(&["ls", "--json", s(&data)], &cache));
        let listed = listed.as_array().unwrap();
        assert_eq!(listed.len(), 2, "cut at {keep}: {listed:#?}");
        assert_eq!(listed[0]["instance_id"], "a__a-1");
        let error = listed[1]["error"].as_str().unwrap();
        assert!(error.starts_with(s(&cut)), "{error}");
        assert!(error.contains("Parquet"), "{error}");
        let stats = json_of(&trajscope(&["stats", "--json", s(&data)], &cache));
        assert_eq!(stats["trajectories"], 1);
        assert_eq!(stats["unreadable"][0]["path"], s(&cut));
        let shown = trajscope(&["show", &format!("{}#1", cut.display())], &cache);
        assert!(!shown.status.success());
        assert!(!String::from_utf8_lossy(&shown.stderr).contains("panicked"));
    }
}

/// The real mini-swe-agent run of the shared corpus, converted here to the SWE-smith layout
/// (messages as a JSON string, one row per trajectory, verdicts from the run's reports as
/// `ls` joins them), lists and tallies as the original files.
#[test]
fn a_dataset_converted_from_a_real_run_agrees_with_its_files() {
    let Some(run) = corpus::corpus("mini-swe-agent/gpt-5-mini-swebench-verified-run") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let originals = json_of(&trajscope(&["ls", "--json", s(&run)], &cache));
    let originals: Vec<&Value> = originals
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["format"] == "mini-swe-agent")
        .collect();
    assert!(originals.len() >= 20, "{}", originals.len());
    let mut rows = Vec::new();
    for original in &originals {
        let path = PathBuf::from(original["path"].as_str().unwrap());
        let file: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let loaded = match trajscope::formats::load_file(&path).unwrap() {
            trajscope::formats::Loaded::Trajectories(mut ts) => ts.remove(0),
            trajscope::formats::Loaded::Results(_) => unreachable!(),
        };
        rows.push(json!({
            "messages": file["messages"].to_string(),
            "instance_id": original["instance_id"],
            "resolved": original["resolved"],
            "model": original["model"],
            "traj_id": path.file_name().unwrap().to_str(),
            "patch": loaded.submission,
        }));
    }
    let data = dir.path().join("converted/data");
    let (a, b) = rows.split_at(rows.len() / 2);
    hub_parquet::write(
        &data.join("train-00000-of-00002.parquet"),
        &swe_smith_schema(),
        a,
        4,
    );
    hub_parquet::write(
        &data.join("train-00001-of-00002.parquet"),
        &swe_smith_schema(),
        b,
        4,
    );

    let converted = json_of(&trajscope(&["ls", "--json", s(&data)], &cache));
    let converted = converted.as_array().unwrap();
    assert_eq!(converted.len(), originals.len());
    for original in &originals {
        let row = converted
            .iter()
            .find(|r| r["instance_id"] == original["instance_id"])
            .unwrap();
        for key in [
            "steps",
            "resolved",
            "model",
            "exit_status",
            "patch_lines",
            "error_steps",
        ] {
            assert_eq!(
                row[key], original[key],
                "{key} of {}",
                original["instance_id"]
            );
        }
    }

    // The tally: every rule's counts, split by outcome (the run's verdicts from its reports,
    // the dataset's from its rows), equal.
    let from_files = json_of(&trajscope(&["stats", "--json", s(&run)], &cache));
    let from_parquet = json_of(&trajscope(&["stats", "--json", s(&data)], &cache));
    assert_eq!(from_files["trajectories"], originals.len());
    assert_eq!(from_parquet["trajectories"], from_files["trajectories"]);
    assert_eq!(from_parquet["outcomes"], from_files["outcomes"]);
    assert_eq!(from_parquet["steps"], from_files["steps"]);
    let counts = |v: &Value| -> Vec<(Value, Value, Value, Value, Value, Value)> {
        v["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["name"].clone(),
                    r["matches"].clone(),
                    r["steps"].clone(),
                    r["trajectories"].clone(),
                    r["resolved"].clone(),
                    r["unresolved"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(counts(&from_parquet), counts(&from_files));
    assert_eq!(from_parquet["tools"], from_files["tools"]);
}

/// The app lists a dataset's rows while the file is still read: the loader sends its first
/// rows (`RunRows`) before the file is done, every row arrives once, and the file itself
/// is counted once, with its last rows.
#[test]
fn the_app_gets_a_datasets_rows_in_batches_while_it_is_read() {
    use std::sync::atomic::AtomicBool;
    use trajscope::tui::msg::{FileOutcome, Msg};

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data/train-00000-of-00001.parquet");
    let rows: Vec<Value> = (0..150)
        .map(|i| swe_agent_row(&format!("django__django-{i}"), Some(i % 2 == 0), i % 3 == 0))
        .collect();
    hub_parquet::write(&file, &swe_agent_schema(), &rows, 50);

    let rules =
        Arc::new(trajscope::metrics::Matcher::new(trajscope::metrics::RuleSet::defaults().rules).0);
    let (tx, rx) = std::sync::mpsc::channel();
    trajscope::tui::job::load_run(
        &[dir.path().to_path_buf()],
        &rules,
        None,
        &|msg| tx.send(msg).is_ok(),
        &AtomicBool::new(false),
    );
    let msgs: Vec<Msg> = rx.try_iter().collect();
    let mut batches = Vec::new();
    let mut ids = Vec::new();
    let mut tallied = 0;
    let mut files = 0;
    for msg in &msgs {
        match msg {
            Msg::RunRows { rows, tallies } => {
                assert_eq!(
                    files, 0,
                    "rows of a file still being read come before it ends"
                );
                batches.push(rows.len());
                ids.extend(rows.iter().map(|r| r.instance_id.clone()));
                tallied += tallies.len();
            }
            Msg::RunFiles {
                files: done,
                tallies,
            } => {
                for (_, outcome) in done {
                    files += 1;
                    let FileOutcome::Trajectories(rows) = outcome else {
                        panic!("{outcome:?}");
                    };
                    batches.push(rows.len());
                    ids.extend(rows.iter().map(|r| r.instance_id.clone()));
                }
                tallied += tallies.len();
            }
            _ => {}
        }
    }
    assert!(batches.len() > 1, "the rows came in one batch: {batches:?}");
    assert!(batches[0] < 150, "{batches:?}");
    assert_eq!(files, 1, "the file is counted once");
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 150, "every row once");
    assert_eq!(tallied, 150, "every row tallied once");
    assert!(matches!(msgs.last(), Some(Msg::RunLoaded)));
}
