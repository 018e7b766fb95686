//! Long logs generated from the samples, for the tests of the readers that let steps go as
//! they finish (tests/stream_*.rs, tests/lazy_index.rs): each sample's turns repeated with
//! fresh ids, some tool results long (so that low thresholds leave them in the file) and
//! some logged several steps after their calls, as `scripts/gen-big.py` builds the 1 GB
//! files.
//!
//! Include with `#[path = "support/long_logs.rs"] mod long_logs;`.

#![allow(dead_code, clippy::unwrap_used)]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The mini-swe-agent 2.x sample (tool calls), under `sample-trajectories/`.
pub const MINI_V2: &str = "mini-swe-agent-v2/tinycalc__tinycalc-2/tinycalc__tinycalc-2.traj.json";

fn sample(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories")
        .join(rel)
}

/// Writes `records` as JSON Lines.
pub fn write_lines(path: &Path, records: &[Value]) {
    let text: Vec<String> = records.iter().map(Value::to_string).collect();
    std::fs::write(path, text.join("\n") + "\n").unwrap();
}

pub fn long_codex(out: &Path, cycles: usize) {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories/codex/tinycalc__tinycalc-1.jsonl");
    let records: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // The session's header and first prompt once; its work (from the first reasoning on)
    // repeated.
    let start = records
        .iter()
        .position(|r| r["payload"]["type"] == "reasoning")
        .unwrap();
    let mut lines: Vec<String> = records[..start].iter().map(Value::to_string).collect();
    for n in 0..cycles {
        for record in &records[start..] {
            let mut r = record.clone();
            let payload = &mut r["payload"];
            if let Some(id) = payload["call_id"].as_str() {
                payload["call_id"] = json!(format!("{id}_{n}"));
            }
            if payload["type"] == "function_call_output" && n % 3 == 1 {
                payload["output"] = json!(format!("{n}: {}", "FAILED test_x\n".repeat(60)));
            }
            lines.push(r.to_string());
        }
    }
    std::fs::write(out, lines.join("\n") + "\n").unwrap();
}

/// Suffixes a string field with the cycle, so no id repeats.
fn fresh(event: &mut Value, key: &str, n: usize) {
    if let Some(id) = event[key].as_str() {
        event[key] = json!(format!("{id}_{n}"));
    }
}

/// The sample's `system` line once, then its other events `cycles` times. Cycles `n % 5 ==
/// 2` log their results only after the first call of cycle `n + 2` (two user turns and a
/// dozen steps later); cycles `n % 7 == 3` end with an `error` after their last message.
pub fn long_droid(cycles: usize) -> Vec<Value> {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories/droid/tinycalc__tinycalc-1.jsonl");
    let events: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut out = vec![events[0].clone()];
    let mut late: Vec<(usize, Value)> = Vec::new();
    for n in 0..cycles {
        let mut first_call = true;
        for event in &events[1..] {
            let mut e = event.clone();
            for key in ["id", "messageId", "toolId"] {
                fresh(&mut e, key, n);
            }
            let kind = e["type"].as_str().unwrap().to_string();
            if kind == "tool_result" {
                if n % 3 == 1 {
                    e["value"] = json!(format!("{n}: {}", "FAILED test_x\n".repeat(60)));
                }
                if n % 5 == 2 {
                    late.push((n + 2, e));
                    continue;
                }
            }
            if kind == "completion" && n % 7 == 3 {
                out.push(json!({"type": "error", "message": format!("rate limited in run {n}")}));
            }
            out.push(e);
            if kind == "tool_call" && first_call {
                first_call = false;
                let (due, later): (Vec<_>, Vec<_>) = late.drain(..).partition(|(at, _)| *at == n);
                out.extend(due.into_iter().map(|(_, e)| e));
                late = later;
            }
        }
    }
    out.extend(late.into_iter().map(|(_, e)| e));
    out
}

/// The sample's header and system prompt once, then its other lines `cycles` times. Cycles
/// `n % 5 == 2` log their tool results only after the first call of cycle `n + 2`.
pub fn long_trace(cycles: usize) -> Vec<Value> {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories/hf-trace/tinycalc__tinycalc-1.jsonl");
    let lines: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[1]["message"]["role"], "system");
    let mut out = lines[..2].to_vec();
    let mut late: Vec<(usize, Value)> = Vec::new();
    for n in 0..cycles {
        let mut first_call = true;
        for line in &lines[2..] {
            let mut e = line.clone();
            let m = &mut e["message"];
            let calls = m["toolCalls"].as_array_mut().map(|calls| {
                for call in calls {
                    let id = call["id"].as_str().unwrap().to_string();
                    call["id"] = json!(format!("{id}_{n}"));
                }
            });
            if let Some(id) = m["toolCallId"].as_str() {
                m["toolCallId"] = json!(format!("{id}_{n}"));
                if n % 3 == 1 {
                    m["content"] = json!(format!("{n}: {}", "FAILED test_x\n".repeat(60)));
                }
                if n % 5 == 2 {
                    late.push((n + 2, e));
                    continue;
                }
            }
            out.push(e);
            if calls.is_some() && first_call {
                first_call = false;
                let (due, later): (Vec<_>, Vec<_>) = late.drain(..).partition(|(at, _)| *at == n);
                out.extend(due.into_iter().map(|(_, e)| e));
                late = later;
            }
        }
    }
    out.extend(late.into_iter().map(|(_, e)| e));
    out
}

/// The sample's records: metadata and configuration once, the turns repeated `cycles`
/// times. The results of every fifth cycle come after the first call of the cycle two on,
/// so that a step waits for them while more than a handful of later steps start.
pub fn long_wire(cycles: usize) -> Vec<Value> {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "sample-trajectories/kimi-cli/wd_tinycalc_0a1b2c3d4e5f/\
         session_29214e84-27cb-5c6a-a869-2488cde5b6e1/agents/main/wire.jsonl",
    );
    let records: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let start = records
        .iter()
        .position(|r| r["type"] == "turn.prompt")
        .unwrap();
    let mut out: Vec<Value> = records[..start].to_vec();
    let mut late = Vec::new();
    for n in 0..cycles {
        for record in &records[start..] {
            let mut r = record.clone();
            let event = &mut r["event"];
            if let Some(uuid) = event["uuid"].as_str() {
                event["uuid"] = json!(format!("{uuid}-{n}"));
            }
            if let Some(id) = event["toolCallId"].as_str() {
                event["toolCallId"] = json!(format!("{id}_{n}"));
            }
            if event["type"] == "tool.result" {
                if n % 3 == 1 {
                    event["result"]["output"] =
                        json!([{"type": "text", "text": "FAILED test_x\n".repeat(60)}]);
                }
                if n % 5 == 2 {
                    late.push(r);
                    continue;
                }
            }
            let is_call = r["event"]["type"] == "tool.call";
            out.push(r);
            if is_call && n % 5 == 4 {
                out.append(&mut late);
            }
        }
    }
    out.append(&mut late);
    out
}

/// The sample's events: the session start once, the turns (up to the shutdown) repeated
/// `cycles` times. The results of every fifth cycle come after the first message of the
/// cycle two on, so that a step waits for them while more than a handful of later steps
/// start.
pub fn long_copilot(cycles: usize) -> Vec<Value> {
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

/// The sample's messages: system and task once, the rest repeated `cycles` times. Every
/// fifth cycle's answers come after the next cycle's first call, so that a step waits for
/// its answer while later steps start.
pub fn long_chat(cycles: usize) -> Vec<Value> {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories/chat/tinycalc__tinycalc-1.jsonl");
    let messages: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let start = messages
        .iter()
        .position(|m| m["role"] == "assistant")
        .unwrap();
    let mut out: Vec<Value> = messages[..start].to_vec();
    let mut late = Vec::new();
    for n in 0..cycles {
        for message in &messages[start..] {
            let mut m = message.clone();
            if let Some(calls) = m["tool_calls"].as_array_mut() {
                for call in calls {
                    let id = call["id"].as_str().unwrap().to_string();
                    call["id"] = json!(format!("{id}_{n}"));
                }
            }
            if let Some(id) = m["tool_call_id"].as_str() {
                m["tool_call_id"] = json!(format!("{id}_{n}"));
                if n % 3 == 1 {
                    m["content"] = json!(format!("{n}: {}", "FAILED test_x\n".repeat(60)));
                }
                if n % 5 == 2 {
                    late.push(m);
                    continue;
                }
            }
            out.push(m);
            if m_is_call(&out) && n % 5 == 3 {
                out.append(&mut late);
            }
        }
    }
    out.append(&mut late);
    out
}

fn m_is_call(out: &[Value]) -> bool {
    out.last().is_some_and(|m| m["tool_calls"].is_array())
}

/// The mini-swe-agent 1.x sample (text mode: the command in a fenced block of the answer).
pub const MINI_V1: &str = "mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json";

/// The 2.x sample's turns repeated with their texts numbered, some observations long.
pub fn long_mini(out: &Path, cycles: usize) {
    long_mini_of(MINI_V2, out, cycles);
}

/// [`long_mini`] of the text-mode sample: some answers long too, with a long thought before
/// their command or a long text after it.
pub fn long_mini_text(out: &Path, cycles: usize) {
    long_mini_of(MINI_V1, out, cycles);
}

fn long_mini_of(rel: &str, out: &Path, cycles: usize) {
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(sample(rel)).unwrap()).unwrap();
    let messages = doc["messages"].as_array().unwrap().clone();
    let (head, body) = messages.split_at(2);
    let (exit, turns) = body.split_last().unwrap();
    let mut all: Vec<Value> = head.to_vec();
    let mut n = 0;
    for _ in 0..cycles {
        for turn in turns {
            let mut m = turn.clone();
            if let Some(text) = m["content"].as_str() {
                let text = if n % 5 == 3 {
                    format!("{text}\n{}", "FAILED test_x - AssertionError\n".repeat(100))
                } else if n % 5 == 1 && m["role"] == "assistant" {
                    format!("{}{text}", "Let me think about this step.\n".repeat(100))
                } else {
                    text.to_string()
                };
                m["content"] = json!(format!("#{n} {text}"));
            }
            all.push(m);
            n += 1;
        }
    }
    all.push(exit.clone());
    doc["messages"] = Value::Array(all);
    std::fs::write(out, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
}

/// The blocks of a line's message.
fn blocks(line: &mut Value) -> &mut Vec<Value> {
    line["message"]["content"].as_array_mut().unwrap()
}

/// A Cursor transcript: the sample's lines repeated `cycles` times with fresh tool ids. In every fifth cycle the
/// first result line is held back and logged after the second call of the cycle two on, so
/// that a step waits for it while more than a handful of later steps start.
pub fn long_cursor(cycles: usize) -> Vec<Value> {
    let sample = sample("cursor/agent-transcripts/8399813c-8e99-56b7-b2b4-ae7570985cb1.jsonl");
    let lines: Vec<Value> = std::fs::read_to_string(sample)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut out = Vec::new();
    let mut late: Vec<Value> = Vec::new();
    for n in 0..cycles {
        let mut results = 0;
        let mut calls = 0;
        for line in &lines {
            let mut l = line.clone();
            let mut is_result = false;
            let mut is_call = false;
            if l.get("message").is_some() {
                for block in blocks(&mut l) {
                    if let Some(id) = block["id"].as_str() {
                        block["id"] = json!(format!("{id}_{n}"));
                        is_call = true;
                    }
                    if let Some(id) = block["tool_use_id"].as_str() {
                        block["tool_use_id"] = json!(format!("{id}_{n}"));
                        is_result = true;
                        if n % 3 == 1 {
                            block["content"] = json!("FAILED test_x\n".repeat(60));
                        }
                    }
                    if let Some(text) = block["text"].as_str() {
                        block["text"] = json!(format!("#{n} {text}"));
                    }
                }
            }
            if is_result {
                results += 1;
                if n % 5 == 2 && results == 1 {
                    late.push(l);
                    continue;
                }
            }
            out.push(l);
            if is_call {
                calls += 1;
                if n % 5 == 4 && calls == 2 {
                    out.append(&mut late);
                }
            }
        }
    }
    out.append(&mut late);
    out
}

/// The Gemini CLI sample session.
pub fn gemini_sample() -> Value {
    let path = sample("gemini-cli/session-2026-01-05T08-00-6ce1f3e4.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Gemini CLI messages: the sample's repeated `cycles` times with fresh message and call ids; every
/// third cycle's tool outputs long (their `Exit Code` line kept last).
pub fn long_gemini(cycles: usize) -> Vec<Value> {
    let doc = gemini_sample();
    let mut out = Vec::new();
    for n in 0..cycles {
        for message in doc["messages"].as_array().unwrap() {
            let mut m = message.clone();
            m["id"] = json!(format!("{}-{n}", m["id"].as_str().unwrap()));
            for call in m["toolCalls"].as_array_mut().into_iter().flatten() {
                let id = format!("{}-{n}", call["id"].as_str().unwrap());
                call["id"] = json!(id);
                for part in call["result"].as_array_mut().into_iter().flatten() {
                    let response = &mut part["functionResponse"]["response"];
                    if n % 3 == 1
                        && let Some(output) = response["output"].as_str()
                    {
                        let long = format!("{}{output}", "FAILED test_x\n".repeat(60));
                        response["output"] = json!(long);
                    }
                }
            }
            out.push(m);
        }
    }
    out
}

/// The JSON Lines variant of `messages`: the session's first line, then each message, a
/// model message with calls first without their results, re-written with them `delay(n)`
/// messages later; a `$set` line after each user message.
pub fn gemini_jsonl(messages: &[Value], delay: impl Fn(usize) -> usize) -> String {
    let doc = gemini_sample();
    let mut head = doc.clone();
    head.as_object_mut().unwrap().remove("messages");
    let mut lines = vec![head.to_string()];
    // (messages still to write before it, the re-write)
    let mut rewrites: Vec<(usize, Value)> = Vec::new();
    for (n, message) in messages.iter().enumerate() {
        let mut first = message.clone();
        let mut calls = false;
        for call in first["toolCalls"].as_array_mut().into_iter().flatten() {
            call.as_object_mut().unwrap().remove("result");
            call["status"] = json!("executing");
            calls = true;
        }
        lines.push(first.to_string());
        if message["type"] == "user" {
            lines.push(json!({"$set": {"lastUpdated": format!("t{n}")}}).to_string());
        }
        if calls {
            rewrites.push((delay(n), message.clone()));
        }
        for (left, rewrite) in &mut rewrites {
            if *left == 0 {
                lines.push(rewrite.to_string());
            }
            *left = left.wrapping_sub(1);
        }
        rewrites.retain(|(left, _)| *left != usize::MAX);
    }
    for (_, rewrite) in rewrites {
        lines.push(rewrite.to_string());
    }
    lines.join("\n") + "\n"
}
