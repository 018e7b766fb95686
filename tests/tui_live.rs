//! The TUI on a folder agents are writing to, headless: the harness reads the files again
//! where the real app would be woken by notifications (`Harness::live_scan`), through the
//! same job and update code. A SWE-agent trajectory is rewritten step by step (three syntax
//! errors in a row fire the default alert) and a chat log is appended to; the run view and
//! the trajectory view must follow, and a torn write must never show.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use trajscope::tui::config::Config;
use trajscope::tui::harness::Harness;

fn sample(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-trajectories")
        .join(path)
}

/// The SWE-agent sample cut to its first `k` steps, steps 3-5 failing with a syntax error;
/// the exit status only in the full version.
fn swe_agent(k: usize) -> Vec<u8> {
    let text = std::fs::read(sample(
        "swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj",
    ))
    .unwrap();
    let mut doc: Value = serde_json::from_slice(&text).unwrap();
    let steps = doc["trajectory"].as_array_mut().unwrap();
    let total = steps.len();
    for (i, step) in steps.iter_mut().enumerate() {
        if (2..5).contains(&i) {
            step["observation"] = Value::String(format!(
                "  File \"repro_{i}.py\", line 1\n    print(\n         ^\nSyntaxError: '(' was never closed\n"
            ));
        }
    }
    steps.truncate(k);
    if k < total {
        doc["info"] = serde_json::json!({});
    }
    serde_json::to_vec_pretty(&doc).unwrap()
}

fn swe_agent_steps() -> usize {
    let text = std::fs::read(sample(
        "swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj",
    ))
    .unwrap();
    let doc: Value = serde_json::from_slice(&text).unwrap();
    doc["trajectory"].as_array().unwrap().len()
}

/// The screen with the temporary folder's name replaced, so snapshots are stable.
fn screen(h: &mut Harness, dir: &Path) -> String {
    h.text().replace(&dir.display().to_string(), "LIVE")
}

struct Live {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    traj: PathBuf,
    chat: PathBuf,
    h: Harness,
}

fn start(width: u16, height: u16) -> Live {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    std::fs::create_dir(&dir).unwrap();
    let h = Harness::open(std::slice::from_ref(&dir), Config::default(), width, height);
    let traj = dir.join("tinycalc__tinycalc-1.traj");
    let chat = dir.join("session.jsonl");
    Live {
        _tmp: tmp,
        dir,
        traj,
        chat,
        h,
    }
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(bytes).unwrap();
}

#[test]
fn an_empty_folder_fills_in_as_agents_write() {
    let mut live = start(120, 14);
    let text = screen(&mut live.h, &live.dir);
    assert!(text.contains("no trajectories found here"), "{text}");

    let chat = std::fs::read(sample("chat/tinycalc__tinycalc-1.jsonl")).unwrap();
    let lines: Vec<&[u8]> = chat.split_inclusive(|&b| b == b'\n').collect();
    // Two steps of the SWE-agent run, and the chat's first lines plus half a line.
    std::fs::write(&live.traj, swe_agent(2)).unwrap();
    for line in &lines[..4] {
        append(&live.chat, line);
    }
    append(&live.chat, &lines[4][..lines[4].len() / 2]);
    live.h.live_scan();
    let text = screen(&mut live.h, &live.dir);
    assert!(text.contains("2 trajectories"), "{text}");
    assert!(text.contains("2 running"), "{text}");

    // Steps 3-5 fail: the alert fires; the row and the status bar say so.
    std::fs::write(&live.traj, swe_agent(5)).unwrap();
    live.h.live_scan();
    let text = screen(&mut live.h, &live.dir);
    assert!(text.contains("⚠ tinycalc__tinycalc-1"), "{text}");
    assert!(
        text.contains("⚠ alert syntax_errors_in_a_row at step 5 of tinycalc__tinycalc-1"),
        "{text}"
    );

    // A torn rewrite: nothing changes on screen.
    let full = swe_agent(swe_agent_steps());
    std::fs::write(&live.traj, &full[..full.len() / 2]).unwrap();
    live.h.live_scan();
    let torn = screen(&mut live.h, &live.dir);
    let steps_cell = |text: &str| {
        text.lines()
            .find(|l| l.contains("tinycalc__tinycalc-1") && l.contains("swe-agent"))
            .map(|l| l.split_whitespace().nth(3).unwrap_or("").to_string())
    };
    assert_eq!(steps_cell(&torn).as_deref(), Some("5"), "{torn}");

    // The whole file, with its exit status; the chat log's remaining lines.
    std::fs::write(&live.traj, &full).unwrap();
    append(&live.chat, &lines[4][lines[4].len() / 2..]);
    for line in &lines[5..] {
        append(&live.chat, line);
    }
    live.h.live_scan();
    let text = screen(&mut live.h, &live.dir);
    insta::assert_snapshot!("live_run_120x14", text);
    assert!(text.contains("submitted"), "{text}");
    assert!(
        text.contains("1 running"),
        "the chat log has no exit status: {text}"
    );
    assert!(text.contains("⚠ 1 alert"), "{text}");
}

#[test]
fn the_open_trajectory_follows_its_newest_step() {
    let mut live = start(100, 20);
    std::fs::write(&live.traj, swe_agent(2)).unwrap();
    live.h.live_scan();
    live.h.keys("<CR>G").unwrap();
    let step = |h: &Harness| h.state.trajectory.as_ref().and_then(|t| t.step_index());
    assert_eq!(step(&live.h), Some(2));

    std::fs::write(&live.traj, swe_agent(4)).unwrap();
    live.h.live_scan();
    assert_eq!(step(&live.h), Some(4), "on the last step: follows");
    assert!(live.h.text().contains("step 4/4"));

    live.h.keys("kk").unwrap();
    std::fs::write(&live.traj, swe_agent(6)).unwrap();
    live.h.live_scan();
    assert_eq!(step(&live.h), Some(2), "scrolled up: stays");
    let text = live.h.text();
    assert!(text.contains("▼ 2 new steps"), "{text}");

    // Deleted and written again from the start: the view shows the new file.
    std::fs::remove_file(&live.traj).unwrap();
    live.h.live_scan();
    std::fs::write(&live.traj, swe_agent(3)).unwrap();
    live.h.live_scan();
    live.h.keys("G").unwrap();
    assert_eq!(step(&live.h), Some(3));
}
