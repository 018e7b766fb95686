//! One search: `trajscope grep` (the CLI) and the TUI's `/` find the same matches for the
//! same pattern in the same trajectory: a regex, a literal, one in lower case (smart case),
//! and a pattern that is not a valid regex (searched for as text by both).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use trajscope::formats::{Loaded, load_file};
use trajscope::tui::search::{Query, find};

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

/// (step, field, 0-based line, matched text) of every match `trajscope grep` prints.
fn cli(pattern: &str, file: &Path) -> Vec<(usize, String, usize, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["grep", "--json", "--", pattern])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let hit: Value = serde_json::from_str(l).unwrap();
            (
                hit["step"].as_u64().unwrap() as usize,
                hit["field"].as_str().unwrap().to_string(),
                hit["line"].as_u64().unwrap() as usize - 1,
                hit["match"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The same, as the TUI's search finds it.
fn tui(pattern: &str, file: &Path) -> Vec<(usize, String, usize, String)> {
    let Ok(Loaded::Trajectories(ts)) = load_file(file) else {
        panic!("{} does not load", file.display())
    };
    let t = &ts[0];
    let query = Query::new(pattern).unwrap();
    find(t, &query, &AtomicBool::new(false))
        .into_iter()
        .map(|h| {
            let step = &t.steps[h.step - 1];
            let text = trajscope::metrics::shown_text(h.field, step);
            let line = text.lines().nth(h.line).unwrap_or("");
            (
                h.step,
                h.field.name().to_string(),
                h.line,
                line[h.start..h.end].to_string(),
            )
        })
        .collect()
}

#[test]
fn grep_and_the_tui_search_find_the_same_matches() {
    let files = [
        samples().join("swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj"),
        samples().join("mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json"),
    ];
    // A regex, smart case, a literal with regex characters, an invalid regex.
    let patterns = ["^Traceback", "error", "Error(", "calc.py", "def \\w+\\("];
    let mut total = 0;
    for file in &files {
        for pattern in patterns {
            let (a, b) = (cli(pattern, file), tui(pattern, file));
            assert_eq!(a, b, "{pattern} in {}", file.display());
            total += a.len();
        }
    }
    assert!(total > 10, "the samples hold matches to compare ({total})");
    let invalid = cli("Error(", &files[0]);
    assert!(
        !invalid.is_empty() && invalid.iter().all(|(_, _, _, m)| m == "Error("),
        "an invalid regex is searched for as text: {invalid:?}"
    );
}
