//! Runs `scripts/tui-smoke.sh` and `scripts/tui-live-smoke.sh` against the binary cargo built
//! for this test: the real app in a real terminal (tmux). Skips when tmux is not installed.
#![allow(clippy::expect_used)]

use std::process::Command;

/// Runs `script` (under scripts/) against this build's binary and checks that it passed
/// with `passed` on its output; skips when one of `needs` (program, version flag) is missing.
fn smoke(script: &str, needs: &[[&str; 2]], passed: &str) {
    for [program, flag] in needs {
        if Command::new(program).arg(flag).output().is_err() {
            eprintln!("skipping: {program} is not installed");
            return;
        }
    }
    let output = Command::new("bash")
        .arg(format!("{}/scripts/{script}", env!("CARGO_MANIFEST_DIR")))
        .env("TRAJSCOPE_BIN", env!("CARGO_BIN_EXE_trajscope"))
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(passed), "{stdout}");
}

#[test]
fn the_app_in_tmux() {
    smoke(
        "tui-smoke.sh",
        &[["tmux", "-V"]],
        "ok: tmux smoke test passed",
    );
}

/// `scripts/tui-live-smoke.sh`: the app on an empty folder while a writer script rewrites a
/// SWE-agent trajectory and appends a chat session; the pane must show both grow, the
/// running mark, an alert, and follow mode. Skips when tmux or python3 is missing.
#[test]
fn the_live_watch_in_tmux() {
    smoke(
        "tui-live-smoke.sh",
        &[["tmux", "-V"], ["python3", "--version"]],
        "ok: live smoke passed",
    );
}

/// `scripts/tui-live-tally.sh`: the dashboard open on an empty folder while the writer adds
/// syntax errors; its `syntax_error` row must rise as steps arrive and end at what `stats`
/// counts on the final files. Skips when tmux or python3 is missing.
#[test]
fn the_dashboard_counts_rise_live_in_tmux() {
    smoke(
        "tui-live-tally.sh",
        &[["tmux", "-V"], ["python3", "--version"]],
        "ok: live tally passed",
    );
}
