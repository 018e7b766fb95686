//! A long Codex rollout read in bounded memory, its steps let go as they finish: the
//! sample's turns repeated with fresh call ids (some outputs long, so that low thresholds
//! leave them in the file). The visited steps, the header, the listing's summary and the
//! `stats` tally equal the whole read's. (Every sample and corpus rollout is compared the
//! same way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/visited.rs"]
mod visited;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use trajscope::model::Format;

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

#[test]
fn a_long_codex_rollout_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-long.jsonl");
    long_codex(&path, 40);
    let full = visited::whole_read(&path);
    assert_eq!(full.format, Format::Codex);
    assert!(full.steps.len() > 200, "{} steps", full.steps.len());
    visited::assert_visit_equals_whole(&path, &full, &visited::THRESHOLDS);
}
