//! `trajscope watch` end to end: a writer rewrites a mini-swe-agent trajectory step by step
//! (truncate + write, as the agent does); the real binary must print each step once, in
//! order. Prints the measured write-to-print latency (the goal is under 200 ms); asserts only
//! with generous timeouts, so that a loaded machine does not make it flaky.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn trajectory(steps: usize) -> Vec<u8> {
    let mut messages = vec![
        json!({"role": "system", "content": "sys"}),
        json!({"role": "user", "content": "fix the bug"}),
    ];
    for i in 1..=steps {
        messages.push(json!({"role": "assistant", "content": format!("THOUGHT: step {i}\n\n```bash\necho step-{i}\n```")}));
        messages.push(json!({"role": "user", "content": format!("<returncode>0</returncode>\n<output>\nstep-{i}\n</output>")}));
    }
    serde_json::to_vec_pretty(
        &json!({"info": {}, "messages": messages, "trajectory_format": "mini-swe-agent-1"}),
    )
    .unwrap()
}

#[test]
fn watch_prints_each_rewritten_step_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.traj.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["watch", "--json"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<(Instant, Value)>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(value) = serde_json::from_str(&line)
                && tx.send((Instant::now(), value)).is_err()
            {
                break;
            }
        }
    });
    // Let the watcher start before the first write.
    std::thread::sleep(Duration::from_millis(500));

    let mut latencies = Vec::new();
    for steps in 1..=6 {
        let bytes = trajectory(steps);
        // A torn write first: half the document, as a reader may see mid-rewrite.
        {
            let mut file = std::fs::File::create(&path).unwrap();
            file.write_all(&bytes[..bytes.len() / 2]).unwrap();
            file.flush().unwrap();
        }
        std::thread::sleep(Duration::from_millis(30));
        let written = Instant::now();
        std::fs::write(&path, &bytes).unwrap();
        let (seen, value) = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("step printed");
        assert_eq!(value["kind"], "step");
        assert_eq!(value["step"], steps, "steps arrive once, in order: {value}");
        assert!(value["path"].as_str().unwrap().ends_with("live.traj.json"));
        latencies.push(seen.duration_since(written));
    }
    child.kill().unwrap();
    let _ = child.wait();
    assert!(
        rx.recv_timeout(Duration::from_millis(300)).is_err(),
        "no duplicate steps"
    );
    let ms: Vec<u128> = latencies.iter().map(Duration::as_millis).collect();
    eprintln!("watch latency per step (ms): {ms:?}");
}

/// A mini-swe-agent step whose command fails with a syntax error, costing `cost` dollars.
fn failing_trajectory(steps: usize, cost: f64) -> Vec<u8> {
    let mut messages = vec![
        json!({"role": "system", "content": "sys"}),
        json!({"role": "user", "content": "fix the bug"}),
    ];
    for i in 1..=steps {
        messages.push(json!({"role": "assistant", "content": format!("THOUGHT: try {i}\n\n```bash\npython fix_{i}.py\n```")}));
        messages.push(json!({"role": "user", "content": "<returncode>1</returncode>\n<output>\n  File \"fix.py\", line 1\nSyntaxError: invalid syntax\n</output>"}));
    }
    serde_json::to_vec_pretty(&json!({
        "info": {"model_stats": {"instance_cost": cost, "api_calls": steps}},
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1"
    }))
    .unwrap()
}

#[test]
fn watch_reports_alerts_as_they_fire() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let rules = dir.path().join("alerts.toml");
    std::fs::write(
        &rules,
        "[[rule]]\nname = \"over_budget\"\ncost_above = 0.5\nalert = true\n",
    )
    .unwrap();
    let path = logs.join("run.traj.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["watch", "--json", "--rules"])
        .arg(&rules)
        .arg(&logs)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(value) = serde_json::from_str(&line)
                && tx.send(value).is_err()
            {
                break;
            }
        }
    });
    std::thread::sleep(Duration::from_millis(500));
    let mut lines = Vec::new();
    for steps in 1..=4 {
        std::fs::write(&path, failing_trajectory(steps, 0.2 * steps as f64)).unwrap();
        // Each write brings one step line and maybe alerts; collect until the step shows.
        loop {
            let value = rx.recv_timeout(Duration::from_secs(10)).expect("output");
            let is_step = value["kind"] == "step";
            lines.push(value);
            if is_step {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // The alerts of the last write come after its step line.
    while let Ok(value) = rx.recv_timeout(Duration::from_millis(500)) {
        lines.push(value);
    }
    child.kill().unwrap();
    let _ = child.wait();

    let alerts: Vec<(String, u64)> = lines
        .iter()
        .filter(|v| v["kind"] == "alert")
        .map(|v| {
            assert!(v["path"].as_str().unwrap().ends_with("run.traj.json"));
            (
                v["rule"].as_str().unwrap().to_string(),
                v["step"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        alerts,
        vec![
            ("syntax_errors_in_a_row".to_string(), 3),
            ("over_budget".to_string(), 3),
        ],
        "each alert once, at the step where it fired: {lines:?}"
    );
    let steps: Vec<u64> = lines
        .iter()
        .filter(|v| v["kind"] == "step")
        .map(|v| v["step"].as_u64().unwrap())
        .collect();
    assert_eq!(steps, vec![1, 2, 3, 4]);
}

/// In text mode a chat log's step is printed when the call arrives and again when its result
/// does; the second line must say it is the same step, updated, not a new one.
#[test]
fn watch_text_marks_a_step_printed_again_as_updated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    let line = |v: Value| format!("{v}\n");
    std::fs::write(
        &path,
        line(json!({"role": "system", "content": "sys"}))
            + &line(json!({"role": "user", "content": "fix the bug"})),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .arg("watch")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    std::thread::sleep(Duration::from_millis(500));
    let append = |text: String| {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(text.as_bytes()).unwrap();
    };
    append(line(
        json!({"role": "assistant", "content": "Look first.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls\"}"}}
        ]}),
    ));
    let call = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("call printed");
    assert!(call.contains("step   1 bash"), "{call}");
    assert!(!call.contains("[updated]"), "{call}");
    append(line(
        json!({"role": "tool", "tool_call_id": "c1", "content": "ls: cannot access 'x': No such file or directory"}),
    ));
    let result = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("result printed");
    child.kill().unwrap();
    let _ = child.wait();
    assert!(result.contains("step   1 bash"), "{result}");
    assert!(result.ends_with("[updated]"), "{result}");
    assert!(
        result.contains("[error]"),
        "the observation arrived: {result}"
    );
}
