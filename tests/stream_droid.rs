//! A long droid stream read in bounded memory, its steps let go as they finish: the
//! sample's events after its `system` line repeated with fresh message and tool ids (some
//! results long, so that low thresholds leave them in the file; some results logged a whole
//! cycle of steps after their calls; some runs ending in an `error`). The visited steps,
//! the header, the listing's summary and the `stats` tally equal the whole read's. (Every
//! sample and corpus droid stream is compared the same way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/long_logs.rs"]
mod long_logs;
#[path = "support/visited.rs"]
mod visited;

use trajscope::model::Format;
use visited::LongLog;

#[test]
fn a_long_droid_stream_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("droid-long.jsonl");
    long_logs::write_lines(&path, &long_logs::long_droid(60));
    // The late results found their calls in the whole read.
    let long = LongLog {
        late_result: Some((|id| id.ends_with("_2"), "exit code")),
        ..LongLog::of(Format::Droid, 300)
    };
    let full = visited::assert_long_log_visit_equals_whole(&path, &long);
    assert!(
        full.steps
            .iter()
            .any(|s| s.observation.contains("rate limited in run 3"))
    );
}
