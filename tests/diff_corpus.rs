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
    assert!(t.agrees > t.differs + t.unknown, "{t:?}");
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
}
