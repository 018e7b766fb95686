//! Two things the TUI shows from rules and datasets: the working-tree page's gold section
//! (with `--dataset`) on the mini-swe-agent sample, and the run table's phase strip on a
//! terminal wide enough for it. Snapshots, with the facts each must show asserted.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/tui.rs"]
mod tui;

use std::path::PathBuf;
use std::sync::Arc;
use trajscope::diff::GoldPatches;
use trajscope::tui::config::Config;
use trajscope::tui::harness::Harness;

#[test]
fn the_working_tree_page_shows_the_gold_strip_at_each_step() {
    let text = std::fs::read_to_string("tests/fixtures/gold/tinycalc.jsonl").unwrap();
    let config = Config {
        gold: Some(Arc::new(GoldPatches::parse(&text).unwrap())),
        ..Config::default()
    };
    let file = PathBuf::from(
        "sample-trajectories/mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json",
    );
    for (w, h) in [(80, 24), (120, 40)] {
        let mut harness = Harness::open(std::slice::from_ref(&file), config.clone(), w, h);
        // Step 7 (the second sed, which writes the gold line), then the working-tree page.
        tui::keys(&mut harness, "gjjjjjjw");
        let text = harness.text();
        insta::assert_snapshot!(format!("tree_gold_{w}x{h}"), text);
        assert!(text.contains("···○○○●●●●"), "{text}");
        assert!(text.contains("^ step 7"), "{text}");
        // The page wraps at 80 columns: the facts are checked where they cannot wrap.
        assert!(
            text.contains("after this step: 1/1 gold files edited"),
            "{text}"
        );
        assert!(
            text.contains("reached the gold change at step 7;"),
            "{text}"
        );
    }
}

#[test]
fn the_run_table_shows_the_phase_strip_on_a_wide_terminal() {
    let mut harness = tui::open(140, 30);
    let text = harness.text();
    insta::assert_snapshot!("run_phases_140x30", text);
    let header = text.lines().find(|l| l.contains("instance")).unwrap();
    assert!(header.contains("phases"), "{header}");
    // Every fixture trajectory explores first and ends by submitting or being stopped.
    let astropy = text
        .lines()
        .find(|l| l.contains("astropy__astropy-12907"))
        .unwrap();
    assert!(astropy.contains('·'), "{astropy}");
    // At 120 columns the strip is the first column dropped.
    let mut narrow = tui::open(120, 30);
    assert!(!narrow.text().contains("phases"));
}
