//! `trajscope replay --continue` on a log you did not write: the model's answers come from a
//! scripted loopback server speaking the real wire protocol (tests/support/loopback.rs), the
//! commands run for real under bubblewrap, and each test asserts what could escape did not:
//! a write outside the workspace (`/tmp/…`, `../../…`), a network connection, a background
//! process that would outlive the run. Then the refusals (no sandbox tool, no terminal), the
//! hand-edited answer at step K, and forks that say why the live part ended.
//!
//! The sandbox tests skip, saying so, where `bwrap` is not installed (`.ci/run` installs it).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/loopback.rs"]
mod loopback;

use loopback::{Loopback, Reply, openai_sse};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const MINI: &str = "mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json";

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

fn have_bwrap() -> bool {
    let ok = Command::new("bwrap")
        .args([
            "--ro-bind",
            "/",
            "/",
            "--unshare-all",
            "--cap-drop",
            "ALL",
            "true",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipping: bubblewrap (bwrap) is not installed or does not work here");
    }
    ok
}

/// A run folder with the parent log, and the repository at its starting state.
struct Setup {
    dir: tempfile::TempDir,
    parent: PathBuf,
    workspace: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("run");
    std::fs::create_dir_all(&runs).unwrap();
    let parent = runs.join("tinycalc__tinycalc-1.traj.json");
    std::fs::copy(samples().join(MINI), &parent).unwrap();
    let workspace = dir.path().join("tinycalc");
    let out = Command::new("python3")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/record-samples.py"))
        .arg("--prepare-workspace")
        .arg(&workspace)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    Setup {
        dir,
        parent,
        workspace,
    }
}

/// An answer in mini-swe-agent's shape (one bash block), streamed in small pieces.
fn answer(command: &str) -> Reply {
    let content = format!("THOUGHT: let me check.\n\n```bash\n{command}\n```");
    let chunk = serde_json::json!({"choices":[{"index":0,"delta":{"content": content},"finish_reason":"stop"}]});
    Reply::sse(&openai_sse(&[&chunk.to_string()]), 7)
}

fn replay(s: &Setup, url: &str, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_trajscope"));
    cmd.env("XDG_CONFIG_HOME", s.dir.path().join("no-config"))
        .arg("replay")
        .arg(&s.parent)
        .args(["--continue", "--workspace"])
        .arg(&s.workspace)
        .args(["--base-url", url, "--model", "m"])
        .args(extra)
        .stdin(Stdio::null());
    cmd
}

fn json_of(out: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)))
}

fn fork_of(json: &serde_json::Value) -> serde_json::Value {
    let path = json["fork_path"].as_str().expect("fork_path");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Processes on this machine whose command line is exactly `words`.
fn processes(words: &[&str]) -> Vec<u32> {
    let wanted = words.join("\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).trim_end_matches('\0') == wanted)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn what_a_live_action_tries_to_escape_with_is_contained() {
    if !have_bwrap() {
        return;
    }
    let s = setup();
    let tag = format!("trajscope-escape-{}", std::process::id());
    let outside = PathBuf::from(format!("/tmp/{tag}"));
    // Where `../../` of the scratch copy, and of the repository it was copied from, lead.
    let up_scratch = PathBuf::from(format!("/tmp/{tag}-up"));
    let up_source = s.dir.path().parent().unwrap().join(format!("{tag}-up"));
    // A home of our own: a secret in it, and a toolchain folder the sandbox shows read-only.
    let home = s.dir.path().join("home");
    std::fs::create_dir_all(home.join(".cargo/bin")).unwrap();
    std::fs::write(home.join(".cargo/bin/tool"), "#!/bin/sh\n").unwrap();
    std::fs::write(home.join("secret.txt"), "the-home-secret\n").unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let command = format!(
        "echo pwned > {outside} && echo WROTE-TMP; echo x > ../../{tag}-up && echo WROTE-UP; \
         echo pwned > ~/.cargo/bin/{tag} && echo WROTE-TOOLCHAIN; \
         cat ~/secret.txt; ls ~/.cargo/bin; \
         (echo hi > /dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo CONNECTED || echo NO-NETWORK; \
         setsid nohup sleep 77.{port} > /dev/null 2>&1 & \
         echo started; ls -a ~ | head -50; env | sort",
        outside = outside.display(),
    );
    let server = Loopback::start(vec![answer(&command)]).await;
    let out = replay(
        &s,
        &server.base_url,
        &["--step", "1", "--yes", "--max-steps", "1", "--json"],
    )
    .env("TRAJSCOPE_TEST_SECRET", "do-not-leak-0123456789")
    .env("HOME", &home)
    .output()
    .unwrap();
    let json = json_of(&out);
    let fork = fork_of(&json);
    let step = &fork["steps"][0];
    let observation = step["observation"].as_str().unwrap();
    // The writes either failed or landed in the sandbox's private /tmp: nothing on the host.
    assert!(!outside.exists(), "{observation}");
    assert!(!up_scratch.exists(), "{observation}");
    assert!(!up_source.exists(), "{observation}");
    // The home is hidden but for its toolchain folders, which are read-only.
    assert!(
        !home.join(".cargo/bin").join(&tag).exists(),
        "{observation}"
    );
    assert!(!observation.contains("WROTE-TOOLCHAIN"), "{observation}");
    assert!(!observation.contains("the-home-secret"), "{observation}");
    assert!(observation.contains("tool"), "{observation}");
    // No network: the host's listener saw no connection, and the command said so.
    assert!(listener.accept().is_err(), "a connection got out");
    assert!(observation.contains("NO-NETWORK"), "{observation}");
    assert!(!observation.contains("CONNECTED"), "{observation}");
    // The background process died with the sandbox.
    std::thread::sleep(Duration::from_millis(300));
    let sleep_arg = format!("77.{port}");
    assert!(
        processes(&["sleep", &sleep_arg]).is_empty(),
        "the background sleep outlived the run"
    );
    // The environment is not the host's: no secret from it, and the home is empty.
    assert!(!observation.contains("do-not-leak"), "{observation}");
    // The fork says it ran in the sandbox.
    let environment = fork["fork"]["settings"]["environment"].as_str().unwrap();
    assert!(environment.contains("bubblewrap"), "{environment}");
    let _ = std::fs::remove_file(&outside);
}

#[test]
fn without_a_sandbox_tool_nothing_runs_and_the_message_says_how_to_install_one() {
    let s = setup();
    let empty = s.dir.path().join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let out = replay(&s, "http://127.0.0.1:9", &["--step", "3", "--yes"])
        .env("PATH", &empty)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`bwrap` is not installed"), "{stderr}");
    assert!(stderr.contains("apt-get install bubblewrap"), "{stderr}");
    assert!(stderr.contains("--no-sandbox"), "{stderr}");
    // Nothing ran, so no fork was written.
    let forks = std::fs::read_dir(s.parent.parent().unwrap())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".fork-")
        })
        .count();
    assert_eq!(forks, 0);
}

#[test]
fn without_a_terminal_and_without_yes_it_asks_and_refuses() {
    if !have_bwrap() {
        return;
    }
    let s = setup();
    let out = replay(&s, "http://127.0.0.1:9", &["--step", "3"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // What would run is shown: the workspace, the sandbox, the recorded steps, the commands.
    assert!(
        stderr.contains("workspace: a fresh scratch copy of"),
        "{stderr}"
    );
    assert!(stderr.contains("sandbox: bubblewrap"), "{stderr}");
    assert!(stderr.contains("network: none"), "{stderr}");
    assert!(
        stderr.contains("recorded steps re-run: 2 of steps 1..2"),
        "{stderr}"
    );
    assert!(stderr.contains("step   1  find . -name '*.py'"), "{stderr}");
    assert!(stderr.contains("pass --yes"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_sandbox_warns_what_is_unprotected() {
    let s = setup();
    let server = Loopback::start(vec![answer("echo unprotected-run")]).await;
    let out = replay(
        &s,
        &server.base_url,
        &[
            "--step",
            "1",
            "--yes",
            "--no-sandbox",
            "--max-steps",
            "1",
            "--json",
        ],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning: --no-sandbox"), "{stderr}");
    assert!(
        stderr.contains("see your environment (API keys included)"),
        "{stderr}"
    );
    let fork = fork_of(&json_of(&out));
    let environment = fork["fork"]["settings"]["environment"].as_str().unwrap();
    assert!(environment.contains("NO SANDBOX"), "{environment}");
    assert!(
        fork["steps"][0]["observation"]
            .as_str()
            .unwrap()
            .contains("unprotected-run")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edited_answer_at_step_k_is_executed_and_marked_in_the_fork() {
    if !have_bwrap() {
        return;
    }
    let s = setup();
    // The "editor" replaces the recorded command of step 3 with one of ours.
    let editor = s.dir.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf 'THOUGHT: by hand.\\n\\n```bash\\necho edited-by-hand > marker.txt && cat marker.txt\\n```\\n' > \"$1\"\n",
    )
    .unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&editor)
        .status()
        .unwrap();
    let server = Loopback::start(vec![answer("ls marker.txt")]).await;
    let out = replay(
        &s,
        &server.base_url,
        &[
            "--step",
            "3",
            "--yes",
            "--edit-answer",
            "--max-steps",
            "2",
            "--json",
        ],
    )
    .env("EDITOR", &editor)
    .output()
    .unwrap();
    let json = json_of(&out);
    let fork = fork_of(&json);
    let steps = fork["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "{fork}");
    // Step 3 is the edited answer, executed; step 4 is the model's, which sees its effect.
    assert_eq!(steps[2]["edited"], true);
    assert!(
        steps[2]["observation"]
            .as_str()
            .unwrap()
            .contains("edited-by-hand")
    );
    assert_eq!(
        steps[2]["action"],
        "echo edited-by-hand > marker.txt && cat marker.txt"
    );
    assert!(steps[3].get("edited").is_none(), "{}", steps[3]);
    assert!(
        steps[3]["observation"]
            .as_str()
            .unwrap()
            .contains("marker.txt")
    );
    // One request went to the model: for step 4, not for the edited step 3.
    assert_eq!(server.requests().len(), 1);
    // `show --json` shows the mark.
    let shown = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .arg("show")
        .arg(json["fork_path"].as_str().unwrap())
        .arg("--json")
        .output()
        .unwrap();
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let text = shown.to_string();
    assert!(text.contains("\"edited\":true"), "{text}");
}

/// A server that fails before any live step: the fork holds the replayed prefix (in both
/// shapes) and the reason, quoted and without the key; nothing calls it a format error.
#[tokio::test(flavor = "multi_thread")]
async fn a_backend_failure_before_any_live_step_leaves_a_fork_that_says_why() {
    if !have_bwrap() {
        return;
    }
    let s = setup();
    let key = "sk-test-abcdefghijklmnop0123";
    let server = Loopback::start(vec![Reply::status(
        401,
        &format!(r#"{{"error":{{"message":"Incorrect API key provided: {key}","type":"invalid_request_error"}}}}"#),
    )])
    .await;
    let out = replay(
        &s,
        &server.base_url,
        &[
            "--step",
            "3",
            "--yes",
            "--api-key-env",
            "TS_TEST_KEY",
            "--max-steps",
            "1",
            "--json",
        ],
    )
    .env("TS_TEST_KEY", key)
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!stdout.contains(key));
    assert!(!stdout.contains("format error"), "{stdout}");
    let json = json_of(&out);
    assert_eq!(json["runs"][0]["outcome"]["status"], "BackendError");
    let path = json["fork_path"].as_str().unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    assert!(!text.contains(key));
    let fork: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(fork["exit_status"], "BackendError");
    assert_eq!(
        fork["steps"].as_array().unwrap().len(),
        2,
        "the replayed prefix"
    );
    let ended = &fork["fork"]["settings"]["ended"];
    assert_eq!(ended["status"], "BackendError");
    let detail = ended["detail"].as_str().unwrap();
    assert!(detail.contains("HTTP 401"), "{detail}");
    assert!(
        detail.contains("Incorrect API key provided: <redacted>"),
        "{detail}"
    );
    let warnings = fork["warnings"].to_string();
    assert!(warnings.contains("HTTP 401"), "{warnings}");
    // The mini-swe-agent copy holds the conversation up to step 3, not `messages: []`.
    let native: serde_json::Value = serde_json::from_slice(
        &std::fs::read(json["runs"][0]["native_path"].as_str().unwrap()).unwrap(),
    )
    .unwrap();
    assert_eq!(native["messages"].as_array().unwrap().len(), 6, "{native}");
    assert_eq!(native["info"]["exit_status"], "BackendError");
    // And trajscope reads it back.
    let shown = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .arg("show")
        .arg(json["runs"][0]["native_path"].as_str().unwrap())
        .output()
        .unwrap();
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
}

/// A server that echoes the key inside the streamed answer, cut across pieces.
#[tokio::test(flavor = "multi_thread")]
async fn a_key_echoed_in_the_streamed_answer_is_redacted_in_stdout_and_the_fork() {
    let s = setup();
    let key = "sk-test-abcdefghijklmnop0123";
    let content = format!("I was called with Bearer {key} and that is all.");
    let chunk = serde_json::json!({"choices":[{"index":0,"delta":{"content": content},"finish_reason":"stop"}]});
    let server = Loopback::start(vec![Reply::sse(&openai_sse(&[&chunk.to_string()]), 5)]).await;
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .env("XDG_CONFIG_HOME", s.dir.path().join("no-config"))
        .env("TS_TEST_KEY", key)
        .arg("replay")
        .arg(&s.parent)
        .args([
            "--step",
            "3",
            "--base-url",
            &server.base_url,
            "--model",
            "m",
        ])
        .args(["--api-key-env", "TS_TEST_KEY"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}");
    assert!(!stdout.contains(key), "{stdout}");
    assert!(!stdout.contains("sk-test-abcd"), "{stdout}");
    assert!(
        stdout.contains("Bearer <redacted> and that is all"),
        "{stdout}"
    );
    let fork_path = stdout.lines().last().unwrap();
    let fork = std::fs::read_to_string(fork_path).unwrap();
    assert!(!fork.contains(key));
    assert!(fork.contains("Bearer <redacted> and that is all"));
}

/// Retry-After beyond the time limit: one request, and the message says one attempt.
#[tokio::test(flavor = "multi_thread")]
async fn a_429_beyond_the_limit_counts_one_attempt_and_the_fork_says_so() {
    let s = setup();
    let server = Loopback::start(vec![Reply::status_with(
        429,
        &[("retry-after", "36000")],
        r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
    )])
    .await;
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .env("XDG_CONFIG_HOME", s.dir.path().join("no-config"))
        .arg("replay")
        .arg(&s.parent)
        .args([
            "--step",
            "3",
            "--base-url",
            &server.base_url,
            "--model",
            "m",
            "--json",
        ])
        .output()
        .unwrap();
    let json = json_of(&out);
    assert_eq!(server.requests().len(), 1);
    let error = json["runs"][0]["error"].as_str().unwrap();
    assert!(error.contains("HTTP 429"), "{error}");
    assert!(error.contains("[after 1 attempt]"), "{error}");
    assert!(!error.contains("attempts"), "{error}");
    let fork = fork_of(&json);
    assert_eq!(fork["exit_status"], "BackendError");
    assert!(
        fork["fork"]["settings"]["ended"]["detail"]
            .as_str()
            .unwrap()
            .contains("[after 1 attempt]")
    );
}
