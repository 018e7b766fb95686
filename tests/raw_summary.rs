//! The raw-byte summary of a SWE-agent `.traj` (what `ls` and the run cache list) is the
//! summary of the file read at `Detail::Steps`, on every file of the corpus and the samples
//! and on generated files that put its shortcuts on their edges; files it cannot summarise
//! exactly are left to the usual read (`None`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/summaries.rs"]
mod summaries;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use summaries::{usual, write};
use trajscope::formats::raw_summary;
use trajscope::model::Step;

/// Checks every file under `root` (see `summaries::agrees_under`).
fn agrees_under(root: &Path) -> usize {
    summaries::agrees_under(
        root,
        &|e: &std::fs::DirEntry| e.metadata().is_ok_and(|m| m.len() < 64 << 20),
        None,
    )
}

#[test]
fn the_corpus_and_the_samples_summarise_as_when_read_whole() {
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories");
    assert!(agrees_under(&samples) >= 2);
    if let Some(coder) = corpus::corpus("coder-swebench-lite/trajs") {
        // Every CodeR trajectory takes the raw path: that is the speed `ls` is after.
        assert_eq!(agrees_under(&coder), 99);
    }
    if let Some(all) = corpus::corpus("") {
        assert!(agrees_under(&all) >= 105);
    }
}

/// A 0.x file (history matched to steps) with the given observations and actions.
fn traj(steps: &[(&str, &str)], history_extra: Value) -> Value {
    let mut history = vec![
        json!({"role": "system", "content": "SYS \"quoted\" \\ path", "agent": "main"}),
        json!({"role": "user", "content": "ISSUE:\nbroken\n\nINSTRUCTIONS:\n", "agent": "main"}),
    ];
    for (i, (action, observation)) in steps.iter().enumerate() {
        // Every other answer names its action only in its content (matched by `contains`).
        if i % 2 == 0 {
            history.push(json!({"role": "assistant", "content": format!("r{i}"), "action": action, "agent": "main"}));
        } else {
            history.push(
                json!({"role": "assistant", "content": format!("so:\n{action}"), "agent": "main"}),
            );
        }
        history.push(json!({"role": "user", "content": observation, "agent": "main"}));
    }
    history.push(history_extra);
    json!({
        "environment": "swe_main",
        "trajectory": steps.iter().map(|(a, o)| json!({"action": a, "observation": o, "response": "r", "thought": "t \\ \"", "state": "{}"})).collect::<Vec<_>>(),
        "history": history,
        "info": {"exit_status": "submitted", "submission": "diff --git a/x b/x\n+y\n", "model_stats": {"instance_cost": 0.5, "tokens_sent": 10, "tokens_received": 2, "api_calls": 2}},
        "replay_config": "{\"agent\": {\"model\": {\"name\": \"gpt-4\"}}}",
    })
}

#[test]
fn observation_heads_cut_at_the_error_window_and_escapes_agree() {
    let dir = tempfile::tempdir().unwrap();
    let filler = |n: usize, unit: &str| unit.repeat(n / unit.len());
    let observations = [
        // A marker just inside and just outside the 16 KiB window, in plain text and
        // behind escapes (which make the raw text longer than the decoded one).
        format!(
            "{}Traceback (most recent call last)",
            filler(16 * 1024 - 40, "x")
        ),
        format!(
            "{}Traceback (most recent call last)",
            filler(16 * 1024 + 8, "x")
        ),
        format!(
            "{}Traceback (most recent call last)",
            filler(16 * 1024 - 40, "\"\n\\")
        ),
        format!("{}SyntaxError: bad", filler(16 * 1024 + 3, "é\t")),
        format!("{}command not found", filler(20 * 1024, "ab\n")),
        format!("{}No such file or directory", filler(30 * 1024, "€ ")),
        "short\nError: (none)".to_string(),
        String::new(),
    ];
    let steps: Vec<(&str, &str)> = observations
        .iter()
        .enumerate()
        .map(|(i, o)| match i {
            7 => ("exit_cost", o.as_str()),
            _ => (["ls\n", "python a.py\n"][i % 2], o.as_str()),
        })
        .collect();
    // Two markers fall inside the window; the text after the first 16 KiB is not looked at.
    let errors = observations
        .iter()
        .filter(|o| {
            Step {
                observation: o.to_string(),
                ..Step::default()
            }
            .is_error()
        })
        .count();
    assert_eq!(errors, 2);
    let doc = traj(
        &steps,
        json!({"role": "assistant", "content": "unmatched", "action": "nope", "agent": "main"}),
    );
    for (name, text) in [
        ("plain.traj", serde_json::to_string(&doc).unwrap()),
        ("pretty.traj", serde_json::to_string_pretty(&doc).unwrap()),
        // Python's `json.dump` writes non-ASCII as `\uXXXX`.
        (
            "ascii.traj",
            to_ascii(&serde_json::to_string(&doc).unwrap()),
        ),
    ] {
        let (path, bytes) = write(dir.path(), name, &text);
        let raw = raw_summary(&path, &bytes).unwrap_or_else(|| panic!("{name}: not taken"));
        assert_eq!(Some(vec![raw.clone()]), usual(&path, &bytes), "{name}");
        // The checks above could pass on empty summaries: these could not.
        assert_eq!(raw.steps, observations.len(), "{name}");
        assert_eq!(raw.error_steps, errors, "{name}");
        assert_eq!(raw.forced_exit.as_deref(), Some("exit_cost"), "{name}");
    }
    // Unmatched steps give the full read's warning (answers without `action`, no history).
    let unmatched = traj(
        &[("ls", "a"), ("cat b", "b")],
        json!({"role": "user", "content": "x"}),
    );
    let mut unmatched = unmatched;
    unmatched["history"] = json!([{"role": "assistant", "content": "other", "action": "pwd"}]);
    let (path, bytes) = write(dir.path(), "warn.traj", &unmatched.to_string());
    let raw = raw_summary(&path, &bytes).unwrap();
    assert_eq!(raw.warnings.len(), 1);
    assert_eq!(Some(vec![raw]), usual(&path, &bytes));
}

/// `\uXXXX` for every non-ASCII character, as Python writes by default.
fn to_ascii(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

#[test]
fn files_it_cannot_read_exactly_are_left_to_the_usual_read() {
    let dir = tempfile::tempdir().unwrap();
    // The last answer matches no step; its content is decoded (steps are matched to answers
    // by their contents), so what is wrong in it is seen.
    let good = traj(
        &[("ls", "a.py")],
        json!({"role": "assistant", "content": "x"}),
    )
    .to_string();
    let (path, bytes) = write(dir.path(), "good.traj", &good);
    assert!(raw_summary(&path, &bytes).is_some());
    let broken = [
        // An unknown escape, a raw control character and a bad `\u` in an answer: serde
        // refuses each, so the usual read words the error.
        good.replace("\"content\":\"x\"", "\"content\":\"a\\qb\""),
        good.replace("\"content\":\"x\"", "\"content\":\"a\u{1}b\""),
        good.replace("\"content\":\"x\"", "\"content\":\"a\\u12G4\""),
        // A duplicate member, a step that is not an object, a history-only file.
        good.replacen("{", "{\"info\":{},", 1),
        good.replace("\"trajectory\":[{", "\"trajectory\":[7,{"),
        json!({"history": [{"role": "assistant", "content": "x", "action": "ls"}]}).to_string(),
        // Brackets that do not match inside a skipped value.
        good.replace("\"state\":\"{}\"", "\"state\":[{]}"),
    ];
    for (i, text) in broken.iter().enumerate() {
        assert_ne!(text, &good, "case {i} changed nothing");
        let (path, bytes) = write(dir.path(), &format!("bad{i}.traj"), text);
        assert!(raw_summary(&path, &bytes).is_none(), "case {i}: {text}");
    }
    // Invalid UTF-8 is repaired by the usual read, with a warning.
    let mut bytes = good.clone().into_bytes();
    let at = good.find("a.py").unwrap();
    bytes[at] = 0xff;
    let path = dir.path().join("latin.traj");
    std::fs::write(&path, &bytes).unwrap();
    assert!(raw_summary(&path, &bytes).is_none());
}
