//! The follower against writers at full speed, on the bundled samples of six formats: a
//! reader refreshes as fast as it can while a writer
//! - rewrites a SWE-agent `.traj` (1.1, 1.0, 0.x: `history` and `info` growing too) /
//!   mini-swe-agent `.traj.json` / OpenHands event list after every step, not atomically
//!   (truncate, half the document, the rest), with the versions of `support/writers.rs`;
//! - appends a Claude Code session / a JSONL chat log in random-sized pieces (half lines);
//! - deletes the file and writes it again; renames it away and starts a new one (rotation).
//!
//! Every state the reader sees must be one the writer meant (never a torn parse: the steps
//! shown are the final file's steps, the last one possibly still incomplete), steps once
//! shown are never lost, and the reader ends exactly equal to loading the final file from
//! scratch.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/writers.rs"]
mod writers;

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use trajscope::formats::{Loaded, load_file};
use trajscope::model::Trajectory;
use trajscope::watch::{FileStatus, FollowedFile, TrajectoryPrint};
use writers::{
    Lcg, SweAgentVersion, mini_versions, openhands_versions, sample, swe_agent_versions,
};

fn load(path: &Path) -> Vec<Trajectory> {
    match load_file(path).unwrap() {
        Loaded::Trajectories(ts) => ts,
        Loaded::Results(_) => panic!("not trajectories"),
    }
}

/// How the reader may see the file: the steps before the last are final; the last may still
/// be completing (a response whose tool result is on the next line).
#[derive(Clone, Copy, PartialEq)]
enum Strictness {
    /// Rewritten files: every version's steps are exactly the final's first steps.
    Prefix,
    /// Appended files: the last step shown may be completed later.
    PrefixButLast,
}

/// Refreshes `path` in a loop until `done`, checking each state seen against `expected`;
/// then refreshes until the file is read whole and returns the follower.
fn follow(
    path: &Path,
    expected: &[Trajectory],
    strictness: Strictness,
    done: &AtomicBool,
) -> (FollowedFile, usize) {
    let mut file = FollowedFile::new(path);
    let mut shown = 0;
    let mut states = 0;
    loop {
        let finished = done.load(Ordering::SeqCst);
        let update = file.refresh();
        if !update.changes.is_empty() {
            states += 1;
            check(file.trajectories(), expected, strictness, &mut shown);
        }
        if finished && update.status == FileStatus::Current {
            // One more read: the last write may have landed between two refreshes.
            let update = file.refresh();
            if update.changes.is_empty() {
                return (file, states);
            }
            check(file.trajectories(), expected, strictness, &mut shown);
        }
        if finished && matches!(update.status, FileStatus::Failed(_)) {
            panic!("{:?}", update.status);
        }
    }
}

/// Steps by their fingerprints: a step's context ids move as the pool grows (SWE-agent's
/// history comes first in it), its content does not.
fn prints(ts: &[Trajectory]) -> Vec<Vec<u64>> {
    ts.iter()
        .map(|t| TrajectoryPrint::of(&mut t.clone()).steps)
        .collect()
}

fn check(seen: &[Trajectory], expected: &[Trajectory], strictness: Strictness, shown: &mut usize) {
    let (seen_prints, expected_prints) = (prints(seen), prints(expected));
    let steps: usize = seen.iter().map(|t| t.steps.len()).sum();
    assert!(
        steps >= *shown,
        "steps already shown were lost: {steps} < {shown}"
    );
    *shown = steps;
    for ((t, want), (got, wanted)) in seen
        .iter()
        .zip(expected)
        .zip(seen_prints.iter().zip(&expected_prints))
    {
        let n = t.steps.len();
        assert!(n <= want.steps.len(), "more steps than ever written");
        let settled = match strictness {
            Strictness::Prefix => n,
            Strictness::PrefixButLast => n.saturating_sub(1),
        };
        assert_eq!(
            got[..settled],
            wanted[..settled],
            "a state the writer never wrote"
        );
        if n > 0 {
            assert_eq!(t.steps[n - 1].index, n);
        }
    }
}

/// Runs `write` on a thread while following `path`; returns what the follower ended with.
fn race(
    path: &Path,
    expected: &[Trajectory],
    strictness: Strictness,
    write: impl FnOnce() + Send + 'static,
) -> FollowedFile {
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    let writer = std::thread::spawn(move || {
        write();
        flag.store(true, Ordering::SeqCst);
    });
    let started = Instant::now();
    let (file, states) = follow(path, expected, strictness, &done);
    writer.join().unwrap();
    eprintln!(
        "{}: {states} states seen in {:?}",
        path.display(),
        started.elapsed()
    );
    file
}

/// Truncate, write half, flush, write the rest: the reader can catch the file half written.
fn rewrite(path: &Path, bytes: &[u8], rng: &mut Lcg) {
    let mut file = std::fs::File::create(path).unwrap();
    let cut = rng.below(bytes.len());
    file.write_all(&bytes[..cut]).unwrap();
    file.flush().unwrap();
    if rng.below(3) == 0 {
        std::thread::sleep(Duration::from_micros(200));
    }
    file.write_all(&bytes[cut..]).unwrap();
}

/// Appends `bytes` in random pieces, often cutting lines in half.
fn append_in_pieces(path: &Path, bytes: &[u8], rng: &mut Lcg) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    let mut at = 0;
    while at < bytes.len() {
        let n = 1 + rng.below(400);
        let end = (at + n).min(bytes.len());
        file.write_all(&bytes[at..end]).unwrap();
        file.flush().unwrap();
        at = end;
        if rng.below(4) == 0 {
            std::thread::sleep(Duration::from_micros(100));
        }
    }
}

/// `strictness`: writers that add a step's answer and its observation in two writes
/// (mini-swe-agent, OpenHands) leave the last step incomplete in between.
fn rewritten_case(name: &str, all: Vec<Vec<u8>>, strictness: Strictness) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, all.last().unwrap()).unwrap();
    let expected = load(&path);
    std::fs::remove_file(&path).unwrap();
    assert!(expected[0].steps.len() >= 3, "a sample with steps");

    let target = path.clone();
    let file = race(&path, &expected, strictness, move || {
        let mut rng = Lcg(7);
        // Each version several times over, as fast as the disk takes it.
        for bytes in &all {
            for _ in 0..3 {
                rewrite(&target, bytes, &mut rng);
            }
        }
    });
    assert_eq!(file.trajectories(), &expected[..]);
    assert_eq!(file.trajectories(), &load(&path)[..]);
}

#[test]
fn swe_agent_1_1_rewritten_at_speed() {
    rewritten_case(
        "live.traj",
        swe_agent_versions(SweAgentVersion::V1_1),
        Strictness::Prefix,
    );
}

#[test]
fn swe_agent_1_0_rewritten_at_speed() {
    rewritten_case(
        "live.traj",
        swe_agent_versions(SweAgentVersion::V1_0),
        Strictness::Prefix,
    );
}

#[test]
fn swe_agent_0_x_rewritten_at_speed() {
    rewritten_case(
        "live.traj",
        swe_agent_versions(SweAgentVersion::V0),
        Strictness::Prefix,
    );
}

#[test]
fn mini_swe_agent_rewritten_at_speed() {
    rewritten_case("live.traj.json", mini_versions(), Strictness::PrefixButLast);
}

#[test]
fn openhands_events_rewritten_at_speed() {
    rewritten_case(
        "events.json",
        openhands_versions(),
        Strictness::PrefixButLast,
    );
}

fn appended_case(sample_path: &str, name: &str, seed: u64) {
    let bytes = std::fs::read(sample(sample_path)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, &bytes).unwrap();
    let expected = load(&path);
    std::fs::remove_file(&path).unwrap();

    let target = path.clone();
    let file = race(&path, &expected, Strictness::PrefixButLast, move || {
        append_in_pieces(&target, &bytes, &mut Lcg(seed));
    });
    assert_eq!(file.trajectories(), &expected[..]);
}

#[test]
fn claude_code_appended_in_half_lines() {
    appended_case(
        "claude-code/tinycalc__tinycalc-1.jsonl",
        "session.jsonl",
        11,
    );
}

#[test]
fn chat_log_appended_in_half_lines() {
    appended_case("chat/tinycalc__tinycalc-1.jsonl", "chat.jsonl", 23);
}

#[test]
fn deleted_and_written_again() {
    let bytes = std::fs::read(sample("chat/tinycalc__tinycalc-1.jsonl")).unwrap();
    let other = std::fs::read(sample("claude-code/tinycalc__tinycalc-1.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.jsonl");
    std::fs::write(&path, &other).unwrap();
    let expected = load(&path);
    std::fs::write(&path, &bytes).unwrap();

    let mut file = FollowedFile::new(&path);
    file.refresh();
    assert_eq!(file.trajectories(), &load(&path)[..]);

    // Gone, then a different (longer) log under the same name, appended in pieces while
    // the reader runs.
    std::fs::remove_file(&path).unwrap();
    assert_eq!(file.refresh().status, FileStatus::Removed);
    assert!(file.trajectories().is_empty());
    let target = path.clone();
    let file = race(&path, &expected, Strictness::PrefixButLast, move || {
        append_in_pieces(&target, &other, &mut Lcg(5));
    });
    assert_eq!(file.trajectories(), &expected[..]);
}

#[test]
fn rotation_starts_over_on_the_new_file() {
    let first = std::fs::read(sample("claude-code/tinycalc__tinycalc-1.jsonl")).unwrap();
    let second = std::fs::read(sample("chat/tinycalc__tinycalc-1.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.jsonl");
    std::fs::write(&path, &second).unwrap();
    let expected = load(&path);

    std::fs::write(&path, &first).unwrap();
    let mut file = FollowedFile::new(&path);
    file.refresh();
    assert_eq!(file.trajectories(), &load(&path)[..]);

    // Renamed away, and a new file (a new inode) under the old name, longer than the
    // bytes already read of the old one would suggest for a shorter log: the reader must
    // not seek into it at the old offset.
    std::fs::rename(&path, dir.path().join("agent.jsonl.1")).unwrap();
    let mut padded = second.clone();
    while padded.len() <= first.len() {
        padded.extend_from_slice(b"\n");
    }
    std::fs::write(&path, &padded).unwrap();
    let update = file.refresh();
    assert_eq!(update.status, FileStatus::Current, "{update:?}");
    assert_eq!(file.trajectories(), &expected[..]);
    assert_eq!(file.trajectories(), &load(&path)[..]);
}
