//! Each step announced exactly once, under every simulated writer (`support/writers.rs`), in
//! notify and in poll mode: the real feed and follower, driven the way `trajscope watch`
//! drives them, count the new-step events each file brings while a writer grows it. Every
//! part of the file grows as with the real writer (SWE-agent's `history` and `info` too, which
//! once made every earlier step look new at every rewrite), and each rewrite is atomic, in
//! place or torn. At the end the follower's view must equal loading the final file.
//!
//! Poll mode is tested with versions written a few milliseconds apart: many writes land in
//! the same second, which notify's own poll watcher could not tell apart.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/writers.rs"]
mod writers;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use trajscope::formats::{Loaded, load_file};
use trajscope::model::Trajectory;
use trajscope::watch::{ChangeFeed, FeedMode, Follower, announced};
use writers::*;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Notify,
    Poll,
}

/// A writer of one file, given its path.
type Writer = Box<dyn FnOnce(&Path) + Send>;

/// (file, trajectory, step) → how many times it was announced new, and updated.
type Counts = BTreeMap<(PathBuf, usize, usize), (usize, usize)>;

/// Follows `dir` as `trajscope watch` does until `done` and then a quiet spell; returns the
/// events and the follower (holding the last read of each file).
fn follow(dir: &Path, mode: Mode, done: &AtomicBool) -> (Counts, Follower) {
    let feed = ChangeFeed::new(&[dir.to_path_buf()], mode == Mode::Poll).unwrap();
    assert_eq!(
        matches!(feed.mode(), FeedMode::Poll { .. }),
        mode == Mode::Poll
    );
    let mut follower = Follower::new(vec![dir.to_path_buf()]);
    let mut counts = Counts::new();
    let mut tally = |follower: &Follower, updates: Vec<trajscope::watch::FileUpdate>| {
        for update in updates {
            let Some(file) = follower.file(&update.path) else {
                continue;
            };
            for a in announced(&update, file) {
                let entry = counts
                    .entry((update.path.clone(), a.index, a.step.index))
                    .or_default();
                if a.updated {
                    entry.1 += 1;
                } else {
                    entry.0 += 1;
                }
            }
        }
    };
    let updates = follower.scan();
    tally(&follower, updates);
    // Long enough after the last write for a poll (500 ms) to have seen it, twice.
    let settle = Duration::from_millis(1500);
    let mut quiet_since: Option<Instant> = None;
    loop {
        let timeout = if follower.has_pending() {
            Duration::from_millis(150)
        } else {
            Duration::from_millis(200)
        };
        let paths = feed
            .next_batch(
                timeout,
                Duration::from_millis(25),
                Duration::from_millis(100),
            )
            .unwrap();
        let updates = if paths.is_empty() {
            follower.retry_pending()
        } else {
            follower.changed(&paths)
        };
        let busy = !paths.is_empty() || follower.has_pending();
        tally(&follower, updates);
        if !done.load(Ordering::SeqCst) || busy {
            quiet_since = None;
            continue;
        }
        let since = *quiet_since.get_or_insert_with(Instant::now);
        if since.elapsed() >= settle {
            return (counts, follower);
        }
    }
}

fn load(path: &Path) -> Vec<Trajectory> {
    match load_file(path).unwrap() {
        Loaded::Trajectories(ts) => ts,
        Loaded::Results(_) => panic!("not trajectories"),
    }
}

/// Runs the writers (each given its own file under the watched folder) while following,
/// then checks: every step of every final file announced new exactly once, nothing else
/// announced, and the follower's view equal to loading the final files.
fn check(mode: Mode, writers: Vec<(String, Writer)>) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let flag = done.clone();
    let paths: Vec<PathBuf> = writers.iter().map(|(name, _)| dir.join(name)).collect();
    let targets = paths.clone();
    let writer = std::thread::spawn(move || {
        // Let the follower start first: what is on disk before is not announced.
        std::thread::sleep(Duration::from_millis(300));
        let threads: Vec<_> = writers
            .into_iter()
            .zip(targets)
            .map(|((_, write), path)| std::thread::spawn(move || write(&path)))
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        flag.store(true, Ordering::SeqCst);
    });
    let (counts, follower) = follow(&dir, mode, &done);
    writer.join().unwrap();

    for path in &paths {
        let expected = load(path);
        let file = follower.file(path).expect("followed");
        assert_eq!(file.trajectories(), &expected[..], "{}", path.display());
        for (index, t) in expected.iter().enumerate() {
            let announced: Vec<(usize, usize)> = counts
                .iter()
                .filter(|((p, i, _), _)| p == path && *i == index)
                .map(|((_, _, step), (new, _))| (*step, *new))
                .collect();
            let once: Vec<(usize, usize)> = (1..=t.steps.len()).map(|s| (s, 1)).collect();
            assert_eq!(
                announced,
                once,
                "{mode:?} {}: (step, times announced new)",
                path.display()
            );
        }
        let total: usize = counts
            .iter()
            .filter(|((p, ..), _)| p == path)
            .map(|(_, (new, _))| new)
            .sum();
        eprintln!(
            "{mode:?} {}: {total} new-step events for {} steps",
            path.file_name().unwrap().to_string_lossy(),
            expected.iter().map(|t| t.steps.len()).sum::<usize>()
        );
    }
}

/// One writer per way of rewriting, each on its own file, versions `gap` apart.
fn rewriters(
    stem: &str,
    suffix: &str,
    versions: fn() -> Vec<Vec<u8>>,
    gap: Duration,
) -> Vec<(String, Writer)> {
    [Rewrite::Atomic, Rewrite::InPlace, Rewrite::Torn]
        .into_iter()
        .enumerate()
        .map(|(i, how)| {
            let name = format!("{stem}-{how:?}{suffix}").to_lowercase();
            let write: Writer = Box::new(move |path: &Path| {
                let mut rng = Lcg(17 + i as u64);
                for bytes in versions() {
                    rewrite(path, &bytes, how, &mut rng);
                    std::thread::sleep(gap + Duration::from_millis(rng.below(10) as u64));
                }
            });
            (name, write)
        })
        .collect()
}

fn run_rewriters(mode: Mode, stem: &str, suffix: &str, versions: fn() -> Vec<Vec<u8>>) {
    check(
        mode,
        rewriters(stem, suffix, versions, Duration::from_millis(40)),
    );
}

fn swe_1_1() -> Vec<Vec<u8>> {
    swe_agent_versions(SweAgentVersion::V1_1)
}
fn swe_1_0() -> Vec<Vec<u8>> {
    swe_agent_versions(SweAgentVersion::V1_0)
}
fn swe_0() -> Vec<Vec<u8>> {
    swe_agent_versions(SweAgentVersion::V0)
}

fn appenders(mode: Mode) {
    let claude = std::fs::read(sample(CLAUDE_CODE)).unwrap();
    let codex = std::fs::read(sample(CODEX)).unwrap();
    check(
        mode,
        vec![
            (
                "session.jsonl".to_string(),
                Box::new(move |p: &Path| {
                    append_lines(p, &claude, Duration::from_millis(15), &mut Lcg(3))
                }),
            ),
            (
                "rollout-2025-01-01T00-00-00-x.jsonl".to_string(),
                Box::new(move |p: &Path| {
                    append_lines(p, &codex, Duration::from_millis(10), &mut Lcg(4))
                }),
            ),
        ],
    );
}

#[test]
fn swe_agent_1_1_notify() {
    run_rewriters(Mode::Notify, "swe11", ".traj", swe_1_1);
}
#[test]
fn swe_agent_1_1_poll() {
    run_rewriters(Mode::Poll, "swe11", ".traj", swe_1_1);
}
#[test]
fn swe_agent_1_0_notify() {
    run_rewriters(Mode::Notify, "swe10", ".traj", swe_1_0);
}
#[test]
fn swe_agent_1_0_poll() {
    run_rewriters(Mode::Poll, "swe10", ".traj", swe_1_0);
}
#[test]
fn swe_agent_0_x_notify() {
    run_rewriters(Mode::Notify, "swe0", ".traj", swe_0);
}
#[test]
fn swe_agent_0_x_poll() {
    run_rewriters(Mode::Poll, "swe0", ".traj", swe_0);
}
#[test]
fn mini_swe_agent_notify() {
    run_rewriters(Mode::Notify, "mini", ".traj.json", mini_versions);
}
#[test]
fn mini_swe_agent_poll() {
    run_rewriters(Mode::Poll, "mini", ".traj.json", mini_versions);
}
#[test]
fn openhands_events_notify() {
    run_rewriters(Mode::Notify, "openhands", ".json", openhands_versions);
}
#[test]
fn openhands_events_poll() {
    run_rewriters(Mode::Poll, "openhands", ".json", openhands_versions);
}
#[test]
fn claude_code_and_codex_appended_notify() {
    appenders(Mode::Notify);
}
#[test]
fn claude_code_and_codex_appended_poll() {
    appenders(Mode::Poll);
}

/// The real binary through a pipe, as scripts read it: `watch --json` on a SWE-agent 1.1
/// run rewritten torn after every step (the 12-step file once gave 77 new-step events).
fn binary_swe_agent(poll: bool) {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.traj");
    let mut command = Command::new(env!("CARGO_BIN_EXE_trajscope"));
    command.args(["watch", "--json"]).arg(dir.path());
    if poll {
        command.arg("--poll");
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Start writing once the watch says it follows.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap() > 0 && !line.contains("following") {
        line.clear();
    }
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in stdout.lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    let versions = swe_agent_versions(SweAgentVersion::V1_1);
    let steps = versions.len();
    let mut rng = Lcg(29);
    for bytes in &versions {
        rewrite(&path, bytes, Rewrite::Torn, &mut rng);
        std::thread::sleep(Duration::from_millis(30));
    }
    let mut new_steps = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    // Until every step came, then a quiet second and a half for any extra event.
    let mut quiet_until = None;
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => {
                let event: serde_json::Value = serde_json::from_str(&line).unwrap();
                if event["kind"] == "step" && event["updated"] == false {
                    new_steps.push(event["step"].as_u64().unwrap() as usize);
                }
            }
            Err(_) if Instant::now() > deadline => break,
            Err(_) => {}
        }
        if new_steps.len() >= steps {
            let until =
                *quiet_until.get_or_insert_with(|| Instant::now() + Duration::from_millis(1500));
            if Instant::now() > until {
                break;
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    eprintln!(
        "binary, poll={poll}: {} new-step events for {steps} steps",
        new_steps.len()
    );
    assert_eq!(new_steps, (1..=steps).collect::<Vec<_>>());
}

#[test]
fn the_binary_announces_each_step_once_notify() {
    binary_swe_agent(false);
}

#[test]
fn the_binary_announces_each_step_once_poll() {
    binary_swe_agent(true);
}
