//! A long Codex rollout read in bounded memory, its steps let go as they finish: the
//! sample's turns repeated with fresh call ids (some outputs long, so that low thresholds
//! leave them in the file). The visited steps, the header, the listing's summary and the
//! `stats` tally equal the whole read's. (Every sample and corpus rollout is compared the
//! same way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/long_logs.rs"]
mod long_logs;
#[path = "support/visited.rs"]
mod visited;

use trajscope::model::Format;
use visited::LongLog;

#[test]
fn a_long_codex_rollout_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-long.jsonl");
    long_logs::long_codex(&path, 40);
    let long = LongLog::of(Format::Codex, 200);
    visited::assert_long_log_visit_equals_whole(&path, &long);
}
