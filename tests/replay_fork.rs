//! Replay against scripted servers: the request for step k is the recorded context, and every
//! backend fault (HTTP 500, a connection dropped mid-stream, a malformed event, a cancel during
//! slow tokens) ends the live loop with a clear status and a fork file that loads, holding the
//! steps completed before the fault. Also `trajscope replay` end to end against the loopback:
//! the fork path is the last line, and a failing backend still leaves a fork.
//!
//! The live loop needs bash and git (the scratch copy of the sample repository); those tests
//! skip, saying so, without them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/loopback.rs"]
mod loopback;

#[path = "support/cli.rs"]
mod cli;

use loopback::{Loopback, Reply, openai_sse, split};
use std::path::{Path, PathBuf};
use std::time::Duration;
use trajscope::backend::{
    Backend, BackendConfig, BackendKind, CancellationToken, RetryPolicy, Timeouts,
};
use trajscope::formats::{Loaded, load_file};
use trajscope::model::{ForkOrigin, Format, Trajectory};
use trajscope::replay::agent::{AgentLoop, LoopLimits};
use trajscope::replay::driver::{LiveOutcome, request_for, run_live};
use trajscope::replay::fork::ForkWriter;
use trajscope::replay::input::{context_at, tools_used};
use trajscope::replay::{Dialect, Executor, Limits, Sandbox, Workspace, detect_root};

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

const MINI: &str = "mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json";

fn load(path: &Path) -> Trajectory {
    match load_file(path) {
        Ok(Loaded::Trajectories(mut t)) => t.remove(0),
        _ => panic!("{} does not load", path.display()),
    }
}

fn backend(url: &str) -> Backend {
    let config = BackendConfig::new(Some(BackendKind::OpenAi), url, "m")
        .with_timeouts(Timeouts {
            connect_s: 2.0,
            read_s: 2.0,
            total_s: 20.0,
        })
        .with_retry(RetryPolicy {
            max_retries: 1,
            initial_backoff_s: 0.01,
            max_backoff_s: 0.05,
        });
    Backend::with_lookup("loopback", config, &|_| None).unwrap()
}

fn available(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_request_for_step_k_is_the_recorded_context() {
    let path = samples().join(MINI);
    let t = load(&path);
    let raw: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let recorded = raw["messages"].as_array().unwrap();
    let backend = backend("http://127.0.0.1:9");
    for k in [1, 3, t.steps.len()] {
        let input = context_at(&t, k).unwrap();
        assert_eq!(input.exactness.as_str(), "exact");
        let prepared = backend.prepare(&request_for(input.messages, &tools_used(&t)));
        assert!(
            prepared.adaptations.is_empty(),
            "{:?}",
            prepared.adaptations
        );
        let sent = prepared.body["messages"].as_array().unwrap();
        // Step k saw the system prompt, the task, and k-1 answer/observation pairs: exactly the
        // log's first 2k messages, byte for byte.
        assert_eq!(sent.len(), 2 * k);
        for (s, r) in sent.iter().zip(recorded) {
            assert_eq!(s["role"], r["role"]);
            assert_eq!(s["content"], r["content"]);
        }
    }
    assert_eq!(
        backend
            .prepare(&request_for(
                context_at(&t, 3).unwrap().messages,
                &tools_used(&t)
            ))
            .body["stream"],
        true
    );
}

/// The parent copied into `dir` (forks are written next to it), and a live loop from step
/// `k` against `server`, with a scratch copy of the sample repository.
async fn live_from(
    dir: &Path,
    k: usize,
    server: &Loopback,
    cancel: &CancellationToken,
) -> (LiveOutcome, Trajectory) {
    let parent_path = dir.join("tinycalc__tinycalc-1.traj.json");
    std::fs::copy(samples().join(MINI), &parent_path).unwrap();
    let t = load(&parent_path);
    let dialect = Dialect::of(&t);
    let workspace = Workspace::create(&samples().join("repo")).unwrap();
    let root = detect_root(&t).map(|g| g.path);
    let mut executor = Executor::new(
        dialect.clone(),
        Sandbox::Scratch(workspace),
        root.as_deref(),
        Limits::default(),
    )
    .unwrap();
    let origin = ForkOrigin {
        parent: t.path.clone(),
        step: k,
        backend: Some("loopback".into()),
        model: Some("m".into()),
        settings: serde_json::Value::Null,
    };
    let mut writer = ForkWriter::create(&t, k, origin, "continue").unwrap();
    let input = context_at(&t, k).unwrap();
    let agent = AgentLoop::new(dialect, LoopLimits::default(), input.messages);
    let backend = backend(&server.base_url);
    let outcome = run_live(
        &backend,
        agent,
        &[],
        &mut executor,
        &mut writer,
        None,
        cancel,
        &mut |_| {},
    )
    .await
    .unwrap();
    (outcome, load(writer.path()))
}

fn answer(text: &str) -> String {
    let chunk = serde_json::json!({"choices":[{"index":0,"delta":{"content":text},"finish_reason":"stop"}]});
    openai_sse(&[&chunk.to_string()])
}

fn tools_ok() -> bool {
    let ok = available("bash") && available("git");
    if !ok {
        eprintln!("skipping: bash and git are needed for the scratch copy");
    }
    ok
}

#[tokio::test]
async fn a_server_error_ends_the_run_with_the_steps_before_it() {
    if !tools_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = Loopback::start(vec![
        Reply::sse(&answer("THOUGHT: look\n\n```bash\nls tinycalc\n```"), 16),
        Reply::status(500, "{\"error\":{\"message\":\"the model fell over\"}}"),
    ])
    .await;
    let (outcome, fork) = live_from(dir.path(), 3, &server, &CancellationToken::new()).await;
    assert_eq!(outcome.status, "BackendError");
    assert!(outcome.detail.contains("500"), "{}", outcome.detail);
    assert!(outcome.detail.contains("the model fell over"));
    assert_eq!(fork.format, Format::Trajscope);
    assert_eq!(fork.exit_status.as_deref(), Some("BackendError"));
    // Steps 1-2 from the parent, live step 3 (executed for real), nothing for the failure.
    assert_eq!(fork.steps.len(), 3);
    assert_eq!(fork.steps[2].action, "ls tinycalc");
    assert!(fork.steps[2].observation.contains("evaluator.py"));
    assert_eq!(fork.fork.as_ref().unwrap().step, 3);
}

#[tokio::test]
async fn a_dropped_connection_keeps_the_partial_answer_as_a_failed_step() {
    if !tools_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let partial = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"THOUGHT: half\"}}]}\n\ndata: {\"choi";
    let server = Loopback::start(vec![Reply::DropMidStream {
        pieces: split(partial, 20, Duration::ZERO),
    }])
    .await;
    let (outcome, fork) = live_from(dir.path(), 2, &server, &CancellationToken::new()).await;
    assert_eq!(outcome.status, "BackendError");
    assert_eq!(fork.steps.len(), 2);
    let last = &fork.steps[1];
    assert!(last.failed);
    assert_eq!(last.response, "THOUGHT: half");
    assert!(last.observation.contains("BackendError"));
}

#[tokio::test]
async fn a_malformed_event_is_reported_with_the_event() {
    if !tools_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = Loopback::start(vec![Reply::sse("data: {this is not json}\n\n", 100)]).await;
    let (outcome, fork) = live_from(dir.path(), 1, &server, &CancellationToken::new()).await;
    assert_eq!(outcome.status, "BackendError");
    assert!(
        outcome.detail.contains("this is not json"),
        "{}",
        outcome.detail
    );
    assert_eq!(fork.exit_status.as_deref(), Some("BackendError"));
    assert!(fork.steps.is_empty());
}

#[tokio::test]
async fn cancelling_during_slow_tokens_stops_at_once_and_records_the_partial_step() {
    if !tools_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let chunks: Vec<String> = (0..50)
        .map(|i| {
            serde_json::json!({"choices":[{"index":0,"delta":{"content":format!("tok{i} ")}}]})
                .to_string()
        })
        .collect();
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let body = openai_sse(&refs);
    let server = Loopback::start(vec![Reply::Stream {
        pieces: split(&body, 40, Duration::from_millis(100)),
        chunked: true,
    }])
    .await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(600)).await;
        trigger.cancel();
    });
    let started = std::time::Instant::now();
    let (outcome, fork) = live_from(dir.path(), 2, &server, &cancel).await;
    assert_eq!(outcome.status, "Cancelled");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the whole stream would take over 10 s"
    );
    assert_eq!(fork.exit_status.as_deref(), Some("Cancelled"));
    let last = fork.steps.last().unwrap();
    assert!(last.failed);
    assert!(last.response.starts_with("tok0 "), "{}", last.response);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_prints_the_fork_path_last_even_when_the_backend_fails() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().join("tinycalc__tinycalc-1.traj.json");
    std::fs::copy(samples().join(MINI), &parent).unwrap();
    let server = Loopback::start(vec![
        Reply::sse(
            &answer("THOUGHT: again\n\n```bash\nnl -ba tinycalc/evaluator.py\n```"),
            8,
        ),
        Reply::status(400, "{\"error\":{\"message\":\"context too long\"}}"),
    ])
    .await;
    let run = |extra: &[&str]| {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_trajscope"));
        cmd.arg("replay")
            .arg(&parent)
            .args([
                "--step",
                "2",
                "--base-url",
                &server.base_url,
                "--model",
                "m",
            ])
            .args(extra)
            .env("XDG_CONFIG_HOME", dir.path().join("no-config"));
        cmd
    };
    let out = run(&[]).output().await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = PathBuf::from(stdout.lines().last().unwrap());
    let fork = load(&last);
    assert_eq!(fork.exit_status.as_deref(), Some("Resampled"));
    assert_eq!(fork.steps.len(), 2);
    // The recorded step 2 ran `nl -ba tinycalc/evaluator.py` too.
    assert!(stdout.contains("same as recorded: yes"), "{stdout}");

    let out = run(&["--json"]).output().await.unwrap();
    assert!(!out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let path = PathBuf::from(json["fork_path"].as_str().unwrap());
    assert_ne!(path, last, "a second fork never replaces the first");
    let fork = load(&path);
    assert_eq!(fork.exit_status.as_deref(), Some("BackendError"));
    assert!(
        json["runs"][0]["error"]
            .as_str()
            .unwrap()
            .contains("context too long")
    );
}

#[test]
fn an_edited_context_is_what_the_dry_run_shows() {
    let dir = tempfile::tempdir().unwrap();
    let parent = dir.path().join("tinycalc__tinycalc-1.traj.json");
    std::fs::copy(samples().join(MINI), &parent).unwrap();
    let json = cli::json_of(
        cli::trajscope()
            .arg("replay")
            .arg(&parent)
            .args(["--step", "3", "--edit", "--dry-run", "--json"])
            .args(["--base-url", "http://127.0.0.1:9", "--model", "m"])
            .env("XDG_CONFIG_HOME", dir.path().join("no-config"))
            .env_remove("VISUAL")
            .env("EDITOR", "sed -i s/floor.division/FLOOR-DIVISION/g"),
    );
    assert!(json["note"].as_str().unwrap().contains("edited"));
    let body = json["requests"][0]["body"].to_string();
    assert!(body.contains("FLOOR-DIVISION"));
    assert!(!body.contains("floor division"));
    // A dry run writes nothing.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
