//! The runs screen on three sample runs of the tinycalc instances: OpenHands' eval run (1 yes,
//! 2 no), Inspect's `.eval` log (1 yes, 2 no) and the CodeR-style SWE-agent run (1 no). Buffer
//! snapshots at 80x24 and 120x40, each with the facts it must show asserted too.

use std::path::PathBuf;
use trajscope::tui::config::Config;
use trajscope::tui::harness::Harness;

fn runs() -> Vec<PathBuf> {
    [
        "sample-trajectories/openhands/eval-run",
        "sample-trajectories/inspect-ai/converted",
        "sample-trajectories/swe-agent-coder",
    ]
    .iter()
    .map(PathBuf::from)
    .collect()
}

fn open(width: u16, height: u16) -> Harness {
    let config = Config {
        compare_runs: true,
        ..Config::default()
    };
    Harness::open(&runs(), config, width, height)
}

fn keys(h: &mut Harness, keys: &str) {
    h.keys(keys)
        .unwrap_or_else(|e| panic!("bad keys {keys:?}: {e}"));
}

fn both_sizes(name: &str, setup: impl Fn(&mut Harness), check: impl Fn(&str)) {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut harness = open(w, h);
        setup(&mut harness);
        let text = harness.text();
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), text);
        check(&text);
    }
}

fn line<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(start))
        .unwrap_or_else(|| panic!("no line starting {start:?} in\n{text}"))
}

#[test]
fn three_runs_side_by_side() {
    // One row per instance, a column per run: tinycalc-1 resolved by A and B, not by C;
    // tinycalc-2 unresolved in A and B, and C has no trajectory for it.
    both_sizes(
        "runs",
        |_| {},
        |text| {
            assert!(text.contains("3 runs side by side"), "{text}");
            assert!(
                text.contains(
                    "2 of 2 instances · 1 in every run · solved by 0/1/2/3 runs: 0 · 0 · 1 · 0"
                ),
                "{text}"
            );
            let one: Vec<&str> = line(text, "tinycalc__tinycalc-1")
                .split_whitespace()
                .collect();
            assert_eq!(one[0], "tinycalc__tinycalc-1");
            assert_eq!((one[1], one[3], one[5]), ("✓", "✓", "✗"), "{one:?}");
            let two: Vec<&str> = line(text, "tinycalc__tinycalc-2")
                .split_whitespace()
                .collect();
            assert_eq!((two[1], two[3], two[5]), ("✗", "✗", "·"), "{two:?}");
            assert!(text.contains("RUNS 1/2"), "{text}");
        },
    );
}

#[test]
fn filters_solved_by_k_and_only_by_one_run() {
    for (keys_typed, shown, summary) in [
        // s: exactly 0, 1, 2 runs; tinycalc-2 is not judged by every run, so it never counts.
        ("s", 0, "showing: solved by exactly 0"),
        ("sss", 1, "showing: solved by exactly 2"),
        ("ssss", 0, "showing: solved by exactly 3"),
        ("sssss", 2, "solved by 0/1/2/3 runs: 0 · 0 · 1 · 0"),
        // o: only A (no: B resolved it too), only B, only C.
        ("o", 0, "showing: solved only by A"),
        ("sss<BS>", 2, "2 of 2 instances"),
    ] {
        let mut h = open(120, 40);
        keys(&mut h, keys_typed);
        let text = h.text();
        assert_eq!(h.state.runs.visible.len(), shown, "{keys_typed}: {text}");
        assert!(text.contains(summary), "{keys_typed}: {text}");
    }
    let mut h = open(80, 24);
    keys(&mut h, "sss");
    let text = h.text();
    insta::assert_snapshot!("runs_solved_by_2_80x24", text);
    assert!(!text.contains("tinycalc__tinycalc-2"), "{text}");
}

#[test]
fn an_instance_drills_down_to_its_trajectories_side_by_side() {
    both_sizes(
        "runs_instance",
        |h| keys(h, "<CR>"),
        |text| {
            assert!(text.contains("tinycalc__tinycalc-1 in 3 runs"), "{text}");
            // Each column's head: its run, verdict and step count.
            assert!(text.contains("A ✓ 5 steps"), "{text}");
            assert!(text.contains("C ✗"), "{text}");
            assert!(text.contains("  1 "), "step numbers are shown: {text}");
        },
    );
    let mut h = open(80, 24);
    keys(&mut h, "<CR><Esc>");
    assert!(
        h.state.runs.instance.is_none(),
        "esc goes back to the table"
    );
    assert!(h.text().contains("3 runs side by side"));
}

#[test]
fn a_run_is_added_from_the_prompt() {
    let mut h = open(120, 40);
    keys(&mut h, "+sample-trajectories/mini-swe-agent<CR>");
    let text = h.text();
    assert_eq!(h.state.run.roots.len(), 4, "{text}");
    assert!(text.contains("4 runs side by side"), "{text}");
    // mini-swe-agent resolved tinycalc-1: the row gains a fourth cell.
    let one: Vec<&str> = line(&text, "tinycalc__tinycalc-1")
        .split_whitespace()
        .collect();
    assert_eq!(one[7], "✓", "{one:?}");
    keys(&mut h, "+does/not/exist<CR>");
    assert_eq!(h.state.run.roots.len(), 4);
    assert!(h.text().contains("does/not/exist: no such file or folder"));
    // From the run table, one run: R explains; + adds a second and opens the runs screen.
    let mut single = Harness::open(&runs()[..1], Config::default(), 80, 24);
    keys(&mut single, "R");
    assert!(single.text().contains("add another with + to compare"));
    keys(&mut single, "+sample-trajectories/swe-agent-coder<CR>");
    assert!(single.text().contains("2 runs side by side"));
}
