//! Runs `scripts/tui-smoke.sh` and `scripts/tui-live-smoke.sh` against the binary cargo built
//! for this test: the real app in a real terminal (tmux). Skips when tmux is not installed.

use std::process::Command;

#[test]
fn the_app_in_tmux() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let output = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/tui-smoke.sh"))
        .env("TRAJSCOPE_BIN", env!("CARGO_BIN_EXE_trajscope"))
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("ok: tmux smoke test passed"), "{stdout}");
}

/// `scripts/tui-live-smoke.sh`: the app on an empty folder while a writer script rewrites a
/// SWE-agent trajectory and appends a chat session; the pane must show both grow, the
/// running mark, an alert, and follow mode. Skips when tmux or python3 is missing.
#[test]
fn the_live_watch_in_tmux() {
    for tool in [["tmux", "-V"], ["python3", "--version"]] {
        if Command::new(tool[0]).arg(tool[1]).output().is_err() {
            eprintln!("skipping: {} is not installed", tool[0]);
            return;
        }
    }
    let output = Command::new("bash")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/tui-live-smoke.sh"
        ))
        .env("TRAJSCOPE_BIN", env!("CARGO_BIN_EXE_trajscope"))
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("ok: live smoke passed"), "{stdout}");
}
