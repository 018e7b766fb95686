//! A long Cursor agent transcript read in bounded memory, its steps let go as they finish:
//! the sample's turns repeated with fresh tool ids (some results long, so that low
//! thresholds leave them in the file, and some logged many steps after their call). The
//! visited steps (user turns in place), the header, the listing's summary and the `stats`
//! tally equal the whole read's. (Every sample and corpus transcript is compared the same
//! way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/long_logs.rs"]
mod long_logs;
#[path = "support/visited.rs"]
mod visited;

use serde_json::Value;
use trajscope::model::{Format, StepKind};

#[test]
fn a_long_transcript_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("0b9e-long.jsonl");
    let text: Vec<String> = long_logs::long_cursor(60)
        .iter()
        .map(Value::to_string)
        .collect();
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
