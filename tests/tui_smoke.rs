//! Runs `scripts/tui-smoke.sh` against the binary cargo built for this test: the real app in
//! a real terminal (tmux). Skips when tmux is not installed.

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
