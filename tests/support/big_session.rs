//! A big Claude Code session written for a test: the bundled sample's turns repeated with
//! fresh uuids and tool ids until the file has the size asked for, as
//! `scripts/gen-big.py claude-code` builds the 1 GB benchmark file. Include with
//! `#[path = "support/big_session.rs"] mod big_session;`.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories/claude-code/tinycalc__tinycalc-1.jsonl")
}

/// Writes a session of at least `bytes` bytes to `out`; returns how many records.
pub fn write(out: &Path, bytes: u64) -> usize {
    let text = std::fs::read_to_string(sample()).unwrap();
    let records: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kind = |r: &Value| r["type"].as_str().unwrap_or("").to_string();
    let mut head: Vec<Value> = records
        .iter()
        .filter(|r| kind(r) == "summary")
        .cloned()
        .collect();
    head.push(records[1].clone());
    let turns: Vec<&Value> = records[2..]
        .iter()
        .filter(|r| matches!(kind(r).as_str(), "assistant" | "user"))
        .collect();
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    let mut size = 0u64;
    let line = |file: &mut std::io::BufWriter<std::fs::File>, value: &Value| {
        let mut text = serde_json::to_string(value).unwrap();
        text.push('\n');
        file.write_all(text.as_bytes()).unwrap();
        text.len() as u64
    };
    for r in &head {
        size += line(&mut file, r);
    }
    let mut parent = head.last().unwrap()["uuid"].clone();
    let mut n = 0usize;
    while size < bytes {
        for turn in &turns {
            let mut r = (*turn).clone();
            let uuid = format!("00000000-0000-4000-8000-{n:012}");
            r["uuid"] = Value::from(uuid.clone());
            r["parentUuid"] = parent;
            parent = Value::from(uuid);
            if let Some(blocks) = r["message"]["content"].as_array_mut() {
                for block in blocks {
                    match block["type"].as_str() {
                        Some("tool_use") => block["id"] = Value::from(format!("toolu_{n:012}")),
                        Some("tool_result") => {
                            block["tool_use_id"] =
                                Value::from(format!("toolu_{:012}", n.saturating_sub(1)));
                        }
                        Some("text") => {
                            let text = format!("[{n}] {}", block["text"].as_str().unwrap_or(""));
                            block["text"] = Value::from(text);
                        }
                        _ => {}
                    }
                }
            }
            size += line(&mut file, &r);
            n += 1;
            if size >= bytes {
                break;
            }
        }
    }
    file.flush().unwrap();
    n
}
