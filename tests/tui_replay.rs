//! The replay panel end to end in the headless app: a copy of the mini-swe-agent sample is
//! opened, `r` on a step opens the panel, and the real replay job runs against a loopback
//! server speaking the OpenAI SSE protocol (or the real small model when
//! `TRAJSCOPE_LIVE_MODEL_URL` is set). The streamed answer shows beside the recorded one, the
//! fork is written next to the copy and joins the run table under it, and `c` opens the
//! compare screen at the first divergence. A failing server and a continued run (which asks
//! before it runs anything) too.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/loopback.rs"]
mod loopback;

use loopback::{Loopback, Reply, openai_sse, split};
use std::path::{Path, PathBuf};
use std::time::Duration;
use trajscope::backend::AdHoc;
use trajscope::formats::{Loaded, load_file};
use trajscope::model::Trajectory;
use trajscope::tui::config::Config;
use trajscope::tui::harness::Harness;
use trajscope::tui::panel::replay::Phase;
use trajscope::tui::state::{Overlay, Screen};

const MINI: &str = "mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json";

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

/// A folder holding a copy of the sample, so that forks are written there.
fn run_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let copy = run.join("tinycalc__tinycalc-1.traj.json");
    std::fs::copy(samples().join(MINI), &copy).unwrap();
    (dir, run)
}

fn open(run: &Path, url: &str) -> Harness {
    let mut config = Config::default();
    config.replay.ad_hoc = AdHoc {
        base_url: Some(url.to_string()),
        model: Some("m".into()),
        ..AdHoc::default()
    };
    config.replay.workspace = Some(samples().join("repo"));
    Harness::open(&[run.to_path_buf()], config, 120, 40)
}

fn keys(h: &mut Harness, keys: &str) {
    h.keys(keys).unwrap();
}

/// A server on a runtime of its own (the app's job runs on another, inside the harness).
fn server(script: Vec<Reply>) -> (tokio::runtime::Runtime, Loopback) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(Loopback::start(script));
    (runtime, server)
}

/// An answer streamed in pieces of a few words, as a model server sends it.
fn streamed(words: &[&str]) -> Reply {
    let mut chunks: Vec<String> = words
        .iter()
        .map(|w| serde_json::json!({"choices":[{"index":0,"delta":{"content":w}}]}).to_string())
        .collect();
    chunks.push(
        serde_json::json!({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}).to_string(),
    );
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    Reply::Stream {
        pieces: split(&openai_sse(&refs), 40, Duration::from_millis(1)),
        chunked: true,
    }
}

fn forks_in(dir: &Path) -> Vec<PathBuf> {
    let mut forks: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".fork-k"))
        .collect();
    forks.sort();
    forks
}

fn load(path: &Path) -> Trajectory {
    match load_file(path) {
        Ok(Loaded::Trajectories(mut t)) => t.remove(0),
        _ => panic!("{} does not load", path.display()),
    }
}

#[test]
fn resample_streams_writes_a_fork_under_its_original_and_compares() {
    let (_runtime, server) = server(vec![streamed(&[
        "THOUGHT: ",
        "the evaluator ",
        "divides with //.\n\n",
        "```bash\n",
        "grep -n '//' tinycalc/evaluator.py\n",
        "```",
    ])]);
    let (_dir, run) = run_copy();
    let mut h = open(&run, &server.base_url);
    keys(&mut h, "<CR>jjr");
    let text = h.text();
    assert!(
        text.contains("Replay from step 3 · tinycalc__tinycalc-1"),
        "{text}"
    );
    assert!(text.contains("Context at step 3: EXACT"), "{text}");
    assert!(text.contains("‹ ad-hoc ›"), "{text}");
    assert!(text.contains("RECORDED · step 3"), "{text}");
    assert!(forks_in(&run).is_empty(), "nothing is sent before s");

    keys(&mut h, "s");
    let text = h.text();
    assert!(text.contains("── sample 1/1 · ad-hoc (m)"), "{text}");
    assert!(
        text.contains("THOUGHT: the evaluator divides with //."),
        "{text}"
    );
    assert!(
        text.contains("grep -n '//' tinycalc/evaluator.py"),
        "{text}"
    );
    assert!(
        text.contains("action: grep -n '//' tinycalc/evaluator.py"),
        "{text}"
    );
    assert!(
        text.contains("1 of 1 samples answered · forks written"),
        "{text}"
    );

    // The request was the recorded context of step 3.
    let sent = server.requests()[0].json();
    let context = load(&run.join("tinycalc__tinycalc-1.traj.json"));
    assert_eq!(
        sent["messages"].as_array().unwrap().len(),
        trajscope::replay::input::context_at(&context, 3)
            .unwrap()
            .messages
            .len()
    );

    let forks = forks_in(&run);
    assert_eq!(forks.len(), 1, "{forks:?}");
    assert!(
        forks[0].ends_with("tinycalc__tinycalc-1.fork-k3-1.trajscope.json"),
        "{forks:?}"
    );
    let fork = load(&forks[0]);
    assert_eq!(fork.exit_status.as_deref(), Some("Resampled"));
    assert_eq!(fork.steps.len(), 3);
    assert_eq!(fork.steps[2].action, "grep -n '//' tinycalc/evaluator.py");
    assert!(
        text.contains(&format!("fork: {}", forks[0].display())),
        "{text}"
    );

    // The run table: the fork right under its original, marked.
    let rows: Vec<PathBuf> = h
        .state
        .run
        .visible
        .iter()
        .map(|&i| h.state.run.rows[i].path.clone())
        .collect();
    assert_eq!(
        rows,
        [run.join("tinycalc__tinycalc-1.traj.json"), forks[0].clone()]
    );

    // c: the fork against its original, at the first divergence (step 3).
    keys(&mut h, "c");
    assert_eq!(h.state.screen, Screen::Compare);
    let view = h.state.compare.view.as_ref().unwrap();
    let pairs = &view.compared.as_ref().expect("compared").comparison.pairs;
    assert!(
        !pairs[view.cursor.selected].same,
        "the cursor is on a divergence"
    );
    // Steps 1 and 2 are the original's own: the first divergence comes right after them.
    assert_eq!(view.cursor.selected, 2, "{pairs:?}");
    assert!(pairs[..2].iter().all(|p| p.same), "{pairs:?}");
    let text = h.text();
    assert!(text.contains("3 steps · exit Resampled"), "{text}");
    assert!(
        text.contains("first divergence: A step 3, B step 3"),
        "{text}"
    );

    // Back to the trajectory; back again to the run, where the fork sits under its original.
    keys(&mut h, "q");
    assert_eq!(h.state.screen, Screen::Trajectory);
    keys(&mut h, "q");
    let text = h.text();
    let original = text.find("tinycalc__tinycalc-1 ").unwrap();
    let fork_row = text.find("└ fork@3 tinycalc__tinycalc-1").expect(&text);
    assert!(fork_row > original, "{text}");

    // Opened afresh, the run reads the fork from disk: still under its original.
    let mut again = open(&run, &server.base_url);
    let text = again.text();
    let original = text.find("tinycalc__tinycalc-1 ").unwrap();
    let fork_row = text.find("└ fork@3 tinycalc__tinycalc-1").expect(&text);
    assert!(fork_row > original, "{text}");
}

#[test]
fn a_failing_server_is_reported_in_the_panel_and_the_fork_says_so() {
    let (_runtime, server) = server(vec![Reply::status(
        400,
        "{\"error\":{\"message\":\"model `m` not found\"}}",
    )]);
    let (_dir, run) = run_copy();
    let mut h = open(&run, &server.base_url);
    keys(&mut h, "<CR>r");
    keys(&mut h, "s");
    let text = h.text();
    assert!(text.contains("✗ "), "{text}");
    assert!(text.contains("400"), "{text}");
    assert!(text.contains("HTTP 400 Bad Request"), "{text}");
    let Some(Overlay::Replay(panel)) = &h.state.overlay else {
        panic!("panel closed")
    };
    let error = panel.error.as_deref().unwrap();
    assert!(error.contains("model `m` not found"), "{error}");
    assert!(matches!(panel.phase, Phase::Done));
    let forks = forks_in(&run);
    assert_eq!(forks.len(), 1);
    assert_eq!(load(&forks[0]).exit_status.as_deref(), Some("BackendError"));
}

fn tools_ok() -> bool {
    let ok = ["bash", "git", "bwrap"].iter().all(|p| {
        std::process::Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !ok {
        eprintln!("skipping: bash, git and bwrap are needed for the sandboxed scratch copy");
    }
    ok
}

#[test]
fn continue_asks_first_then_replays_and_acts() {
    if !tools_ok() {
        return;
    }
    let (_runtime, server) = server(vec![streamed(&[
        "THOUGHT: list it.\n\n",
        "```bash\nls tinycalc\n```",
    ])]);
    let (_dir, run) = run_copy();
    let mut h = open(&run, &server.base_url);
    // Step 2; mode → continue; max steps down to 1.
    keys(&mut h, "<CR>jr");
    keys(&mut h, "jljhhhhhhhhhhhhhhhhhhhh");
    keys(&mut h, "s");
    let text = h.text();
    assert!(
        text.contains("Continue runs the agent's commands for real, in a scratch copy of"),
        "{text}"
    );
    let Some(Overlay::Replay(panel)) = &h.state.overlay else {
        panic!("panel closed")
    };
    assert!(matches!(panel.phase, Phase::Confirm));
    assert_eq!(
        panel.workspace,
        samples().join("repo").display().to_string()
    );
    assert!(text.contains("Run it? y/n"), "{text}");
    // The question says where and how it runs, and what runs first.
    assert!(text.contains("Sandbox: bubblewrap"), "{text}");
    assert!(text.contains("network off"), "{text}");
    assert!(text.contains("First commands: 1: "), "{text}");
    assert!(text.contains("1 recorded steps re-run"), "{text}");
    assert!(server.requests().is_empty() && forks_in(&run).is_empty());
    keys(&mut h, "y");
    let text = h.text();
    assert!(text.contains("replayed step   1  same"), "{text}");
    let Some(Overlay::Replay(panel)) = &h.state.overlay else {
        panic!("panel closed")
    };
    assert!(
        panel.log.contains(
            &"1 of 1 replayed steps gave the recorded observation; first divergence: none".into()
        ),
        "{:?}",
        panel.log
    );
    assert!(text.contains("── step 2 (live 1) · ad-hoc (m)"), "{text}");
    assert!(text.contains("$ ls tinycalc"), "{text}");
    assert!(text.contains("→ "), "{text}");
    let forks = forks_in(&run);
    assert_eq!(forks.len(), 1);
    let fork = load(&forks[0]);
    assert_eq!(fork.steps.len(), 2);
    assert_eq!(fork.steps[1].action, "ls tinycalc");
    assert!(
        fork.steps[1].observation.contains("evaluator.py"),
        "{:?}",
        fork.steps[1]
    );
    assert!(fork.exit_status.is_some());
    let environment = fork.fork.as_ref().unwrap().settings["environment"].to_string();
    assert!(environment.contains("sandbox: bubblewrap"), "{environment}");
}

#[test]
fn resample_against_the_live_model() {
    let Some(url) = std::env::var("TRAJSCOPE_LIVE_MODEL_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        eprintln!(
            "skipping: TRAJSCOPE_LIVE_MODEL_URL is not set (start the model with scripts/live-model.sh start)"
        );
        return;
    };
    let (_dir, run) = run_copy();
    let mut h = open(&run, &url);
    keys(&mut h, "<CR>jjr");
    keys(&mut h, "s");
    let Some(Overlay::Replay(panel)) = &h.state.overlay else {
        panic!("panel closed")
    };
    assert!(panel.error.is_none(), "{:?}", panel.error);
    assert!(
        !panel.blocks[0].text.trim().is_empty(),
        "the model streamed text"
    );
    let forks = forks_in(&run);
    assert_eq!(forks.len(), 1);
    assert_eq!(load(&forks[0]).exit_status.as_deref(), Some("Resampled"));
}

/// The question before a continued run, with the sandbox off: it says in red that nothing
/// protects the machine, and what would run first. Then back on: bubblewrap, network off.
#[test]
fn the_continue_question_names_the_sandbox_and_the_first_commands() {
    let (_dir, run) = run_copy();
    let mut h = open(&run, "http://127.0.0.1:9");
    h.state.replay_setup.workspace = Some(PathBuf::from("sample-trajectories/repo"));
    // Step 3; mode → continue; the sandbox row (mode, max steps, workspace, sandbox) off.
    keys(&mut h, "<CR>jjr");
    keys(&mut h, "jljjjh");
    let Some(Overlay::Replay(panel)) = &h.state.overlay else {
        panic!("panel closed")
    };
    assert!(!panel.sandbox);
    keys(&mut h, "s");
    let text = h.text();
    assert!(
        text.contains("NO SANDBOX: the commands run as you"),
        "{text}"
    );
    assert!(text.contains("2 recorded steps re-run"), "{text}");
    assert!(
        text.contains("First commands: 1: find . -name '*.py'"),
        "{text}"
    );
    insta::assert_snapshot!("replay_continue_question_no_sandbox_120x40", text);
    keys(&mut h, "nl");
    keys(&mut h, "s");
    let text = h.text();
    assert!(text.contains("Sandbox: bubblewrap"), "{text}");
    assert!(text.contains("network off"), "{text}");
    insta::assert_snapshot!("replay_continue_question_bubblewrap_120x40", text);
}

/// The runtime stops a replay by the job's flag in its job table (the state holds no token):
/// set while the model has not answered, the job ends and still reports how it ended.
#[test]
fn a_stopped_replay_ends_and_says_so() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use trajscope::tui::effect::{Effect, JobKey};
    use trajscope::tui::msg::{Msg, ReplayMsg};

    let (_runtime, server) = server(vec![Reply::Hang]);
    let (_dir, run) = run_copy();
    let mut h = open(&run, &server.base_url);
    keys(&mut h, "<CR>jjr");
    let start = Msg::Key(trajscope::tui::keymap::parse_key("s").unwrap());
    let effects = trajscope::tui::update::update(&mut h.state, start);
    let replay = effects
        .into_iter()
        .find(|e| matches!(e, Effect::Replay(_)))
        .expect("s starts the replay job");
    let esc = Msg::Key(trajscope::tui::keymap::parse_key("esc").unwrap());
    let effects = trajscope::tui::update::update(&mut h.state, esc);
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Stop(JobKey::Replay))),
        "{effects:?}"
    );

    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        let job = scope.spawn(|| {
            trajscope::tui::job::run(replay, &|msg| tx.send(msg).is_ok(), &stop, None);
        });
        while server.requests().is_empty() {
            std::thread::sleep(Duration::from_millis(10));
        }
        stop.store(true, Ordering::Relaxed);
        // A guard against a hang, not a speed check: the server never answers, so without
        // the stop the job would wait for the backend's own timeout.
        let finished = std::iter::from_fn(|| rx.recv_timeout(Duration::from_secs(60)).ok())
            .find_map(|msg| match msg {
                Msg::Replay(ReplayMsg::Finished { outcome, error, .. }) => Some((outcome, error)),
                _ => None,
            });
        let (outcome, error) = finished.expect("the stopped job reports how it ended");
        assert!(
            format!("{outcome} {error:?}").contains("cancel"),
            "{outcome} / {error:?}"
        );
        job.join().unwrap();
    });
}
