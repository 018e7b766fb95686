//! mini-swe-agent trajectories read in bounded memory: the items of `messages` cut one at a
//! time from the `.traj.json` object (whichever order its keys come in) or from a bare
//! message list, each step let go once the next model call starts. On every sample and
//! corpus file, and on a long generated one (the sample's turns repeated, as
//! `scripts/gen-big.py mini-swe-agent` builds the 1 GB file), the visited steps, the header,
//! the listing's summary and the `stats` tally equal the whole read's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/long_logs.rs"]
mod long_logs;
#[path = "support/visited.rs"]
mod visited;

use serde_json::Value;
use std::path::{Path, PathBuf};
use trajscope::formats::{Loaded, SLIM_ABOVE, load_file};
use trajscope::model::Format;

fn sample(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories")
        .join(rel)
}

const V1: &str = "mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json";
const V2: &str = "mini-swe-agent-v2/tinycalc__tinycalc-2/tinycalc__tinycalc-2.traj.json";

/// Checks the bounded read of `path` against the whole read at each threshold.
fn check(path: &Path, thresholds: &[usize]) -> usize {
    let shown = path.display().to_string();
    let full = visited::whole_read(path);
    assert_eq!(full.format, Format::MiniSweAgent, "{shown}");
    visited::assert_visit_equals_whole(path, &full, thresholds);
    full.steps.len()
}

#[test]
fn the_samples_visited_equal_the_whole_read() {
    for rel in [V1, V2] {
        assert!(check(&sample(rel), &[8, 64, SLIM_ABOVE]) > 5, "{rel}");
    }
}

/// The object's keys in another order (`messages` first, `info` last) and a bare message
/// list read the same way.
#[test]
fn key_order_and_bare_lists_do_not_matter() {
    let dir = tempfile::tempdir().unwrap();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(sample(V2)).unwrap()).unwrap();
    let object = doc.as_object().unwrap();
    let mut reordered = serde_json::Map::new();
    for key in ["messages", "trajectory_format", "instance_id", "info"] {
        reordered.insert(key.into(), object[key].clone());
    }
    // Detection needs `info` or `trajectory_format` before the messages end: the header so far
    // says so once the array closes; a key order that says nothing is read whole instead.
    let path = dir.path().join("reordered.traj.json");
    std::fs::write(&path, serde_json::to_string_pretty(&reordered).unwrap()).unwrap();
    assert!(check(&path, &[8, SLIM_ABOVE]) > 5);
    let path = dir.path().join("list.traj.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&doc["messages"]).unwrap(),
    )
    .unwrap();
    assert!(check(&path, &[8, SLIM_ABOVE]) > 5);
}

#[test]
fn a_long_generated_trajectory_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.traj.json");
    long_logs::long_mini(&path, 30);
    let steps = check(&path, &[8, 64, SLIM_ABOVE]);
    assert!(
        steps > 200,
        "{steps} steps, too few to be let go while reading"
    );
}

#[test]
fn every_corpus_trajectory_visited_equals_the_whole_read() {
    let Some(root) = corpus::corpus("mini-swe-agent") else {
        return;
    };
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.to_string_lossy().ends_with(".traj.json") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut read = 0;
    for path in &files {
        if !matches!(load_file(path), Ok(Loaded::Trajectories(ts)) if ts.len() == 1 && ts[0].format == Format::MiniSweAgent)
        {
            continue;
        }
        check(path, &[64, SLIM_ABOVE]);
        read += 1;
    }
    assert!(read >= 10, "{read} corpus trajectories read");
}
