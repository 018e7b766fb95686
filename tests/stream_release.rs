//! Long sessions, read in bounded memory with their steps let go while reading: a Claude Code
//! session and an OpenHands event list of hundreds of steps (the sample's turns repeated
//! with fresh ids, as `scripts/gen-big.py` builds the 1 GB files), so that their readers
//! release most steps before the file ends. The steps a tally visits, the summary a
//! listing counts, the tally `stats` makes and the lazy open's steps and message pool (its
//! steps packed as they are let go) equal the whole read's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/visited.rs"]
mod visited;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use trajscope::formats::{Detail, read_bounded};
use trajscope::model::Format;
use visited::LongLog;

const CYCLES: usize = 40;

fn sample(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories")
        .join(rel)
}

/// The sample session's turns repeated with fresh uuids and tool ids; some tool results
/// long, so that low thresholds leave them in the file.
fn long_claude_code(out: &Path) {
    let text = std::fs::read_to_string(sample("claude-code/tinycalc__tinycalc-1.jsonl")).unwrap();
    let records: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut lines: Vec<String> = records[..2].iter().map(Value::to_string).collect();
    let turns: Vec<&Value> = records[2..]
        .iter()
        .filter(|r| matches!(r["type"].as_str(), Some("assistant" | "user")))
        .collect();
    let mut n = 0;
    for _ in 0..CYCLES {
        for turn in &turns {
            let mut r = (*turn).clone();
            r["uuid"] = json!(format!("00000000-0000-4000-8000-{n:012}"));
            if let Some(blocks) = r["message"]["content"].as_array_mut() {
                for block in blocks {
                    match block["type"].as_str() {
                        Some("tool_use") => block["id"] = json!(format!("toolu_{n:012}")),
                        Some("tool_result") => {
                            block["tool_use_id"] = json!(format!("toolu_{:012}", n - 1));
                            if n % 7 == 3 {
                                block["content"] =
                                    json!(format!("{n}: {}", "FAILED x\n".repeat(90)));
                            }
                        }
                        Some("text") => {
                            let said = block["text"].as_str().unwrap_or("").to_string();
                            block["text"] = json!(format!("[{n}] {said}"));
                        }
                        _ => {}
                    }
                }
            }
            lines.push(r.to_string());
            n += 1;
        }
    }
    std::fs::write(out, lines.join("\n") + "\n").unwrap();
}

/// The sample event list's events after the first two repeated with fresh ids and causes.
fn long_openhands(out: &Path) {
    let text = std::fs::read_to_string(sample("openhands/tinycalc__tinycalc-1.json")).unwrap();
    let events: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut all: Vec<Value> = events[..2].to_vec();
    let body = &events[2..];
    let mut n = 2i64;
    for cycle in 0..CYCLES {
        let base = n;
        for e in body {
            let mut e = e.clone();
            let id = e["id"].as_i64().unwrap();
            e["id"] = json!(base + id - 2);
            if let Some(cause) = e["cause"].as_i64() {
                e["cause"] = json!(base + cause - 2);
            }
            if e.get("observation").is_some() && cycle % 3 == 1 {
                e["content"] = json!(format!(
                    "{n}: {}",
                    "Traceback (most recent call last):\n".repeat(30)
                ));
            }
            all.push(e);
            n += 1;
        }
    }
    std::fs::write(out, serde_json::to_string_pretty(&all).unwrap()).unwrap();
}

/// The visit, summaries and tally of `path` equal the whole read's ([`LongLog`]), and so do
/// the lazy open's steps and pool at each threshold.
fn check(path: &Path, format: Format) {
    let full = visited::assert_long_log_visit_equals_whole(path, &LongLog::of(format, 200));
    for threshold in visited::THRESHOLDS {
        // The lazy open packs each step as its reader lets it go, keeping the message pool:
        // read back, its steps (contexts included) and pool are the whole read's.
        let held = read_bounded(path, threshold, Detail::Full)
            .unwrap()
            .unwrap();
        assert_eq!(held.len(), 1);
        assert_eq!(
            held[0].steps.len(),
            full.steps.len(),
            "threshold {threshold}"
        );
        for (got, want) in held[0].steps.iter().zip(&full.steps) {
            assert_eq!(got, want, "threshold {threshold}, held step {}", want.index);
        }
        assert!(
            held[0].messages == full.messages,
            "threshold {threshold}: pool"
        );
    }
}

#[test]
fn a_long_claude_code_session_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    long_claude_code(&path);
    check(&path, Format::ClaudeCode);
}

#[test]
fn a_long_openhands_event_list_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.json");
    long_openhands(&path);
    check(&path, Format::OpenHands);
}
