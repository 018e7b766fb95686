//! The working-tree reconstruction against real submissions: on SWE-agent (CodeR) and
//! mini-swe-agent runs from the shared corpus, the files whose edits the log shows must add
//! up to the submitted patch. Skips when the corpus is absent.

#[path = "support/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};
use trajscope::diff::{Agreement, EditStatus, Reconstruction, check_submission};
use trajscope::formats::{Loaded, load_file};
use trajscope::model::Trajectory;

fn load(path: &Path) -> Trajectory {
    match load_file(path) {
        Ok(Loaded::Trajectories(mut ts)) if !ts.is_empty() => ts.remove(0),
        other => panic!("{}: not a trajectory: {other:?}", path.display()),
    }
}

fn trajectories(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[derive(Default, Debug)]
struct Tally {
    trajectories: usize,
    agrees: usize,
    differs: usize,
    unknown: usize,
    not_submitted: usize,
    not_in_log: usize,
    uninterpreted: usize,
    edits: usize,
}

fn tally(paths: &[PathBuf], verbose: bool) -> Tally {
    let mut t = Tally::default();
    for path in paths {
        let traj = load(path);
        let r = Reconstruction::of(&traj);
        for k in 1..=r.steps() {
            for e in r.step_edits(k) {
                t.edits += 1;
                if matches!(e.status, EditStatus::Uninterpreted(_)) {
                    t.uninterpreted += 1;
                }
            }
        }
        let Some(check) = check_submission(&traj, &r) else {
            continue;
        };
        t.trajectories += 1;
        for f in &check.files {
            match &f.agreement {
                Agreement::Agrees => t.agrees += 1,
                Agreement::Differs(why) => {
                    t.differs += 1;
                    if verbose {
                        eprintln!("DIFFERS {} {}: {why}", path.display(), f.path);
                    }
                }
                Agreement::Unknown(why) => {
                    t.unknown += 1;
                    if verbose {
                        eprintln!("unknown {} {}: {why}", path.display(), f.path);
                    }
                }
                Agreement::NotSubmitted => t.not_submitted += 1,
                Agreement::NotInLog => t.not_in_log += 1,
            }
        }
    }
    t
}

#[test]
fn coder_swe_agent_reconstruction_agrees_with_submissions() {
    let Some(dir) = corpus::corpus("coder-swebench-lite/trajs") else {
        return;
    };
    let t = tally(
        &trajectories(&dir, ".traj"),
        std::env::var_os("TRAJSCOPE_VERBOSE").is_some(),
    );
    eprintln!("coder-swebench-lite: {t:?}");
    assert!(t.trajectories > 50);
    // Every file whose edits the log shows must add up to what was submitted.
    assert_eq!(t.differs, 0, "{t:?}");
    assert!(t.agrees * 10 >= (t.agrees + t.unknown) * 9, "{t:?}");
    assert_eq!(t.uninterpreted, 0, "{t:?}");
}

#[test]
fn coder_django_11133_response_py_agrees_after_three_rewrites() {
    let Some(path) = corpus::corpus("coder-swebench-lite/trajs/django__django-11133.traj") else {
        return;
    };
    let traj = load(&path);
    let r = Reconstruction::of(&traj);
    // Steps 16, 23 and 27 rewrite `make_bytes` (indented, dedented, re-indented).
    let edited: Vec<usize> = r
        .editing_steps()
        .into_iter()
        .filter(|&k| {
            r.step_edits(k)
                .iter()
                .any(|e| e.path.as_deref() == Some("django/http/response.py"))
        })
        .collect();
    assert_eq!(edited, vec![16, 23, 27]);
    let check = check_submission(&traj, &r).unwrap();
    let f = check
        .files
        .iter()
        .find(|f| f.path == "django/http/response.py")
        .unwrap();
    assert_eq!(f.agreement, Agreement::Agrees);
    let reproduce = check
        .files
        .iter()
        .find(|f| f.path == "reproduce.py")
        .unwrap();
    assert_eq!(reproduce.agreement, Agreement::NotSubmitted);
}

#[test]
fn mini_swe_agent_reconstruction_never_contradicts_what_it_saw() {
    let Some(dir) = corpus::corpus("mini-swe-agent/gpt-5-mini-swebench-verified-run") else {
        return;
    };
    let t = tally(
        &trajectories(&dir, ".traj.json"),
        std::env::var_os("TRAJSCOPE_VERBOSE").is_some(),
    );
    eprintln!("gpt-5-mini: {t:?}");
    assert!(t.trajectories > 10);
    // Scripts that rewrite files make many files unknown, but never a wrong verdict.
    assert_eq!(t.differs, 0, "{t:?}");
    assert!(t.agrees > 0, "{t:?}");
}
