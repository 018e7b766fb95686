//! A long Hugging Face trace read in bounded memory, its steps let go as they finish: the
//! sample's messages after its header and system prompt repeated with fresh call ids (some
//! results long, so that low thresholds leave them in the file; some results logged two
//! user turns and a dozen steps after their calls). The visited steps, the header, the
//! listing's summary and the `stats` tally equal the whole read's. (Every sample and corpus
//! trace is compared the same way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/visited.rs"]
mod visited;

use serde_json::{Value, json};
use std::path::PathBuf;
use trajscope::model::Format;

/// The sample's header and system prompt once, then its other lines `cycles` times. Cycles
/// `n % 5 == 2` log their tool results only after the first call of cycle `n + 2`.
fn long_trace(cycles: usize) -> Vec<Value> {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories/hf-trace/tinycalc__tinycalc-1.jsonl");
    let lines: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[1]["message"]["role"], "system");
    let mut out = lines[..2].to_vec();
    let mut late: Vec<(usize, Value)> = Vec::new();
    for n in 0..cycles {
        let mut first_call = true;
        for line in &lines[2..] {
            let mut e = line.clone();
            let m = &mut e["message"];
            let calls = m["toolCalls"].as_array_mut().map(|calls| {
                for call in calls {
                    let id = call["id"].as_str().unwrap().to_string();
                    call["id"] = json!(format!("{id}_{n}"));
                }
            });
            if let Some(id) = m["toolCallId"].as_str() {
                m["toolCallId"] = json!(format!("{id}_{n}"));
                if n % 3 == 1 {
                    m["content"] = json!(format!("{n}: {}", "FAILED test_x\n".repeat(60)));
                }
                if n % 5 == 2 {
                    late.push((n + 2, e));
                    continue;
                }
            }
            out.push(e);
            if calls.is_some() && first_call {
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
fn a_long_trace_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let lines = long_trace(60);
    let path = dir.path().join("trace-long.jsonl");
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();

    let full = visited::whole_read(&path);
    assert_eq!(full.format, Format::HfTrace);
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
    visited::assert_visit_equals_whole(&path, &full, &visited::THRESHOLDS);
}
