//! `trajscope stats RUN --html -o FILE`: the tally report as a page with bar charts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

#[test]
fn stats_html_writes_a_page_with_a_bar_per_rule() {
    let temp = tempfile::tempdir().unwrap();
    let page = temp.path().join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["stats", "tests/fixtures/tui/run", "--html", "-o"])
        .arg(&page)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "the page goes to the file only");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<h2>Rules and labels: trajectories with a match, by outcome</h2>"));
    // command_not_found matched in one unresolved trajectory: a bar labelled with it, and
    // its row 0 resolved, 1 unresolved, 0 unknown.
    assert!(html.contains(">command_not_found</text>"), "{html}");
    assert!(
        html.contains(
            "<tr><td>command_not_found</td><td>0</td><td>1</td><td>0</td><td>1</td></tr>"
        )
    );
    assert!(html.contains("<dt>resolved rate</dt>"));
    let refused = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args([
            "stats",
            "tests/fixtures/tui/run/django__django-11099.traj.json",
            "--html",
            "-o",
        ])
        .arg("tests/fixtures/tui/run/django__django-11099.traj.json")
        .output()
        .unwrap();
    assert!(!refused.status.success(), "an input is never the output");
}
