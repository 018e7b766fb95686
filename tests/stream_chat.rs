//! A long chat log read in bounded memory, its steps let go as they finish: the sample's
//! messages repeated with fresh call ids (some answers long, so that low thresholds leave
//! them in the file, and some answers logged several steps after their call), as JSON
//! Lines and as a top-level list. The visited steps, the header, the listing's summary and
//! the `stats` tally equal the whole read's. A log whose lines are whole conversations is
//! not taken by the bounded read. (Every sample and corpus chat log is compared the same
//! way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/long_logs.rs"]
mod long_logs;
#[path = "support/visited.rs"]
mod visited;

use serde_json::json;
use std::path::Path;
use trajscope::formats::{Loaded, load_file, visit_bounded};
use trajscope::model::Format;
use visited::LongLog;

fn visited_equals_whole(path: &Path) {
    let long = LongLog::of(Format::ChatMessages, 200);
    visited::assert_long_log_visit_equals_whole(path, &long);
}

#[test]
fn a_long_chat_log_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let messages = long_logs::long_chat(80);
    // Late answers really come after later calls: the release must wait for them.
    let late_ids = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            m["tool_call_id"]
                .as_str()
                .is_some_and(|id| id.ends_with("_2"))
        })
        .map(|(i, _)| i)
        .collect::<Vec<_>>();
    let first_call_of_3 = messages
        .iter()
        .position(|m| {
            m["tool_calls"][0]["id"]
                .as_str()
                .is_some_and(|id| id.ends_with("_3"))
        })
        .unwrap();
    assert!(late_ids.iter().all(|&i| i > first_call_of_3));

    let lines = dir.path().join("chat-long.jsonl");
    long_logs::write_lines(&lines, &messages);
    visited_equals_whole(&lines);

    let list = dir.path().join("chat-long.json");
    std::fs::write(&list, serde_json::to_string_pretty(&messages).unwrap()).unwrap();
    visited_equals_whole(&list);
}

#[test]
fn lines_of_whole_conversations_are_not_read_record_by_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("conversations.jsonl");
    let conversation = json!({"messages": long_logs::long_chat(1)});
    let text: Vec<String> = (0..30).map(|_| conversation.to_string()).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    let visited = visit_bounded(&path, 64, &mut |_| Ok(())).unwrap();
    assert!(
        visited.is_none(),
        "a file of conversations is several trajectories"
    );
    match load_file(&path).unwrap() {
        Loaded::Trajectories(ts) => assert_eq!(ts.len(), 30),
        Loaded::Results(_) => panic!("not results"),
    }
}
