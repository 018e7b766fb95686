//! A long Cursor agent transcript read in bounded memory, its steps let go as they finish:
//! the sample's turns repeated with fresh tool ids (some results long, so that low
//! thresholds leave them in the file, and some logged many steps after their call). The
//! visited steps (user turns in place), the header, the listing's summary and the `stats`
//! tally equal the whole read's. (Every sample and corpus transcript is compared the same
//! way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/visited.rs"]
mod visited;

use serde_json::{Value, json};
use std::path::PathBuf;
use trajscope::model::{Format, StepKind};

/// The blocks of a line's message.
fn blocks(line: &mut Value) -> &mut Vec<Value> {
    line["message"]["content"].as_array_mut().unwrap()
}

/// The sample's lines repeated `cycles` times with fresh tool ids. In every fifth cycle the
/// first result line is held back and logged after the second call of the cycle two on, so
/// that a step waits for it while more than a handful of later steps start.
fn long_transcript(cycles: usize) -> Vec<Value> {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "sample-trajectories/cursor/agent-transcripts/8399813c-8e99-56b7-b2b4-ae7570985cb1.jsonl",
    );
    let lines: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut out = Vec::new();
    let mut late: Vec<Value> = Vec::new();
    for n in 0..cycles {
        let mut results = 0;
        let mut calls = 0;
        for line in &lines {
            let mut l = line.clone();
            let mut is_result = false;
            let mut is_call = false;
            if l.get("message").is_some() {
                for block in blocks(&mut l) {
                    if let Some(id) = block["id"].as_str() {
                        block["id"] = json!(format!("{id}_{n}"));
                        is_call = true;
                    }
                    if let Some(id) = block["tool_use_id"].as_str() {
                        block["tool_use_id"] = json!(format!("{id}_{n}"));
                        is_result = true;
                        if n % 3 == 1 {
                            block["content"] = json!("FAILED test_x\n".repeat(60));
                        }
                    }
                    if let Some(text) = block["text"].as_str() {
                        block["text"] = json!(format!("[{n}] {text}"));
                    }
                }
            }
            if is_result {
                results += 1;
                if n % 5 == 2 && results == 1 {
                    late.push(l);
                    continue;
                }
            }
            out.push(l);
            if is_call {
                calls += 1;
                if n % 5 == 4 && calls == 2 {
                    out.append(&mut late);
                }
            }
        }
    }
    out.append(&mut late);
    out
}

#[test]
fn a_long_transcript_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("0b9e-long.jsonl");
    let text: Vec<String> = long_transcript(60).iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();

    let full = visited::whole_read(&path);
    assert_eq!(full.format, Format::Cursor);
    assert!(full.steps.len() > 400, "{} steps", full.steps.len());
    let users = full
        .steps
        .iter()
        .filter(|s| s.kind == StepKind::User)
        .count();
    assert_eq!(users, 120, "two user turns a cycle");
    // A late result really lands in its step, many steps after it.
    let late = full
        .steps
        .iter()
        .position(|s| {
            s.tool_calls
                .iter()
                .any(|c| c.id.as_deref() == Some("toolu_kpHDUhCPy1mZFuhhoHmXqC_2"))
        })
        .unwrap();
    assert!(full.steps[late].observation.contains("def _product"));
    visited::assert_visit_equals_whole(&path, &full, &visited::THRESHOLDS);
}
