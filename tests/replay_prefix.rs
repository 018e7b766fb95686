//! Prefix replay end to end: real bash, real git copies, real trajectories.
//!
//! - the project's mini-swe-agent sample, recorded against sample-trajectories/repo, replays
//!   without divergence in a scratch copy (and diverges, with a diff, when the copy is not
//!   the starting state);
//! - a real SWE-agent run from the shared corpus (SWE-agent's own test-repo trajectory)
//!   replays on the repository rebuilt from what its observations show, down to the blob
//!   hashes in the submitted patch;
//! - a dry run of a real SWE-agent demonstration whose repository is not available.
//!
//! Needs bash, git and python3; skips (saying so) without them, and without the corpus for
//! the corpus tests.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};
use std::process::Command;
use trajscope::formats::{Loaded, load_file};
use trajscope::model::Trajectory;
use trajscope::replay::{
    Dialect, Executor, Limits, PrefixOptions, PrefixReport, Sandbox, StepOutcome, Workspace,
    detect_root, plan, replay_prefix,
};

fn available(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn tools_available() -> bool {
    let ok = available("bash") && available("git") && available("python3");
    if !ok {
        eprintln!("skipping: bash, git and python3 are needed to replay");
    }
    ok
}

fn load(path: &Path) -> Trajectory {
    match load_file(path) {
        Ok(Loaded::Trajectories(mut t)) => t.remove(0),
        _ => panic!("{} does not load", path.display()),
    }
}

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "sample-trajectories/mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json",
    )
}

/// The sample repository at its starting state, as the samples' script prepares it.
fn sample_workspace(scratch: &Path) -> PathBuf {
    let dir = scratch.join("tinycalc");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/record-samples.py");
    let out = Command::new("python3")
        .arg(script)
        .arg("--prepare-workspace")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn python_is_3_11() -> bool {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.version_info[:2] == (3, 11))"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "True"
}

fn replay_all(t: &Trajectory, workspace: Workspace) -> PrefixReport {
    let dialect = Dialect::of(t);
    let root = dialect.recorded_root(t).map(|g| g.path);
    let mut exec = Executor::new(
        dialect,
        Sandbox::Scratch(workspace),
        root.as_deref(),
        Limits::default(),
    )
    .unwrap();
    replay_prefix(
        t,
        t.steps.len() + 1,
        &mut exec,
        PrefixOptions::default(),
        &mut |_| {},
    )
    .unwrap()
}

fn print(report: &PrefixReport) {
    for s in &report.steps {
        let outcome = match &s.outcome {
            StepOutcome::Same => "same".to_string(),
            StepOutcome::Differs { diff } => format!("DIFFERS\n{diff}"),
            StepOutcome::NotReplayable { why } => format!("not replayable: {why}"),
            StepOutcome::NoAction => "no action".into(),
        };
        eprintln!(
            "step {:>2}  {:<60}  {outcome}",
            s.step,
            s.action.chars().take(60).collect::<String>()
        );
    }
}

#[test]
fn the_sample_prefix_replays_without_divergence() {
    if !tools_available() {
        return;
    }
    let t = load(&sample());
    let scratch = tempfile::tempdir().unwrap();
    let repo = sample_workspace(scratch.path());
    let report = replay_all(&t, Workspace::create(&repo).unwrap());
    print(&report);
    assert_eq!(report.steps.len(), t.steps.len());
    assert!(report.submitted, "the last step submits");
    let exact = python_is_3_11();
    for s in &report.steps {
        match &s.outcome {
            StepOutcome::Same => {}
            // Only the SyntaxError's caret line is worded by the Python version.
            StepOutcome::Differs { diff } if !exact => {
                assert!(
                    s.replayed.contains("SyntaxError"),
                    "step {}: {diff}",
                    s.step
                )
            }
            other => panic!("step {}: {other:?}", s.step),
        }
    }
    if exact {
        assert_eq!(report.first_divergence, None);
    }
}

#[test]
fn a_changed_starting_state_is_the_first_divergence() {
    if !tools_available() {
        return;
    }
    let t = load(&sample());
    let scratch = tempfile::tempdir().unwrap();
    let repo = sample_workspace(scratch.path());
    let ws = Workspace::create(&repo).unwrap();
    // The bug is already fixed in this copy: the agent's reproduction prints other numbers.
    let evaluator = ws.root().join("tinycalc/evaluator.py");
    let text = std::fs::read_to_string(&evaluator).unwrap();
    std::fs::write(&evaluator, text.replace("value // right", "value / right")).unwrap();
    let report = replay_all(&t, ws);
    print(&report);
    let first = report.first_divergence.expect("a divergence");
    let step = &report.steps[first - 1];
    assert_eq!(step.outcome, report.steps[first - 1].outcome);
    let StepOutcome::Differs { diff } = &step.outcome else {
        panic!("{:?}", step.outcome)
    };
    // Step 2 shows the evaluator's source; the fixed line is the difference.
    assert_eq!(first, 2, "{diff}");
    assert!(
        diff.contains("-    34\t            value = value // right"),
        "{diff}"
    );
    assert!(
        diff.contains("+    34\t            value = value / right"),
        "{diff}"
    );
    // The user's repository was not touched.
    assert!(
        std::fs::read_to_string(repo.join("tinycalc/evaluator.py"))
            .unwrap()
            .contains("value // right")
    );
}

/// SWE-agent's test-repo run (`find_file`, `open`, `edit`, `python3`, `submit`): the
/// repository is rebuilt from the file its `open` observation shows in full (mode 755, as the
/// submitted patch says), and every observation replays, the patch's blob hashes included.
#[test]
fn a_real_swe_agent_run_replays_on_its_reconstructed_repository() {
    let Some(dir) = corpus::corpus("swe-agent") else {
        return;
    };
    if !tools_available() {
        return;
    }
    let path = dir.join("tests/test_data/trajectories/gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/6e44b9__sweagenttestrepo-1c2844.traj");
    let t = load(&path);
    let scratch = tempfile::tempdir().unwrap();
    let repo = scratch.path().join("SWE-agent__test-repo");
    std::fs::create_dir_all(repo.join("tests")).unwrap();
    let file = repo.join("tests/missing_colon.py");
    std::fs::write(
        &file,
        "#!/usr/bin/env python3\n\n\ndef division(a: float, b: float) -> float\n    return a/b\n\n\nif __name__ == \"__main__\":\n    print(division(123, 15))\n\n",
    )
    .unwrap();
    let status = Command::new("bash")
        .arg("-c")
        .arg("chmod 755 tests/missing_colon.py && git init -q . && git add -A && git -c user.name=t -c user.email=t@e commit -q -m init")
        .current_dir(&repo)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(detect_root(&t).unwrap().path, "/SWE-agent__test-repo");
    let report = replay_all(&t, Workspace::create(&repo).unwrap());
    print(&report);
    assert_eq!(report.steps.len(), 5);
    for s in &report.steps {
        assert_eq!(
            s.outcome,
            StepOutcome::Same,
            "step {}: {}",
            s.step,
            s.replayed
        );
    }
    assert!(
        report.steps[4]
            .replayed
            .contains("index 20edef5..5857437 100755")
    );
    assert!(report.submitted);
}

/// The 0.x marshmallow demonstration, whose repository is not here: which steps native tools
/// would replay, which need only the files, which need the original environment.
#[test]
fn dry_run_of_a_swe_agent_demonstration_without_its_repository() {
    let Some(dir) = corpus::corpus("swe-agent") else {
        return;
    };
    let path = dir.join("trajectories/demonstrations/replay__marshmallow-code__marshmallow-1867__default__t-0.20__p-0.95__c-2.00__install-1___install_from_source/marshmallow-code__marshmallow-1867.traj");
    let t = load(&path);
    let dialect = Dialect::of(&t);
    assert_eq!(
        detect_root(&t).unwrap().path,
        "/marshmallow-code__marshmallow"
    );
    let steps = plan(&t, &dialect, t.steps.len() + 1);
    for s in &steps {
        eprintln!(
            "step {:>2}  {:<45}  {}",
            s.step,
            s.action.chars().take(45).collect::<String>(),
            s.how
        );
    }
    let how: Vec<&str> = steps.iter().map(|s| s.how.as_str()).collect();
    assert_eq!(how[0], "shell: plain tools"); // ls -F
    assert_eq!(how[1], "native: open");
    assert!(how[2].starts_with("shell: needs the environment (pip")); // pip install -e .[dev]
    assert_eq!(how[3], "native: create");
    assert_eq!(how[4], "native: edit");
    assert!(how[5].starts_with("shell: needs the environment (python"));
    assert_eq!(how[7], "native: find_file");
    assert_eq!(how[13], "native: submit");
    assert!(steps.iter().all(|s| s.needs_repository));
    assert_eq!(steps.iter().filter(|s| s.needs_environment).count(), 3);
}

/// CodeR (a multi-agent SWE-agent 0.x fork) documents commands of its own: they are reported
/// as not replayable instead of being run as unknown shell commands.
#[test]
fn dry_run_marks_an_agents_own_commands() {
    let Some(dir) = corpus::corpus("coder-swebench-lite") else {
        return;
    };
    let t = load(&dir.join("trajs/django__django-11133.traj"));
    let steps = plan(&t, &Dialect::of(&t), t.steps.len() + 1);
    let blocked: Vec<&str> = steps
        .iter()
        .filter(|s| s.how.starts_with("not replayable"))
        .map(|s| s.action.split_whitespace().next().unwrap_or(""))
        .collect();
    assert!(
        blocked.contains(&"plan") && blocked.contains(&"succeed"),
        "{blocked:?}"
    );
    assert!(steps.iter().any(|s| s.how == "native: edit"));
}
