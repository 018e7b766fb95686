//! A long Hugging Face trace read in bounded memory, its steps let go as they finish: the
//! sample's messages after its header and system prompt repeated with fresh call ids (some
//! results long, so that low thresholds leave them in the file; some results logged two
//! user turns and a dozen steps after their calls). The visited steps, the header, the
//! listing's summary and the `stats` tally equal the whole read's. (Every sample and corpus
//! trace is compared the same way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/long_logs.rs"]
mod long_logs;
#[path = "support/visited.rs"]
mod visited;

use trajscope::model::Format;
use visited::LongLog;

#[test]
fn a_long_trace_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace-long.jsonl");
    long_logs::write_lines(&path, &long_logs::long_trace(60));
    // The late results found their calls in the whole read.
    let long = LongLog {
        late_result: Some((|id| id.ends_with("_2"), "exit code")),
        ..LongLog::of(Format::HfTrace, 300)
    };
    visited::assert_long_log_visit_equals_whole(&path, &long);
}
