//! Long Gemini CLI sessions read in bounded memory, their steps let go as they finish: the
//! sample's messages repeated with fresh ids (some tool outputs long, so that low thresholds
//! leave them in the file), as a session document (the items of `messages`) and as the JSON
//! Lines variant, whose model messages are first written without their results and
//! re-written with them several steps later, among `$set` lines. The visited steps (user
//! turns in place), the header, the listing's summary and the `stats` tally equal the whole
//! read's. A re-write later than the bounded read waits for is the one thing it loses, and
//! says so. (Every sample and corpus session is compared the same way by
//! tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/long_logs.rs"]
mod long_logs;
#[path = "support/visited.rs"]
mod visited;

use serde_json::json;
use std::path::Path;
use trajscope::formats::SLIM_ABOVE;
use trajscope::model::{Format, Trajectory};
use visited::LongLog;

/// The visit of `path` at several thresholds, its summaries and its tally equal the whole
/// read's; returns the whole read.
fn check(path: &Path) -> Trajectory {
    let long = LongLog {
        user_turns: Some(120),
        ..LongLog::of(Format::GeminiCli, 400)
    };
    visited::assert_long_log_visit_equals_whole(path, &long)
}

#[test]
fn a_long_session_document_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = long_logs::gemini_sample();
    doc["messages"] = json!(long_logs::long_gemini(60));
    let path = dir.path().join("session-2026-01-05T08-00-6ce1f3e4.json");
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let full = check(&path);
    assert_eq!(full.instance_id, "6ce1f3e4-baf7-5e1c-91bf-7f934c53dd5a");
    assert_eq!(full.format_detail.as_deref(), Some("json"));
    assert!(
        full.steps.iter().any(|s| s.exit_code == Some(1)),
        "exit codes are read from the outputs"
    );
}

#[test]
fn a_long_jsonl_session_with_late_rewrites_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session-6ce1f3e4.jsonl");
    // Most results come with the next message; every seventh, 40 messages later (many
    // steps, within what the bounded read waits for).
    let text =
        long_logs::gemini_jsonl(
            &long_logs::long_gemini(60),
            |n| if n % 7 == 3 { 40 } else { 0 },
        );
    std::fs::write(&path, text).unwrap();
    let full = check(&path);
    assert_eq!(full.format_detail.as_deref(), Some("jsonl"));
    assert!(full.warnings.is_empty(), "{:?}", full.warnings);
    assert!(
        full.steps
            .iter()
            .filter(|s| s.tool.is_some())
            .all(|s| !s.observation.is_empty()),
        "every re-write read"
    );
}

#[test]
fn a_rewrite_later_than_the_bounded_read_waits_is_lost_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session-6ce1f3e4.jsonl");
    let messages = long_logs::long_gemini(60);
    // The first model message's results, 100 messages after it.
    let text = long_logs::gemini_jsonl(&messages, |n| if n == 1 { 100 } else { 0 });
    std::fs::write(&path, text).unwrap();
    let full = visited::whole_read(&path);
    assert!(full.warnings.is_empty(), "{:?}", full.warnings);
    assert!(full.steps[1].observation.contains("def _product"));
    let (got, header) = visited::visit(&path, SLIM_ABOVE);
    assert_eq!(got.len(), full.steps.len());
    assert_eq!(got[1].observation, "", "the first version is read");
    assert_eq!(&got[2..], &visited::as_visited(&full.steps)[2..]);
    assert_eq!(header.warnings.len(), 2, "{:?}", header.warnings);
    assert!(
        header.warnings[0].contains("re-written more than 64 messages"),
        "{:?}",
        header.warnings
    );
    assert!(
        header.warnings[1].contains("no result"),
        "{:?}",
        header.warnings
    );
}
