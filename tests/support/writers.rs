//! Simulated agent writers, built from the bundled samples: every version of a log that the
//! real writer leaves on disk as a run goes, with every part of the file growing as it does
//! there, and the ways a file gets written (atomic rename, in place, torn).
//!
//! - SWE-agent 1.1 (`query` per step), 1.0 (`messages`: the history after the step) and 0.x
//!   (neither): after each step the whole `.traj` is written again, with `trajectory`,
//!   `history` and `info.model_stats` all grown, and the exit status only at the end;
//! - mini-swe-agent: the `.traj.json` after each message (the answer, then its observation);
//! - OpenHands: the session's event list after each event;
//! - Claude Code and Codex: their JSONL appended line by line.
//!
//! Include with `#[path = "support/writers.rs"] mod writers;`.

#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub fn sample(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories")
        .join(path)
}

fn read_json(path: &str) -> Value {
    serde_json::from_slice(&std::fs::read(sample(path)).unwrap()).unwrap()
}

pub const SWE_AGENT: &str = "swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj";
pub const MINI: &str = "mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json";
pub const OPENHANDS: &str = "openhands/tinycalc__tinycalc-1.json";
pub const CLAUDE_CODE: &str = "claude-code/tinycalc__tinycalc-1.jsonl";
pub const CODEX: &str = "codex/tinycalc__tinycalc-1.jsonl";

/// A small deterministic random source, so that a failure can be replayed.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SweAgentVersion {
    V0,
    V1_0,
    V1_1,
}

/// The `.traj` after each step, as SWE-agent of `version` writes it.
pub fn swe_agent_versions(version: SweAgentVersion) -> Vec<Vec<u8>> {
    let done = read_json(SWE_AGENT);
    let history = done["history"].as_array().unwrap().clone();
    let steps = done["trajectory"].as_array().unwrap().clone();
    let answers: Vec<usize> = history
        .iter()
        .enumerate()
        .filter(|(_, m)| m["role"] == "assistant")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        answers.len(),
        steps.len(),
        "one answer per step in the sample"
    );
    let mut out = Vec::new();
    for k in 1..=steps.len() {
        // The history up to the k-th answer's observations: up to the next answer.
        let cut = answers.get(k).copied().unwrap_or(history.len());
        let mut doc = done.clone();
        doc["history"] = Value::Array(history[..cut].to_vec());
        let mut trajectory = steps[..k].to_vec();
        for step in &mut trajectory {
            let step = step.as_object_mut().unwrap();
            match version {
                SweAgentVersion::V1_1 => {}
                SweAgentVersion::V1_0 => {
                    step.remove("query");
                }
                SweAgentVersion::V0 => {
                    step.remove("query");
                    step.remove("extra_info");
                }
            }
        }
        if version == SweAgentVersion::V1_0 {
            for (j, step) in trajectory.iter_mut().enumerate() {
                let after = answers.get(j + 1).copied().unwrap_or(history.len());
                step["messages"] = Value::Array(history[..after].to_vec());
            }
        }
        doc["trajectory"] = Value::Array(trajectory);
        if k < steps.len() {
            let version_field = done["info"]["swe_agent_version"].clone();
            let cost = 0.01 * k as f64;
            let mut info = json!({
                "swe_agent_version": version_field,
                "model_stats": {"instance_cost": cost, "api_calls": k},
            });
            if version == SweAgentVersion::V0 {
                info.as_object_mut().unwrap().remove("swe_agent_version");
            }
            doc["info"] = info;
        }
        out.push(serde_json::to_vec_pretty(&doc).unwrap());
    }
    out
}

/// The mini-swe-agent `.traj.json` after each message from the first answer on.
pub fn mini_versions() -> Vec<Vec<u8>> {
    let done = read_json(MINI);
    let messages = done["messages"].as_array().unwrap().clone();
    let mut out = Vec::new();
    for end in 3..messages.len() {
        let mut doc = done.clone();
        doc["messages"] = Value::Array(messages[..end].to_vec());
        doc["info"] = json!({"model_stats": {"api_calls": end / 2}});
        out.push(serde_json::to_vec_pretty(&doc).unwrap());
    }
    out.push(serde_json::to_vec_pretty(&done).unwrap());
    out
}

/// The OpenHands event list after each event.
pub fn openhands_versions() -> Vec<Vec<u8>> {
    let events = read_json(OPENHANDS).as_array().unwrap().clone();
    (1..=events.len())
        .map(|k| serde_json::to_vec_pretty(&Value::Array(events[..k].to_vec())).unwrap())
        .collect()
}

/// How a rewriting writer puts a version on disk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rewrite {
    /// Written to a temporary file beside it, then renamed over it.
    Atomic,
    /// Truncated and written in one go.
    InPlace,
    /// Truncated, part written and flushed, a pause, the rest: a reader can see it torn.
    Torn,
}

pub fn rewrite(path: &Path, bytes: &[u8], how: Rewrite, rng: &mut Lcg) {
    match how {
        Rewrite::Atomic => {
            let tmp = path.with_extension("tmp-write");
            std::fs::write(&tmp, bytes).unwrap();
            std::fs::rename(&tmp, path).unwrap();
        }
        Rewrite::InPlace => std::fs::write(path, bytes).unwrap(),
        Rewrite::Torn => {
            let mut file = std::fs::File::create(path).unwrap();
            let cut = rng.below(bytes.len());
            file.write_all(&bytes[..cut]).unwrap();
            file.flush().unwrap();
            std::thread::sleep(Duration::from_millis(1 + rng.below(20) as u64));
            file.write_all(&bytes[cut..]).unwrap();
        }
    }
}

/// Appends `bytes` line by line, each line in pieces (a reader can see half a line), with
/// `pause` after each line.
pub fn append_lines(path: &Path, bytes: &[u8], pause: Duration, rng: &mut Lcg) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let cut = rng.below(line.len());
        file.write_all(&line[..cut]).unwrap();
        file.flush().unwrap();
        std::thread::sleep(Duration::from_millis(rng.below(3) as u64));
        file.write_all(&line[cut..]).unwrap();
        file.flush().unwrap();
        std::thread::sleep(pause);
    }
}
