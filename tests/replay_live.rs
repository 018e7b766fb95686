//! `trajscope replay` end to end against the real small model (SmolLM2-135M behind
//! llama-cpp-python, started by `scripts/live-model.sh`; `.ci/run` does it):
//!
//! - resampling step 3 of the mini-swe-agent sample writes a fork that loads;
//! - `--continue --workspace <the sample repository>` replays steps 1-2 without divergence
//!   (in bubblewrap, the default), then the live model acts until it submits or `--max-steps` stops it; the fork loads,
//!   `trajscope stats` over its folder counts it, and `trajscope diff` shows where it leaves
//!   the original.
//!
//! Reads the base URL from `TRAJSCOPE_LIVE_MODEL_URL` and skips, saying so, when it is unset.
//! A 135M model acts badly; these tests check that the loop copes, not what the model says.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use trajscope::formats::{Loaded, load_file};
use trajscope::model::{Format, Trajectory};

fn live_url() -> Option<String> {
    match std::env::var("TRAJSCOPE_LIVE_MODEL_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            eprintln!(
                "skipping: TRAJSCOPE_LIVE_MODEL_URL is not set (start the model with scripts/live-model.sh start)"
            );
            None
        }
    }
}

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

const MINI: &str = "mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json";

fn load(path: &Path) -> Trajectory {
    match load_file(path) {
        Ok(Loaded::Trajectories(mut t)) => t.remove(0),
        _ => panic!("{} does not load", path.display()),
    }
}

fn trajscope(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_trajscope"));
    cmd.env("XDG_CONFIG_HOME", dir.join("no-config"));
    cmd
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The parent in a folder of its own, so the forks land there.
fn parent_in(dir: &Path) -> PathBuf {
    let runs = dir.join("run");
    std::fs::create_dir_all(&runs).unwrap();
    let parent = runs.join("tinycalc__tinycalc-1.traj.json");
    std::fs::copy(samples().join(MINI), &parent).unwrap();
    parent
}

#[test]
fn resampling_step_3_against_the_live_model_writes_a_fork() {
    let Some(url) = live_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let parent = parent_in(dir.path());
    let out = trajscope(dir.path())
        .arg("replay")
        .arg(&parent)
        .args(["--step", "3", "--base-url", &url, "--model", "smollm2"])
        .args(["--temperature", "0", "--max-tokens", "48", "--json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(json["exactness"], "exact");
    let run = &json["runs"][0];
    assert_eq!(run["status"], "Resampled");
    assert!(!run["text"].as_str().unwrap().is_empty());
    let fork = load(Path::new(json["fork_path"].as_str().unwrap()));
    assert_eq!(fork.format, Format::Trajscope);
    assert_eq!(fork.steps.len(), 3);
    let origin = fork.fork.as_ref().unwrap();
    assert_eq!((origin.step, origin.model.as_deref()), (3, Some("smollm2")));
    // The live step's context is what was sent: the log's six messages before step 3.
    assert_eq!(fork.steps[2].context_messages(&fork.messages).len(), 6);
}

#[test]
fn continuing_from_step_3_replays_the_prefix_then_the_model_acts() {
    let Some(url) = live_url() else { return };
    let dir = tempfile::tempdir().unwrap();
    let parent = parent_in(dir.path());
    let workspace = dir.path().join("tinycalc");
    let prepared = Command::new("python3")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/record-samples.py"))
        .arg("--prepare-workspace")
        .arg(&workspace)
        .output()
        .unwrap();
    ok(&prepared);
    let out = trajscope(dir.path())
        .arg("replay")
        .arg(&parent)
        .args(["--step", "3", "--continue", "--yes", "--workspace"])
        .arg(&workspace)
        .args(["--base-url", &url, "--model", "smollm2"])
        .args([
            "--temperature",
            "0",
            "--max-tokens",
            "64",
            "--max-steps",
            "2",
        ])
        .arg("--json")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let json: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    let run = &json["runs"][0];
    // The recorded prefix replays exactly.
    let prefix = run["prefix"]["steps"].as_array().unwrap();
    assert_eq!(prefix.len(), 2);
    assert!(prefix.iter().all(|s| s["outcome"] == "same"), "{prefix:?}");
    assert!(run["prefix"]["first_divergence"].is_null());
    // The model acted, and the loop ended by a limit or a submission, recorded in the fork.
    let outcome = &run["outcome"];
    let status = outcome["status"].as_str().unwrap();
    assert!(
        ["Submitted", "LimitsExceeded", "BackendError"].contains(&status),
        "{outcome}"
    );
    let steps = outcome["steps"].as_u64().unwrap();
    assert!((1..=2).contains(&steps), "{outcome}");
    let fork_path = PathBuf::from(json["fork_path"].as_str().unwrap());
    assert_eq!(fork_path.parent(), parent.parent());
    let fork = load(&fork_path);
    assert_eq!(fork.exit_status.as_deref(), Some(status));
    // It ran in bubblewrap, the default.
    let origin = fork.fork.as_ref().unwrap();
    let environment = origin.settings["environment"].as_str().unwrap_or("");
    assert!(environment.contains("sandbox: bubblewrap"), "{environment}");
    assert_eq!(fork.steps.len(), 2 + steps as usize);
    let native = load(Path::new(run["native_path"].as_str().unwrap()));
    assert_eq!(native.format, Format::MiniSweAgent);

    // stats over the folder counts the parent and the fork (not the native copy).
    let out = trajscope(dir.path())
        .arg("stats")
        .arg(parent.parent().unwrap())
        .arg("--json")
        .output()
        .unwrap();
    let stats: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(stats["trajectories"], 2);
    assert_eq!(
        stats["exit_statuses"][status], 1,
        "{}",
        stats["exit_statuses"]
    );

    // diff shows where the fork leaves the original: at step 3 at the earliest.
    let out = trajscope(dir.path())
        .arg("diff")
        .arg(&parent)
        .arg(&fork_path)
        .output()
        .unwrap();
    let text = ok(&out);
    let line = text
        .lines()
        .find(|l| l.contains("First divergence"))
        .unwrap_or_else(|| panic!("{text}"));
    let a_step: usize = line
        .split("A step ")
        .nth(1)
        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(a_step >= 3, "{line}");
}
