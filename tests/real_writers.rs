//! The newest releases of mini-swe-agent, Inspect AI and Aider, run for real against the
//! small local model (`scripts/real-writers.sh run DIR`, which `.ci/run` calls): trajscope
//! reads every log they wrote, with the model calls, token totals and exit each log itself
//! records (as the writer's own reader or conventions count them, in DIR/manifest.json).
//! A failure names the writer and its version. Skipped when TRAJSCOPE_REAL_WRITERS_DIR is
//! unset (a fresh `cargo test` needs no network and no model), unless
//! `TRAJSCOPE_REQUIRE_REAL_WRITERS=1` (set by `.ci/run`) makes that a failure: under CI a
//! writer that could not be installed or run fails the test, it is never skipped.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use trajscope::formats::{Loaded, load_file};
use trajscope::model::{StepKind, Trajectory};

/// Every run `scripts/real_writers/run.py` makes, as (writer, config): a run missing from the
/// manifest fails the test, so that a writer dropped from the script cannot pass unnoticed.
const RUNS: [(&str, &str); 6] = [
    ("mini-swe-agent", "mini.yaml"),
    ("mini-swe-agent", "mini_textbased.yaml"),
    ("inspect-ai", "--log-format eval"),
    ("inspect-ai", "--log-format json"),
    ("aider-chat", "--edit-format diff"),
    ("aider-chat", "--edit-format whole"),
];

fn required() -> bool {
    std::env::var("TRAJSCOPE_REQUIRE_REAL_WRITERS").as_deref() == Ok("1")
}

fn dir() -> Option<PathBuf> {
    match std::env::var_os("TRAJSCOPE_REAL_WRITERS_DIR") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            assert!(
                !required(),
                "TRAJSCOPE_REQUIRE_REAL_WRITERS=1 but TRAJSCOPE_REAL_WRITERS_DIR is not set \
                 (scripts/real-writers.sh run DIR writes it)"
            );
            eprintln!(
                "skipped: TRAJSCOPE_REAL_WRITERS_DIR is not set (see scripts/real-writers.sh)"
            );
            None
        }
    }
}

/// The manifest the writers' run left; its absence means they could not run at all.
fn manifest(dir: &Path) -> Vec<Value> {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!(
            "the real writers did not run: {}: {err} (their console output and \
             scripts/real-writers.sh's log say why)",
            path.display()
        )
    });
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// What trajscope reads of a log, in the manifest's terms.
fn figures(t: &Trajectory) -> Value {
    let usage = t.total_usage();
    let calls = t.steps.iter().filter(|s| s.kind == StepKind::Agent).count();
    serde_json::json!({
        "model_calls": calls,
        "tokens_in": usage.tokens_in.unwrap_or(0),
        "tokens_out": usage.tokens_out.unwrap_or(0),
        "exit": t.exit_status,
    })
}

fn load(path: &Path) -> Result<Vec<Trajectory>, String> {
    match load_file(path) {
        Ok(Loaded::Trajectories(ts)) => Ok(ts),
        Ok(Loaded::Results(_)) => Err("read as eval results".into()),
        Err(err) => Err(err.to_string()),
    }
}

#[test]
fn trajscope_reads_what_the_newest_writers_wrote() {
    let Some(dir) = dir() else {
        return;
    };
    let manifest = manifest(&dir);
    let mut failures = Vec::new();
    for (writer, config) in RUNS {
        if !manifest
            .iter()
            .any(|e| e["writer"] == writer && e["config"] == config)
        {
            failures.push(format!(
                "{writer} ({config}): not run (missing from the manifest)"
            ));
        }
    }
    for entry in &manifest {
        let who = format!(
            "{} {} ({})",
            entry["writer"].as_str().unwrap_or("?"),
            entry["version"].as_str().unwrap_or("?"),
            entry["config"].as_str().unwrap_or("")
        );
        let files: Vec<PathBuf> = entry["files"]
            .as_array()
            .map(|f| {
                f.iter()
                    .filter_map(Value::as_str)
                    .map(PathBuf::from)
                    .collect()
            })
            .unwrap_or_default();
        if files.is_empty() {
            let why = entry["error"].as_str().map_or_else(
                || format!("exit code {}; console in {}", entry["code"], dir.display()),
                str::to_owned,
            );
            failures.push(format!("{who}: wrote no log ({why})"));
            continue;
        }
        let Some(expected) = entry["expected"].as_array() else {
            failures.push(format!(
                "{who}: its own figures could not be read: {}",
                entry["error"]
            ));
            continue;
        };
        let mut read = Vec::new();
        for file in &files {
            match load(file) {
                Ok(ts) => read.extend(ts),
                Err(err) => failures.push(format!("{who}: {err}")),
            }
        }
        if read.len() != expected.len() {
            failures.push(format!(
                "{who}: {} trajectories read, the log holds {}",
                read.len(),
                expected.len()
            ));
            continue;
        }
        for (t, want) in read.iter().zip(expected) {
            let got = figures(t);
            for key in ["model_calls", "tokens_in", "tokens_out", "exit"] {
                // A log that records no exit (Aider) leaves trajscope's reading free.
                if key == "exit" && want[key].is_null() {
                    continue;
                }
                if got[key] != want[key] {
                    failures.push(format!(
                        "{who}: {} {key}: trajscope reads {}, the log records {}",
                        t.display_source(),
                        got[key],
                        want[key]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
