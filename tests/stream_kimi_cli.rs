//! A long Kimi CLI wire log read in bounded memory, its steps let go as they finish: the
//! sample's turns repeated with fresh step uuids and call ids (some results long, so that
//! low thresholds leave them in the file, and some logged many steps after their call). The
//! visited steps (user turns in place), the header, the listing's summary and the `stats`
//! tally equal the whole read's. (Every sample and corpus wire log is compared the same way
//! by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/visited.rs"]
mod visited;

use serde_json::{Value, json};
use std::path::PathBuf;
use trajscope::model::{Format, StepKind};

/// The sample's records: metadata and configuration once, the turns repeated `cycles`
/// times. The results of every fifth cycle come after the first call of the cycle two on,
/// so that a step waits for them while more than a handful of later steps start.
fn long_wire(cycles: usize) -> Vec<Value> {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "sample-trajectories/kimi-cli/wd_tinycalc_0a1b2c3d4e5f/\
         session_29214e84-27cb-5c6a-a869-2488cde5b6e1/agents/main/wire.jsonl",
    );
    let records: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let start = records
        .iter()
        .position(|r| r["type"] == "turn.prompt")
        .unwrap();
    let mut out: Vec<Value> = records[..start].to_vec();
    let mut late = Vec::new();
    for n in 0..cycles {
        for record in &records[start..] {
            let mut r = record.clone();
            let event = &mut r["event"];
            if let Some(uuid) = event["uuid"].as_str() {
                event["uuid"] = json!(format!("{uuid}-{n}"));
            }
            if let Some(id) = event["toolCallId"].as_str() {
                event["toolCallId"] = json!(format!("{id}_{n}"));
            }
            if event["type"] == "tool.result" {
                if n % 3 == 1 {
                    event["result"]["output"] =
                        json!([{"type": "text", "text": "FAILED test_x\n".repeat(60)}]);
                }
                if n % 5 == 2 {
                    late.push(r);
                    continue;
                }
            }
            let is_call = r["event"]["type"] == "tool.call";
            out.push(r);
            if is_call && n % 5 == 4 {
                out.append(&mut late);
            }
        }
    }
    out.append(&mut late);
    out
}

#[test]
fn a_long_wire_log_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let records = long_wire(60);
    let path = dir.path().join("kimi-long.jsonl");
    let text: Vec<String> = records.iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();

    let full = visited::whole_read(&path);
    assert_eq!(full.format, Format::KimiCli);
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
                .any(|c| c.id.as_deref() == Some("Bash:01_2"))
        })
        .unwrap();
    assert!(full.steps[late].observation.contains("def _product"));
    visited::assert_visit_equals_whole(&path, &full, &visited::THRESHOLDS);
}
