//! `x` in the app on a trajectory opened lazily (`lazy_above_mb = 0`) writes, step by step
//! from the file, what `trajscope export` writes for the same file opened lazily
//! (`TRAJSCOPE_LAZY_ABOVE_MB=0`): the same Markdown and the same HTML, byte for byte.
//!
//! On the JSON Lines and JSON formats the bounded read opens. (A SWE-agent sample differs
//! by design in its rule tags: the app tags what the run's tally found, sequence rules
//! included, where the command's pass over a lazy file leaves those out.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/cli.rs"]
mod cli;
#[path = "support/tui.rs"]
mod tui;

use std::path::{Path, PathBuf};
use trajscope::tui::config::Config;
use trajscope::tui::harness::Harness;
use tui::keys;

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

/// What the app's `x` writes for `file` in `format`, opened alone and lazily.
fn from_the_app(file: &Path, format: &str) -> String {
    let out = tempfile::tempdir().unwrap();
    let text = format!(
        "[options]\nlazy_above_mb = 0\nexport_format = \"{format}\"\nexport_dir = \"{}\"\n",
        out.path().display()
    );
    let config = Config::parse(&text, Path::new("t.toml"), None);
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let mut h = Harness::open(&[file.to_path_buf()], config, 120, 40);
    let t = h.state.trajectory.as_ref().expect("opened at start");
    let lazy = t.trajectory.as_ref().and_then(|t| t.lazy.as_ref());
    assert!(lazy.is_some(), "{}: opened lazily", file.display());
    keys(&mut h, "x");
    let notice = h.state.notice.clone().expect("a notice");
    assert!(!notice.error, "{notice:?}");
    let written: Vec<_> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    std::fs::read_to_string(&written[0]).unwrap()
}

/// What `trajscope export` prints for `file` opened lazily, with no user configuration.
fn from_the_cli(file: &Path, format: &str, home: &Path) -> String {
    cli::stdout_of(
        cli::isolated(home)
            .arg("export")
            .arg(file)
            .arg(format!("--{format}"))
            .env("TRAJSCOPE_LAZY_ABOVE_MB", "0"),
    )
}

#[test]
fn x_on_a_lazy_trajectory_writes_what_trajscope_export_writes() {
    let home = tempfile::tempdir().unwrap();
    let files = [
        samples().join("claude-code/tinycalc__tinycalc-1.jsonl"),
        samples().join("openhands/tinycalc__tinycalc-1.json"),
    ];
    for file in &files {
        for format in ["markdown", "html"] {
            let app = from_the_app(file, format);
            let cli = from_the_cli(file, format, home.path());
            let at = app
                .bytes()
                .zip(cli.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            assert!(
                app == cli,
                "{} ({format}) differs at byte {at}: app {:?}, cli {:?}",
                file.display(),
                &app[at.saturating_sub(60)..(at + 60).min(app.len())],
                &cli[at.saturating_sub(60)..(at + 60).min(cli.len())]
            );
        }
    }
}
