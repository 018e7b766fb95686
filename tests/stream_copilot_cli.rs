//! A long Copilot CLI session read in bounded memory, its steps let go as they finish: the
//! sample's turns repeated with fresh call ids (some results long, so that low thresholds
//! leave them in the file, and some logged many steps after their call). The visited steps
//! (user turns in place), the header, the listing's summary and the `stats` tally equal the
//! whole read's. (Every sample and corpus session is compared the same way by
//! tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/visited.rs"]
mod visited;

use serde_json::{Value, json};
use std::path::PathBuf;
use trajscope::model::{Format, StepKind};

/// The sample's events: the session start once, the turns (up to the shutdown) repeated
/// `cycles` times. The results of every fifth cycle come after the first message of the
/// cycle two on, so that a step waits for them while more than a handful of later steps
/// start.
fn long_session(cycles: usize) -> Vec<Value> {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "sample-trajectories/copilot-cli/session-state/\
         65fa6fd1-3d5d-572e-bc4b-25eb62674233/events.jsonl",
    );
    let events: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let start = events
        .iter()
        .position(|e| e["type"] == "user.message")
        .unwrap();
    let end = events
        .iter()
        .position(|e| e["type"] == "session.shutdown")
        .unwrap();
    let mut out: Vec<Value> = events[..start].to_vec();
    let mut late = Vec::new();
    for n in 0..cycles {
        for event in &events[start..end] {
            let mut e = event.clone();
            let data = &mut e["data"];
            if let Some(id) = data["toolCallId"].as_str() {
                data["toolCallId"] = json!(format!("{id}_{n}"));
            }
            if let Some(requests) = data["toolRequests"].as_array_mut() {
                for request in requests {
                    let id = request["toolCallId"].as_str().unwrap().to_string();
                    request["toolCallId"] = json!(format!("{id}_{n}"));
                }
            }
            if e["type"] == "tool.execution_complete" {
                if n % 3 == 1 {
                    e["data"]["result"]["content"] = json!("FAILED test_x\n".repeat(60));
                }
                if n % 5 == 2 {
                    late.push(e);
                    continue;
                }
            }
            let is_call = e["data"]["toolRequests"].is_array();
            out.push(e);
            if is_call && n % 5 == 4 {
                out.append(&mut late);
            }
        }
    }
    out.append(&mut late);
    out.extend_from_slice(&events[end..]);
    out
}

#[test]
fn a_long_session_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let events = long_session(60);
    let path = dir.path().join("events.jsonl");
    let text: Vec<String> = events.iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();

    let full = visited::whole_read(&path);
    assert_eq!(full.format, Format::CopilotCli);
    assert!(full.steps.len() > 300, "{} steps", full.steps.len());
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
                .any(|c| c.id.as_deref() == Some("toolu_ppo5MZ814pBDBpE5VWpP5L_2"))
        })
        .unwrap();
    assert!(full.steps[late].observation.contains("def _product"));
    visited::assert_visit_equals_whole(&path, &full, &visited::THRESHOLDS);
}
