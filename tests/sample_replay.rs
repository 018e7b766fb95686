//! The recorded mini-swe-agent sample replays: each of its commands, run as mini-swe-agent
//! runs them (bash in the repository root, stderr into stdout) in a fresh git copy of
//! sample-trajectories/repo, prints exactly the observation the trajectory recorded. This is
//! what `trajscope replay --continue --workspace` relies on, and it fails when someone edits
//! the sample repository without re-recording (`scripts/record-samples.py`).
//!
//! Needs bash, git and python3; skips (saying so) without them. The sample was recorded with
//! Python 3.11: under another version only the wording of the SyntaxError step may differ,
//! so that step is then checked for the error, not byte for byte.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use trajscope::formats::{Loaded, load_file};

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

fn available(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "__pycache__" {
                copy_tree(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A command in the replay environment: no user or system git config (it changes what
/// `git diff` prints), a fixed locale and a scratch home.
fn command(home: &Path, dir: &Path, program: &str) -> Command {
    let mut cmd = Command::new(program);
    cmd.current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("LANG", "C.UTF-8")
        .env("LC_ALL", "C.UTF-8")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "tinycalc")
        .env("GIT_AUTHOR_EMAIL", "dev@tinycalc.invalid")
        .env("GIT_COMMITTER_NAME", "tinycalc")
        .env("GIT_COMMITTER_EMAIL", "dev@tinycalc.invalid");
    // pyenv and similar shims find their installation through these.
    for var in ["PYENV_ROOT", "PYENV_VERSION"] {
        if let Some(value) = std::env::var_os(var) {
            cmd.env(var, value);
        }
    }
    cmd
}

fn python_is_3_11(home: &Path, dir: &Path) -> bool {
    let out = command(home, dir, "python3")
        .args(["-c", "import sys; print(sys.version_info[:2] == (3, 11))"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "True"
}

#[test]
fn the_recorded_commands_print_the_recorded_observations_in_a_fresh_copy() {
    if !(available("bash") && available("git") && available("python3")) {
        eprintln!("skipping: bash, git and python3 are needed to replay the sample");
        return;
    }
    let rel = "mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json";
    let Ok(Loaded::Trajectories(mut loaded)) = load_file(&samples().join(rel)) else {
        panic!("{rel} does not load");
    };
    let trajectory = loaded.remove(0);

    let scratch = tempfile::tempdir().unwrap();
    let repo = scratch.path().join("tinycalc");
    copy_tree(&samples().join("repo"), &repo);
    for args in [
        &["-c", "init.defaultBranch=main", "init", "-q"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "tinycalc 0.1.0"],
    ] {
        let status = command(scratch.path(), &repo, "git")
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }
    let exact = python_is_3_11(scratch.path(), &repo);

    let last = trajectory.steps.len();
    for step in &trajectory.steps {
        let out = command(scratch.path(), &repo, "bash")
            .arg("-c")
            .arg(format!("exec 2>&1\n{}", step.action))
            .output()
            .unwrap();
        let output = String::from_utf8_lossy(&out.stdout);
        let code = out.status.code().unwrap();
        let replayed = if step.index == last {
            // The submit command's output minus its first line is the submission.
            output
                .split_once('\n')
                .map(|(_, rest)| rest.to_string())
                .unwrap()
        } else {
            format!("<returncode>{code}</returncode>\n<output>\n{output}</output>")
        };
        if !exact && step.observation.contains("SyntaxError") {
            assert!(
                replayed.contains("SyntaxError"),
                "step {}: {replayed}",
                step.index
            );
            assert_eq!(step.exit_code, Some(i64::from(code)), "step {}", step.index);
            continue;
        }
        assert_eq!(
            replayed, step.observation,
            "step {} diverged: {}",
            step.index, step.action
        );
    }
    assert_eq!(
        trajectory.submission.as_deref(),
        Some(trajectory.steps[last - 1].observation.as_str())
    );
}
