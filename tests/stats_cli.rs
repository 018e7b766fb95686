//! `trajscope stats` and `trajscope grep` on small runs written by the tests, where every
//! answer is known: two-run comparison and McNemar, bad rules, the user's rule file, labels.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A SWE-agent trajectory whose steps run `actions` and see `observations`.
fn write_traj(dir: &Path, id: &str, steps: &[(&str, &str)]) {
    let trajectory: Vec<Value> = steps
        .iter()
        .map(|(a, o)| json!({"action": a, "observation": o, "response": "", "thought": "", "state": "{}"}))
        .collect();
    let doc = json!({
        "trajectory": trajectory,
        "history": [],
        "info": {"exit_status": "submitted", "submission": "diff --git a/x b/x\n+y\n",
                  "model_stats": {"instance_cost": 0.5, "tokens_sent": 100, "tokens_received": 10}}
    });
    std::fs::write(
        dir.join(format!("{id}.traj")),
        serde_json::to_vec(&doc).unwrap(),
    )
    .unwrap();
}

/// A run of instances `i0..i{n}` with a run summary saying which were resolved.
fn write_run(
    dir: &Path,
    n: usize,
    resolved: impl Fn(usize) -> bool,
    error: impl Fn(usize) -> bool,
) {
    std::fs::create_dir_all(dir).unwrap();
    let mut yes = Vec::new();
    let mut no = Vec::new();
    for i in 0..n {
        let id = format!("i{i}");
        let observation = if error(i) {
            "Traceback (most recent call last):\nValueError: x"
        } else {
            "ok"
        };
        write_traj(
            dir,
            &id,
            &[("python reproduce.py", observation), ("submit", "diff")],
        );
        if resolved(i) {
            yes.push(id)
        } else {
            no.push(id)
        }
    }
    let summary = json!({"resolved_ids": yes, "unresolved_ids": no});
    std::fs::write(
        dir.join("model.run.json"),
        serde_json::to_vec(&summary).unwrap(),
    )
    .unwrap();
}

fn trajscope(args: &[&str], paths: &[&Path], config: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(args)
        .args(paths)
        .env("XDG_CONFIG_HOME", config)
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

fn rule<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no rule {name}"))
}

struct Runs {
    dir: tempfile::TempDir,
}

impl Runs {
    /// 40 instances; both runs resolve i0..i9; A alone i10, i11; B alone i12..i19 (2 vs 8
    /// flips: McNemar exact p = 0.109, mid-p = 0.065, within noise). A has errors in i0..i19,
    /// B in i0..i9.
    fn new() -> Runs {
        let dir = tempfile::tempdir().unwrap();
        write_run(&dir.path().join("a"), 40, |i| i < 12, |i| i < 20);
        write_run(
            &dir.path().join("b"),
            40,
            |i| i < 10 || (12..20).contains(&i),
            |i| i < 10,
        );
        Runs { dir }
    }
    fn a(&self) -> PathBuf {
        self.dir.path().join("a")
    }
    fn b(&self) -> PathBuf {
        self.dir.path().join("b")
    }
}

#[test]
fn two_folders_are_two_runs_compared_with_mcnemar() {
    let runs = Runs::new();
    let report = json_of(&trajscope(
        &["stats", "--json"],
        &[&runs.a(), &runs.b()],
        runs.dir.path(),
    ));
    assert_eq!(report["a"]["trajectories"], 40);
    assert_eq!(report["b"]["outcomes"]["resolved"], 18);
    assert_eq!(report["paired"]["instances"], 40);
    assert_eq!(report["paired"]["only_a"], json!(["i10", "i11"]));
    assert_eq!(report["paired"]["only_b"].as_array().unwrap().len(), 8);
    assert!((report["mcnemar"]["exact_p"].as_f64().unwrap() - 0.109375).abs() < 1e-9);
    assert!((report["mcnemar"]["mid_p"].as_f64().unwrap() - 67.0 / 1024.0).abs() < 1e-9);
    assert_eq!(report["verdict"], "within_noise");
    let tb = report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "python_traceback")
        .unwrap();
    assert_eq!(tb["a"]["trajectories"], 20);
    assert_eq!(tb["b"]["trajectories"], 10);
    assert_eq!(tb["delta"]["trajectories"], -10);
    assert!((tb["delta"]["share"].as_f64().unwrap() + 0.25).abs() < 1e-9);
    // Each side carries the single-run report, intervals included.
    let rate = &report["a"]["resolved_rate"];
    assert_eq!(
        (rate["successes"].clone(), rate["total"].clone()),
        (json!(12), json!(40))
    );
    assert!(rate["low"].as_f64().unwrap() < 0.3 && rate["high"].as_f64().unwrap() > 0.3);

    let text = trajscope(&["stats"], &[&runs.a(), &runs.b()], runs.dir.path());
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("verdict: the difference is within noise"),
        "{text}"
    );
    assert!(text.contains("resolved only by A: i10 i11"), "{text}");
    assert!(text.contains("note: small runs"), "{text}");
}

#[test]
fn one_run_and_vs_say_how_folders_group() {
    let runs = Runs::new();
    let one = json_of(&trajscope(
        &["stats", "--json", "--one-run"],
        &[&runs.a(), &runs.b()],
        runs.dir.path(),
    ));
    assert_eq!(one["trajectories"], 80);
    assert!(one.get("paired").is_none());
    // Run A made of two folders against run B: `--vs` takes the paths after it.
    let extra = runs.dir.path().join("a2");
    write_run(&extra, 3, |_| true, |_| false);
    let vs = json_of(&trajscope(
        &[
            "stats",
            "--json",
            runs.a().to_str().unwrap(),
            extra.to_str().unwrap(),
            "--vs",
        ],
        &[&runs.b()],
        runs.dir.path(),
    ));
    assert_eq!(vs["a"]["trajectories"], 43);
    assert_eq!(vs["b"]["trajectories"], 40);
    // Two files are one run, not a comparison.
    let files = json_of(&trajscope(
        &["stats", "--json"],
        &[&runs.a().join("i0.traj"), &runs.b().join("i1.traj")],
        runs.dir.path(),
    ));
    assert_eq!(files["trajectories"], 2);
}

#[test]
fn a_lopsided_comparison_is_more_than_noise() {
    let dir = tempfile::tempdir().unwrap();
    write_run(&dir.path().join("a"), 30, |i| i < 5, |_| false);
    write_run(&dir.path().join("b"), 30, |i| i < 17, |_| false);
    let report = json_of(&trajscope(
        &["stats", "--json"],
        &[&dir.path().join("a"), &dir.path().join("b")],
        dir.path(),
    ));
    assert_eq!(report["verdict"], "b_better");
    assert!((report["mcnemar"]["mid_p"].as_f64().unwrap() - 0.5_f64.powi(12)).abs() < 1e-12);
    assert!(
        report["message"]
            .as_str()
            .unwrap()
            .starts_with("run B resolves more than noise explains")
    );
}

#[test]
fn bad_rules_are_reported_and_the_others_run() {
    let runs = Runs::new();
    let rules = runs.dir.path().join("mine.toml");
    std::fs::write(
        &rules,
        "[[rule]]\nname = \"broken_regex\"\npattern = \"(unclosed\"\nregex = true\n\n\
         [[rule]]\nname = \"bad_field\"\npattern = \"x\"\nfield = \"stdout\"\n\n\
         [[rule]]\nname = \"typo_key\"\npatern = \"x\"\n\n\
         [[rule]]\nname = \"value_error\"\npattern = \"ValueError\"\nfield = \"observation\"\n",
    )
    .unwrap();
    let output = trajscope(
        &["stats", "--json", "--rules", rules.to_str().unwrap()],
        &[&runs.a()],
        runs.dir.path(),
    );
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let report = json_of(&output);
    let shown = rules.display().to_string();
    assert!(
        stderr.contains(&format!("{shown}:1: rule `broken_regex`: invalid regex")),
        "{stderr}"
    );
    // Key errors point at the key's line, others at the rule's `[[rule]]` line.
    assert!(
        stderr.contains(&format!(
            "{shown}:9: rule `bad_field`: unknown field `stdout`"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{shown}:13: rule `typo_key`: unknown key `patern`"
        )),
        "{stderr}"
    );
    let errors = report["rule_errors"].as_array().unwrap();
    assert_eq!(errors.len(), 3);
    let broken = errors.iter().find(|e| e["rule"] == "broken_regex").unwrap();
    assert_eq!(broken["line"], 1);
    assert_eq!(broken["file"], shown.as_str());
    // The good rule of the file and the defaults still run.
    assert_eq!(rule(&report, "value_error")["trajectories"], 20);
    assert_eq!(rule(&report, "python_traceback")["trajectories"], 20);
    assert_eq!(rule(&report, "submit")["steps"], 40);

    // A rule file that is not TOML at all: reported, defaults kept.
    std::fs::write(&rules, "[[rule]\nname = 1").unwrap();
    let output = trajscope(
        &["stats", "--json", "--rules", rules.to_str().unwrap()],
        &[&runs.a()],
        runs.dir.path(),
    );
    let report = json_of(&output);
    assert!(
        report["rule_errors"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("not a valid rule file")
    );
    assert_eq!(rule(&report, "submit")["steps"], 40);
}

#[test]
fn the_user_rule_file_adds_and_only_rules_replaces() {
    let runs = Runs::new();
    let config = runs.dir.path().join("config");
    std::fs::create_dir_all(config.join("trajscope")).unwrap();
    std::fs::write(
        config.join("trajscope/rules.toml"),
        "[[rule]]\nname = \"mine\"\npattern = \"reproduce\"\nfield = \"action\"\n\n[[rule]]\nname = \"submit\"\nenabled = false\n",
    )
    .unwrap();
    let report = json_of(&trajscope(&["stats", "--json"], &[&runs.a()], &config));
    assert_eq!(rule(&report, "mine")["steps"], 40);
    assert!(
        report["rules"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["name"] != "submit"),
        "switched off"
    );
    // A switched-off rule that others refer to takes them down with it, reported.
    let errors: Vec<String> = report["rule_errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["rule"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(errors, vec!["untested_edit"]);

    let only = runs.dir.path().join("only.toml");
    std::fs::write(
        &only,
        "[[rule]]\nname = \"only\"\npattern = \"ok\"\nfield = \"observation\"\n",
    )
    .unwrap();
    let report = json_of(&trajscope(
        &["stats", "--json", "--only-rules", only.to_str().unwrap()],
        &[&runs.a()],
        &config,
    ));
    let names: Vec<&str> = report["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["only"]);
    // "ok" is the observation of i20..i39, all unresolved.
    assert_eq!(rule(&report, "only")["unresolved"]["trajectories"], 20);
    assert_eq!(rule(&report, "only")["resolved"]["trajectories"], 0);
}

#[test]
fn labels_in_the_sidecar_count_like_rules() {
    let runs = Runs::new();
    let sidecar = json!({"trajscope_labels": 1, "labels": [
        {"trajectory": "i0.traj", "step": 1, "label": "wrong file localized"},
        {"trajectory": "i30.traj", "step": 1, "label": "wrong file localized"},
        {"trajectory": "i30.traj", "step": 2, "label": "wrong file localized"},
    ]});
    std::fs::write(runs.a().join(".trajscope-labels.json"), sidecar.to_string()).unwrap();
    let report = json_of(&trajscope(
        &["stats", "--json", "--by-trajectory"],
        &[&runs.a()],
        runs.dir.path(),
    ));
    let label = rule(&report, "wrong file localized");
    assert_eq!(label["kind"], "label");
    assert_eq!(
        (label["steps"].clone(), label["trajectories"].clone()),
        (json!(3), json!(2))
    );
    assert_eq!(label["resolved"]["steps"], 1);
    assert_eq!(label["unresolved"]["steps"], 2);
    let i30 = report["by_trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["instance_id"] == "i30")
        .unwrap();
    assert_eq!(i30["rules"]["wrong file localized"]["steps"], json!([1, 2]));
    // The sidecar is not taken for a log.
    assert!(report["unreadable"].as_array().unwrap().is_empty());
}

#[test]
fn csv_markdown_and_by_trajectory_views() {
    let runs = Runs::new();
    let csv =
        String::from_utf8(trajscope(&["stats", "--csv"], &[&runs.a()], runs.dir.path()).stdout)
            .unwrap();
    assert!(
        csv.starts_with("kind,name,matches,steps,trajectories,resolved_matches"),
        "{csv}"
    );
    assert!(
        csv.contains("\nrule,python_traceback,20,20,20,12,12,12,8,8,8,0,0,0\n"),
        "{csv}"
    );
    let md = String::from_utf8(
        trajscope(&["stats", "--markdown"], &[&runs.a()], runs.dir.path()).stdout,
    )
    .unwrap();
    assert!(
        md.contains("| python_traceback | 20 | 20 | 20 | 12 (100%) | 8 (29%) | - |"),
        "{md}"
    );
    // The chart after the table: trajectories with a match, resolved (█) stacked on
    // unresolved (▓), in a fenced block so GitHub keeps the columns.
    let chart = md
        .split("```text\n")
        .nth(1)
        .expect("a chart block")
        .split("```")
        .next()
        .unwrap();
    assert!(
        chart
            .lines()
            .next()
            .unwrap()
            .contains("█ resolved  ▓ unresolved"),
        "{chart}"
    );
    let bar = chart
        .lines()
        .find(|l| l.starts_with("python_traceback "))
        .expect("a bar per rule");
    let cells = |glyph| bar.chars().filter(|&c| c == glyph).count();
    assert!(bar.ends_with(" 20"), "{bar}");
    assert!(
        cells('█') > cells('▓') && cells('▓') > 0,
        "12 resolved over 8 unresolved: {bar}"
    );
    let rows = String::from_utf8(
        trajscope(
            &["stats", "--csv", "--by-trajectory"],
            &[&runs.a()],
            runs.dir.path(),
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(rows.lines().count(), 41);
    assert!(rows.lines().next().unwrap().starts_with(
        "instance,path,resolved,exit,steps,cost,tokens_in,tokens_out,patch_lines,syntax_error"
    ));
    let text =
        String::from_utf8(trajscope(&["stats"], &[&runs.a()], runs.dir.path()).stdout).unwrap();
    assert!(text.contains("resolved rate: 12/40 = 30.0%"), "{text}");
    assert!(text.contains("cost: total $20.00, mean $0.50"), "{text}");
}

#[test]
fn grep_lists_every_match_with_step_and_field() {
    let dir = tempfile::tempdir().unwrap();
    write_traj(
        dir.path(),
        "x",
        &[
            ("ls", "a.py"),
            (
                "python a.py",
                "Traceback (most recent call last):\n  File \"a.py\"\nValueError: bad",
            ),
        ],
    );
    let out = trajscope(&["grep", "ValueError"], &[dir.path()], dir.path());
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text,
        format!(
            "{}:2:observation:3:ValueError: bad\n",
            dir.path().join("x.traj").display()
        )
    );
    let out = trajscope(
        &[
            "grep",
            "--json",
            "-i",
            "-e",
            "^(ls|python)",
            "--field",
            "action",
        ],
        &[dir.path()],
        dir.path(),
    );
    let hits: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(hits.len(), 2);
    assert_eq!(
        (hits[1]["step"].clone(), hits[1]["match"].clone()),
        (json!(2), json!("python"))
    );
    let none = trajscope(&["grep", "nothing like this"], &[dir.path()], dir.path());
    assert_eq!(none.status.code(), Some(1));
    let bad = trajscope(&["grep", "-e", "("], &[dir.path()], dir.path());
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("invalid regex"));
}

#[test]
fn edit_and_submit_count_the_tool_style_agents_too() {
    // The Llama-style agent of the samples edits twice with edit_file(...) and ends with
    // finish(); Claude Code edits with its Edit tool and has no submit action.
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories");
    let config = tempfile::tempdir().unwrap();
    let llama = samples.join("llama");
    let claude = samples.join("claude-code");
    let report = json_of(&trajscope(&["stats", "--json"], &[&llama], config.path()));
    assert_eq!(rule(&report, "edit")["steps"], 2);
    assert_eq!(rule(&report, "submit")["steps"], 1);
    assert_eq!(rule(&report, "untested_edit")["trajectories"], 1);
    let report = json_of(&trajscope(&["stats", "--json"], &[&claude], config.path()));
    assert_eq!(rule(&report, "edit")["steps"], 2);
    assert_eq!(rule(&report, "submit")["steps"], 0);
}

/// `--dataset`: localization against gold patches, on the sample run. The gold patch of
/// tinycalc-1 edits the evaluator, that of tinycalc-2 the tokenizer; each trajectory's verdict
/// must follow from the files its own submitted patch names.
#[test]
fn dataset_localization_counts_patches_that_edit_the_gold_files() {
    let dir = tempfile::tempdir().unwrap();
    let gold = |id: &str, file: &str| {
        json!({"instance_id": id, "patch": format!(
            "diff --git a/{file} b/{file}\n--- a/{file}\n+++ b/{file}\n@@ -1 +1 @@\n-a\n+b\n"
        )})
        .to_string()
    };
    let dataset = dir.path().join("dataset.jsonl");
    std::fs::write(
        &dataset,
        [
            gold("tinycalc__tinycalc-1", "tinycalc/evaluator.py"),
            gold("tinycalc__tinycalc-2", "tinycalc/tokenizer.py"),
        ]
        .join("\n"),
    )
    .unwrap();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories");
    let dataset_arg = dataset.to_str().unwrap();
    let report = json_of(&trajscope(
        &[
            "stats",
            "--json",
            "--by-trajectory",
            "--no-cache",
            "--dataset",
            dataset_arg,
        ],
        &[&samples],
        dir.path(),
    ));
    let l = &report["localization"];
    let rows = l["by_trajectory"].as_array().unwrap();
    assert_eq!(
        rows.len() as u64,
        l["with_gold"]["trajectories"].as_u64().unwrap()
    );
    assert_eq!(
        l["with_gold"]["trajectories"].as_u64().unwrap() + l["without_gold"].as_u64().unwrap(),
        report["trajectories"].as_u64().unwrap()
    );
    let mut any = 0;
    for row in rows {
        let gold_file = if row["instance_id"] == "tinycalc__tinycalc-1" {
            "tinycalc/evaluator.py"
        } else {
            "tinycalc/tokenizer.py"
        };
        let edits_gold = row["agent_files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == gold_file);
        assert_eq!(row["any"], edits_gold, "{row}");
        any += u64::from(edits_gold);
    }
    assert_eq!(l["any"]["trajectories"].as_u64().unwrap(), any);
    assert!(any > 0, "some sample patches edit the gold file");
    // The SWE-agent sample fixes the evaluator; the CodeR one only wrote a reproduction.
    let by_path = |part: &str| {
        rows.iter()
            .find(|r| r["path"].as_str().unwrap().contains(part))
            .unwrap()
    };
    assert_eq!(by_path("/swe-agent/")["any"], true);
    assert_eq!(by_path("/swe-agent-coder/")["any"], false);

    let text = String::from_utf8(
        trajscope(
            &["stats", "--dataset", dataset_arg],
            &[&samples],
            dir.path(),
        )
        .stdout,
    )
    .unwrap();
    assert!(text.contains("Localization (gold patches of"), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("patch edits a gold file"))
        .expect("a localization row");
    assert!(line.contains(&format!(" {any} (")), "{line}");

    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"instance_id\": \"x\"}\nnot json\n").unwrap();
    let out = trajscope(
        &["stats", "--dataset", bad.to_str().unwrap()],
        &[&samples],
        dir.path(),
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.jsonl") && err.contains("line 2"), "{err}");
}
