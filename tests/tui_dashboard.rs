//! The failure-mode dashboard and step labels, driven through the real keymap: buffer
//! snapshots on the bundled sample trajectories, and a label's round trip from the key to
//! the sidecar file, a new session's tally and `trajscope stats`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/tui.rs"]
mod tui;

use std::path::{Path, PathBuf};
use trajscope::tui::config::Config;
use trajscope::tui::harness::Harness;
use trajscope::tui::state::Screen;
use tui::keys;

fn samples(width: u16, height: u16) -> Harness {
    Harness::open(
        &[PathBuf::from("sample-trajectories")],
        Config::default(),
        width,
        height,
    )
}

#[test]
fn dashboard_of_the_sample_run() {
    // `m` from the run: the 26 sample trajectories (8 resolved, 5 unresolved; the eight
    // interactive agents' sessions and the Claude Code sub-agent have no eval), every default
    // rule with its counts, and bars for the share of each group with a match; syntax_error is
    // selected and its steps are listed below, unresolved ones marked ✗.
    for (w, h) in [(80, 24), (120, 40)] {
        let mut harness = samples(w, h);
        keys(&mut harness, "m");
        let text = harness.text();
        insta::assert_snapshot!(format!("dashboard_{w}x{h}"), text);
        assert!(
            text.contains("26 trajectories: 8 resolved, 5 unresolved, 13 unknown"),
            "{text}"
        );
        assert!(text.contains("RESOLVED (8)") && text.contains("UNRESOLVED (5)"));
        let syntax = text
            .lines()
            .find(|l| l.starts_with(" syntax_error"))
            .unwrap_or_else(|| panic!("{text}"));
        // 23 matches, 23 steps, 22 trajectories: 7 of 8 resolved, all 5 unresolved.
        assert!(syntax.contains("23     23     22"), "{syntax}");
        assert!(
            syntax.contains("7  88%") && syntax.contains("5 100%"),
            "{syntax}"
        );
        assert!(text.contains("── syntax_error · 23 matches in 23 steps of 22 trajectories"));
        // At 24 rows the sessions named by id fill the list before the unresolved ones.
        if h >= 40 {
            assert!(text.contains("✗ tinycalc__tinycalc-1 "), "{text}");
        }
    }
}

#[test]
fn dashboard_drill_down_to_a_step() {
    // j j: file_not_found; enter lists its steps, j enter opens the second one in its
    // trajectory at that step, where the step page names the rules it matched.
    let mut h = samples(120, 40);
    keys(&mut h, "mjj");
    let text = h.text();
    assert!(text.contains("── file_not_found · 18 matches"), "{text}");
    keys(&mut h, "<CR>j");
    let hit = h.state.dashboard.selected_hit().cloned().unwrap();
    let expected = h.state.metrics.tally.trajectory(hit.trajectory).unwrap();
    let path = expected.key().path.clone();
    keys(&mut h, "<CR>");
    assert_eq!(h.state.screen, Screen::Trajectory);
    let t = h.state.trajectory.as_ref().unwrap();
    assert_eq!(t.source.path, path);
    assert_eq!(t.step_index(), Some(hit.step));
    let text = h.text();
    assert!(text.contains(" rules  file_not_found"), "{text}");
    assert!(text.contains(&format!("step {}/", hit.step)), "{text}");
    keys(&mut h, "q");
    assert_eq!(h.state.screen, Screen::Dashboard);
}

fn copy_run(to: &Path) -> PathBuf {
    let run = to.join("run");
    std::fs::create_dir_all(&run).unwrap();
    for entry in std::fs::read_dir(tui::run_dir()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), run.join(entry.file_name())).unwrap();
    }
    run
}

fn snapshot_of(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.ends_with(".trajscope-labels.json"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_label_round_trips_through_the_sidecar_and_is_tallied() {
    let temp = tempfile::tempdir().unwrap();
    let run = copy_run(temp.path());
    let before = snapshot_of(&run);
    let mut h = Harness::open(std::slice::from_ref(&run), Config::default(), 120, 40);
    // The first trajectory (astropy), step 2: `L`, a label, enter.
    keys(&mut h, "<CR>jLwrong file localized<CR>");
    let text = h.text();
    assert!(
        text.contains("step 2 labelled “wrong file localized”"),
        "{text}"
    );
    assert!(text.contains(" labels ◆ wrong file localized"), "{text}");
    assert!(
        text.contains("· 1 label"),
        "the status bar counts it: {text}"
    );
    let sidecar = run.join(".trajscope-labels.json");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sidecar).unwrap()).unwrap();
    assert_eq!(saved["labels"][0]["label"], "wrong file localized");
    assert_eq!(saved["labels"][0]["step"], 2);
    assert_eq!(
        saved["labels"][0]["trajectory"],
        "astropy__astropy-12907.traj"
    );
    assert_eq!(snapshot_of(&run), before, "no log was touched");

    // A new session reads it back and counts it like a rule, under the resolved run.
    let mut again = Harness::open(std::slice::from_ref(&run), Config::default(), 120, 40);
    keys(&mut again, "m");
    let row = again
        .state
        .dashboard
        .rows
        .iter()
        .find(|r| r.name == "wrong file localized")
        .cloned()
        .unwrap_or_else(|| panic!("no label row"));
    assert_eq!(row.counts.all.steps, 1);
    assert_eq!(row.counts.resolved.trajectories, 1);
    keys(&mut again, "G");
    let text = again.text();
    assert!(text.contains("◆wrong file localized"), "{text}");
    assert!(text.contains("astropy__astropy-12907  step 2"), "{text}");
    keys(&mut again, "<CR><CR>");
    assert_eq!(
        again.state.trajectory.as_ref().unwrap().step_index(),
        Some(2)
    );
    // U removes it, from the file too.
    keys(&mut again, "U");
    let saved = std::fs::read_to_string(&sidecar).unwrap();
    assert!(!saved.contains("wrong file localized"), "{saved}");

    // `trajscope stats` counts labels as rows of kind `label`.
    keys(&mut again, "Lwrong file localized<CR>");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["stats", "--json"])
        .arg(&run)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let label = json["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "label")
        .unwrap_or_else(|| panic!("{json}"));
    assert_eq!(label["name"], "wrong file localized");
    assert_eq!(label["steps"], 1);
    assert_eq!(label["resolved"]["trajectories"], 1);
}

#[test]
fn x_exports_the_trajectory_and_shift_x_the_step_next_to_nothing_it_replaces() {
    let temp = tempfile::tempdir().unwrap();
    let config = Config::parse(
        &format!(
            "[options]\nexport_dir = {:?}",
            temp.path().display().to_string()
        ),
        Path::new("test.toml"),
        None,
    );
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let mut h = Harness::open(&[tui::run_dir()], config, 120, 40);
    keys(&mut h, "<CR>jjx");
    let page = temp.path().join("astropy__astropy-12907.html");
    let text = h.text();
    assert!(
        text.contains(&format!("exported the trajectory to {}", page.display())),
        "{text}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("id=\"step-6\""), "all six steps");
    assert!(
        html.contains("syntax_error"),
        "with the rules each step matched"
    );
    keys(&mut h, "X");
    let step = temp.path().join("astropy__astropy-12907-step-3.md");
    let md = std::fs::read_to_string(&step).unwrap();
    assert!(md.contains("E999 SyntaxError"), "{md}");
    keys(&mut h, "X");
    assert!(
        temp.path()
            .join("astropy__astropy-12907-step-3-2.md")
            .exists(),
        "a second export gets a new name"
    );
}
