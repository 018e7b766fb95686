//! A long Kimi CLI wire log read in bounded memory, its steps let go as they finish: the
//! sample's turns repeated with fresh step uuids and call ids (some results long, so that
//! low thresholds leave them in the file, and some logged many steps after their call). The
//! visited steps (user turns in place), the header, the listing's summary and the `stats`
//! tally equal the whole read's. (Every sample and corpus wire log is compared the same way
//! by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/long_logs.rs"]
mod long_logs;
#[path = "support/visited.rs"]
mod visited;

use trajscope::model::Format;
use visited::LongLog;

#[test]
fn a_long_wire_log_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kimi-long.jsonl");
    long_logs::write_lines(&path, &long_logs::long_wire(60));
    let long = LongLog {
        user_turns: Some(120),
        late_result: Some((|id| id == "Bash:01_2", "def _product")),
        ..LongLog::of(Format::KimiCli, 400)
    };
    visited::assert_long_log_visit_equals_whole(&path, &long);
}
