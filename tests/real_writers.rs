//! The newest releases of mini-swe-agent, Inspect AI and Aider, run for real against the
//! small local model (`scripts/real-writers.sh run DIR`, which `.ci/run` calls): trajscope
//! reads every log they wrote, with the model calls, token totals and exit each log itself
//! records (as the writer's own reader or conventions count them, in DIR/manifest.json).
//! A failure names the writer and its version. Skipped when TRAJSCOPE_REAL_WRITERS_DIR is
//! unset: a fresh `cargo test` needs no network and no model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use trajscope::formats::{Loaded, load_file};
use trajscope::model::{StepKind, Trajectory};

fn dir() -> Option<PathBuf> {
    match std::env::var_os("TRAJSCOPE_REAL_WRITERS_DIR") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => {
            eprintln!(
                "skipped: TRAJSCOPE_REAL_WRITERS_DIR is not set (see scripts/real-writers.sh)"
            );
            None
        }
    }
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
    let manifest: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let mut failures = Vec::new();
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
            failures.push(format!(
                "{who}: wrote no log (exit code {}; console in {})",
                entry["code"],
                dir.display()
            ));
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
