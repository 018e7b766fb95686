//! A long Codex rollout read in bounded memory, its steps let go as they finish: the
//! sample's turns repeated with fresh call ids (some outputs long, so that low thresholds
//! leave them in the file). The visited steps, the header, the listing's summary and the
//! `stats` tally equal the whole read's. (Every sample and corpus rollout is compared the
//! same way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use trajscope::formats::{Loaded, SLIM_ABOVE, bounded_summaries, load_file, visit_bounded};
use trajscope::metrics::{Matcher, RuleSet, TrajectoryTally, tally_visited};
use trajscope::model::{Format, Step, Trajectory, TrajectorySummary};

fn long_codex(out: &Path, cycles: usize) {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories/codex/tinycalc__tinycalc-1.jsonl");
    let records: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The session's header and first prompt once; its work (from the first reasoning on)
    // repeated.
    let start = records
        .iter()
        .position(|r| r["payload"]["type"] == "reasoning")
        .unwrap();
    let mut lines: Vec<String> = records[..start].iter().map(Value::to_string).collect();
    for n in 0..cycles {
        for record in &records[start..] {
            let mut r = record.clone();
            let payload = &mut r["payload"];
            if let Some(id) = payload["call_id"].as_str() {
                payload["call_id"] = json!(format!("{id}_{n}"));
            }
            if payload["type"] == "function_call_output" && n % 3 == 1 {
                payload["output"] = json!(format!("{n}: {}", "FAILED test_x\n".repeat(60)));
            }
            lines.push(r.to_string());
        }
    }
    std::fs::write(out, lines.join("\n") + "\n").unwrap();
}

fn whole(path: &Path) -> Trajectory {
    match load_file(path).unwrap() {
        Loaded::Trajectories(mut ts) => ts.remove(0),
        Loaded::Results(_) => panic!("not a trajectory"),
    }
}

#[test]
fn a_long_codex_rollout_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-long.jsonl");
    long_codex(&path, 40);
    let full = whole(&path);
    assert_eq!(full.format, Format::Codex);
    assert!(full.steps.len() > 200, "{} steps", full.steps.len());
    let want: Vec<Step> = full
        .steps
        .iter()
        .map(|s| Step {
            context: None,
            ..s.clone()
        })
        .collect();
    for threshold in [8, 64, SLIM_ABOVE] {
        let mut visited = Vec::new();
        let header = visit_bounded(&path, threshold, &mut |step| {
            visited.push(step);
            Ok(())
        })
        .unwrap()
        .expect("read record by record");
        assert_eq!(visited.len(), want.len(), "threshold {threshold}");
        for (got, want) in visited.iter().zip(&want) {
            assert_eq!(got, want, "threshold {threshold}, step {}", want.index);
        }
        assert_eq!(header.warnings, full.warnings);
        assert_eq!(header.usage, full.usage);
        assert_eq!(header.task, full.task);
        assert_eq!(header.model, full.model);
        let summaries = bounded_summaries(&path, threshold).unwrap().unwrap();
        assert_eq!(summaries, vec![TrajectorySummary::of(&full)]);
    }
    let matcher = Matcher::new(RuleSet::defaults().rules).0;
    let (tally, summary) = tally_visited(&path, &matcher).unwrap().unwrap();
    assert_eq!(tally, TrajectoryTally::of(&matcher, &full));
    assert_eq!(summary, TrajectorySummary::of(&full));
}
