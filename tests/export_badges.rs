//! `trajscope export` tags each step with the rules it matched and the labels saved for the
//! run, exactly as the TUI's export does (both build the tags with `present::StepBadges`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/cli.rs"]
mod cli;

use serde_json::{Value, json};
use std::path::Path;

/// A run folder `run/` holding `sub/x.traj`: a listing, then a traceback.
fn write_run(root: &Path) -> std::path::PathBuf {
    let sub = root.join("run/sub");
    std::fs::create_dir_all(&sub).unwrap();
    let steps: Vec<Value> = [
        ("ls", "a.py"),
        (
            "python a.py",
            "Traceback (most recent call last):\n  File \"a.py\"\nValueError: bad",
        ),
    ]
    .iter()
    .map(|(a, o)| json!({"action": a, "observation": o, "response": "", "thought": "", "state": "{}"}))
    .collect();
    let doc = json!({"trajectory": steps, "history": [], "info": {"exit_status": "submitted"}});
    let file = sub.join("x.traj");
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    let sidecar = json!({"trajscope_labels": 1, "labels": [
        {"trajectory": "sub/x.traj", "step": 1, "label": "looked around"},
    ]});
    std::fs::write(root.join("run/.trajscope-labels.json"), sidecar.to_string()).unwrap();
    file
}

fn export(file: &Path, config: &Path, extra: &[&str]) -> String {
    cli::stdout_of(
        cli::trajscope()
            .arg("export")
            .arg(file)
            .args(extra)
            .env("XDG_CONFIG_HOME", config),
    )
}

#[test]
fn html_export_tags_steps_with_matched_rules_and_labels() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_run(dir.path());
    let html = export(&file, dir.path(), &["--html"]);
    let step2 = &html[html.find("id=\"step-2\"").unwrap()..];
    assert!(
        step2.contains("<span class=\"rule\">python_traceback</span>"),
        "{step2}"
    );
    let step1 = &html[html.find("id=\"step-1\"").unwrap()..html.find("id=\"step-2\"").unwrap()];
    assert!(
        step1.contains("<span class=\"rule\">label: looked around</span>"),
        "{step1}"
    );
    assert!(!step1.contains("python_traceback"), "{step1}");
}

#[test]
fn markdown_export_lists_the_rules_and_only_rules_replaces_them() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_run(dir.path());
    let md = export(&file, dir.path(), &["--markdown"]);
    assert!(md.contains("**Rules matched:**"), "{md}");
    assert!(md.contains("`python_traceback`"), "{md}");
    let mine = dir.path().join("mine.toml");
    std::fs::write(
        &mine,
        "[[rule]]\nname = \"listed\"\nfield = \"action\"\npattern = \"ls\"\n",
    )
    .unwrap();
    let md = export(
        &file,
        dir.path(),
        &["--markdown", "--only-rules", mine.to_str().unwrap()],
    );
    assert!(md.contains("`listed`"), "{md}");
    assert!(!md.contains("python_traceback"), "{md}");
}
