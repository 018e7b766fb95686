//! A long droid stream read in bounded memory, its steps let go as they finish: the
//! sample's events after its `system` line repeated with fresh message and tool ids (some
//! results long, so that low thresholds leave them in the file; some results logged a whole
//! cycle of steps after their calls; some runs ending in an `error`). The visited steps,
//! the header, the listing's summary and the `stats` tally equal the whole read's. (Every
//! sample and corpus droid stream is compared the same way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/visited.rs"]
mod visited;

use serde_json::{Value, json};
use std::path::PathBuf;
use trajscope::model::Format;

/// Suffixes a string field with the cycle, so no id repeats.
fn fresh(event: &mut Value, key: &str, n: usize) {
    if let Some(id) = event[key].as_str() {
        event[key] = json!(format!("{id}_{n}"));
    }
}

/// The sample's `system` line once, then its other events `cycles` times. Cycles `n % 5 ==
/// 2` log their results only after the first call of cycle `n + 2` (two user turns and a
/// dozen steps later); cycles `n % 7 == 3` end with an `error` after their last message.
fn long_stream(cycles: usize) -> Vec<Value> {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories/droid/tinycalc__tinycalc-1.jsonl");
    let events: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut out = vec![events[0].clone()];
    let mut late: Vec<(usize, Value)> = Vec::new();
    for n in 0..cycles {
        let mut first_call = true;
        for event in &events[1..] {
            let mut e = event.clone();
            for key in ["id", "messageId", "toolId"] {
                fresh(&mut e, key, n);
            }
            let kind = e["type"].as_str().unwrap().to_string();
            if kind == "tool_result" {
                if n % 3 == 1 {
                    e["value"] = json!(format!("{n}: {}", "FAILED test_x\n".repeat(60)));
                }
                if n % 5 == 2 {
                    late.push((n + 2, e));
                    continue;
                }
            }
            if kind == "completion" && n % 7 == 3 {
                out.push(json!({"type": "error", "message": format!("rate limited in run {n}")}));
            }
            out.push(e);
            if kind == "tool_call" && first_call {
                first_call = false;
                let (due, later): (Vec<_>, Vec<_>) = late.drain(..).partition(|(at, _)| *at == n);
                out.extend(due.into_iter().map(|(_, e)| e));
                late = later;
            }
        }
    }
    out.extend(late.into_iter().map(|(_, e)| e));
    out
}

#[test]
fn a_long_droid_stream_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let events = long_stream(60);
    let path = dir.path().join("droid-long.jsonl");
    let text: Vec<String> = events.iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();

    let full = visited::whole_read(&path);
    assert_eq!(full.format, Format::Droid);
    assert!(full.steps.len() > 300, "{} steps", full.steps.len());
    // The late results found their calls in the whole read.
    let late_step = full
        .steps
        .iter()
        .find(|s| {
            s.tool_calls
                .iter()
                .any(|c| c.id.as_deref().is_some_and(|id| id.ends_with("_2")))
        })
        .unwrap();
    assert!(late_step.observation.contains("exit code"), "{late_step:?}");
    assert!(
        full.steps
            .iter()
            .any(|s| s.observation.contains("rate limited in run 3"))
    );
    visited::assert_visit_equals_whole(&path, &full, &visited::THRESHOLDS);
}
