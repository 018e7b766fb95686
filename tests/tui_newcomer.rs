//! What a newcomer sees, headless at 80x24 (where the width defects showed): the help
//! wrapped, the sorted column's arrow, the filter's errors, and a `trajs/` folder opened
//! alone finding the results beside it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/tui.rs"]
mod tui;

use serde_json::json;
use trajscope::tui::config::Config;
use trajscope::tui::harness::Harness;
use tui::keys;

#[test]
fn help_wraps_at_80_columns() {
    let mut h = tui::open(80, 24);
    // The run's keys, scrolled to the long help of `compare`.
    keys(&mut h, "?jjjjjjjjjjjj");
    let text = h.text();
    insta::assert_snapshot!("help_wrapped_80x24", text);
    // The whole sentence is there, over two lines, not cut at the border.
    assert!(text.contains("compare the marked trajectory"), "{text}");
    assert!(text.contains("with its original)"), "{text}");
    let mut h = tui::open(80, 24);
    keys(&mut h, "?G");
    let text = h.text();
    assert!(text.contains("Run filter terms"), "{text}");
    assert!(text.contains("resolved:yes|no|unknown"), "{text}");
}

#[test]
fn the_sorted_column_keeps_its_arrow_at_80_columns() {
    let mut h = tui::open(80, 24);
    // instance → format → steps → exit status.
    keys(&mut h, "sss");
    let text = h.text();
    insta::assert_snapshot!("run_sorted_by_exit_80x24", text);
    let header = text
        .lines()
        .find(|l| l.contains("steps"))
        .expect("a header line");
    assert!(
        header.contains("exit stat") && header.contains('▲'),
        "{header}"
    );
}

#[test]
fn a_bad_filter_term_is_shown_in_the_filter_line() {
    let mut h = tui::open(80, 24);
    keys(&mut h, "/resolved:maybe");
    let text = h.text();
    insta::assert_snapshot!("filter_error_80x24", text);
    assert!(text.contains("✗ `resolved:maybe`"), "{text}");
    // Nothing was filtered away by a term that does not parse.
    assert!(text.contains("3 trajectories"), "{text}");
}

#[test]
fn a_trajs_folder_opened_alone_names_the_results_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let trajs = dir.path().join("run/trajs");
    std::fs::create_dir_all(&trajs).unwrap();
    for id in ["a__a-1", "b__b-2"] {
        let doc = json!({
            "trajectory": [{"action": "ls", "observation": "ok", "response": "", "thought": "", "state": "{}"}],
            "history": [],
            "info": {"exit_status": "submitted", "submission": "", "model_stats": {}}
        });
        std::fs::write(
            trajs.join(format!("{id}.traj")),
            serde_json::to_vec(&doc).unwrap(),
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("run/results.json"),
        br#"{"resolved": ["a__a-1"], "applied": ["a__a-1", "b__b-2"], "no_generation": []}"#,
    )
    .unwrap();
    let mut h = Harness::open(std::slice::from_ref(&trajs), Config::default(), 140, 12);
    let text = h.text();
    assert!(text.contains("resolved 1/2 (50%)"), "{text}");
    assert!(
        text.contains("resolved 1/2 (50%) · from run/results.json"),
        "{text}"
    );
    assert!(text.contains("✓ yes") && text.contains("✗ no"), "{text}");

    // A folder whose results name none of its trajectories says so.
    std::fs::write(
        dir.path().join("run/results.json"),
        br#"{"resolved": ["z__z-9"], "applied": ["z__z-9"], "no_generation": []}"#,
    )
    .unwrap();
    let mut h = Harness::open(std::slice::from_ref(&trajs), Config::default(), 140, 12);
    let text = h.text();
    assert!(text.contains("1 result file, none matched"), "{text}");
}
