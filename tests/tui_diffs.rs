//! The diff views of the terminal app on the sample trajectories: the Diff and Tree tabs of
//! a step, and the compare screen of two runs. Buffer snapshots at 80x24 and 120x40, each
//! with the facts it must show asserted too; and key flows through the real keymap.

#[path = "support/tui.rs"]
mod tui;

use std::path::PathBuf;
use trajscope::tui::config::Config;
use trajscope::tui::document::Page;
use trajscope::tui::harness::Harness;
use trajscope::tui::state::Screen;
use tui::keys;

const SWE_AGENT: &str =
    "sample-trajectories/swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj";
const LLAMA: &str = "sample-trajectories/llama/tinycalc__tinycalc-1-prompt.txt";
const CODER: &str = "sample-trajectories/swe-agent-coder/trajs/tinycalc__tinycalc-1.traj";
const FORK: &str = "tests/fixtures/tui/fork/tinycalc__tinycalc-1.fork.json";

fn open(path: &str, width: u16, height: u16) -> Harness {
    Harness::open(&[PathBuf::from(path)], Config::default(), width, height)
}

fn both_sizes(name: &str, path: &str, setup: &str, check: impl Fn(&str, u16)) {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut harness = open(path, w, h);
        keys(&mut harness, setup);
        let text = harness.text();
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), text);
        check(&text, w);
    }
}

#[test]
fn diff_tab_shows_the_edit_of_the_step() {
    // SWE-agent step 5: `str_replace` of the floor division by the `raise` expression; under
    // it, the two messages the model input gained since step 4.
    both_sizes("diff_edit", SWE_AGENT, "jjjjd", |text, w| {
        assert!(
            text.contains("Changes at step 5 · 1 edit · +1 -1"),
            "{text}"
        );
        assert!(text.contains("── str_replace_editor str_replace ·"));
        assert!(text.contains("applied"));
        assert!(text.contains("--- a/tinycalc/evaluator.py"));
        assert!(text.contains("@@ -31,6 +31,6 @@"));
        assert!(text.contains("-            value = value // right"));
        assert!(text.contains("+            value = value / right if right else"));
        assert!(text.contains("5 Diff"), "the tab is shown");
        if w >= 120 {
            assert!(text.contains("MODEL INPUT · vs step 4 · exact"));
            assert!(text.contains("8 → 10 messages: 8 kept, 2 added, 0 removed, 0 rewritten"));
        }
    });
}

#[test]
fn diff_tab_shows_how_a_rerun_command_output_changed() {
    // Step 6 runs `python3 reproduce.py` again after the edit: 7 / 2 = 3 … became a
    // SyntaxError.
    both_sizes("diff_rerun", SWE_AGENT, "jjjjjd", |text, w| {
        assert!(text.contains("This step edits no file."), "{text}");
        assert!(text.contains("RE-RUN · python3 reproduce.py"));
        assert!(text.contains("output changed since step 4 · 1 editing step"));
        assert!(text.contains("--- output at step 4"));
        assert!(text.contains("-7 / 2 = 3"));
        assert!(text.contains("+Traceback (most recent call last):"));
        if w >= 120 {
            assert!(text.contains("+SyntaxError: invalid syntax"));
        }
    });
}

#[test]
fn diff_tab_marks_an_edit_it_could_not_interpret() {
    // The Llama log's step 3 is an `edit_file` call whose arguments do not parse: a mark and
    // the reason, no diff.
    both_sizes("diff_uninterpreted", LLAMA, "jjd", |text, _| {
        assert!(
            text.contains("Changes at step 3 · 1 edit · +0 -0"),
            "{text}"
        );
        assert!(text.contains("edit_file · (file unknown)"));
        assert!(text.contains("✗ COULD NOT INTERPRET"));
        assert!(text.contains("the call's arguments do not parse"));
        assert!(
            !text.contains("@@"),
            "no diff for an edit that was not understood"
        );
    });
}

#[test]
fn diff_tab_marks_an_edit_the_tool_refused() {
    // CodeR's step 9: the linter refused the `edit 34:34`; the diff is what was asked.
    both_sizes("diff_rejected", CODER, "jjjjjjjjd", |text, _| {
        assert!(text.contains("Changes at step 9"), "{text}");
        assert!(text.contains("NOT APPLIED: refused by the tool"));
        assert!(text.contains("the tool refused it: Your proposed edit has"));
    });
}

#[test]
fn tree_tab_shows_files_change_and_submission_check() {
    // At step 5 of the SWE-agent run: reproduce.py created (a `create` that applied, so
    // known to be new), evaluator.py known only in part, the change since the start, and
    // the final patch checked against the edits.
    both_sizes("tree", SWE_AGENT, "jjjjw", |text, w| {
        assert!(
            text.contains("Working tree after step 5 · 2 files seen, 2 edited"),
            "{text}"
        );
        assert!(text.contains("reproduce.py          edited · 4 lines, all seen"));
        assert!(text.contains("tinycalc/evaluator.py edited · length unknown, 13"));
        assert!(text.contains("CHANGE · start → step 5"));
        assert!(
            text.contains("--- /dev/null"),
            "reproduce.py is shown as new"
        );
        assert!(!text.contains("was never seen"));
        if w >= 120 {
            assert!(text.contains("+for expression in [\"7 / 2\""));
            assert!(text.contains("SUBMISSION · 1 agree, 0 differ, 0 unknown"));
            assert!(text.contains("tinycalc/evaluator.py ✓ agrees"));
            // Removed again at step 11: no net change, so nothing the patch should hold.
            assert!(!text.contains("reproduce.py          edited, not in the submission"));
        }
    });
}

#[test]
fn tree_tab_at_the_last_step_shows_the_deleted_script() {
    let mut h = open(SWE_AGENT, 120, 40);
    keys(&mut h, "Gw");
    let text = h.text();
    assert!(text.contains("Working tree after step 12"), "{text}");
    assert!(text.contains("reproduce.py          edited · deleted"));
    assert!(!text.contains("The submitted patch against the tree after the last step"));
}

#[test]
fn compare_opens_a_fork_against_its_original_at_the_first_divergence() {
    // The fork re-ran the mini-swe-agent sample from step 4 with a correct `sed`: steps 1-3
    // agree, then the original's three extra steps (the broken edit, the failed diff, git
    // diff) have no counterpart. The screen opens there.
    both_sizes("compare_fork", FORK, "qc", |text, w| {
        assert!(
            text.contains(" A  tinycalc__tinycalc-1 · trajscope"),
            "{text}"
        );
        assert!(text.contains(" B  tinycalc__tinycalc-1 · mini-swe-agent"));
        assert!(text.contains("10 pairs, 4 the same · first divergence: A step 4, B step 4"));
        assert!(text.contains("COMPARE pair 4/10"));
        assert!(text.contains(" = ") && text.contains(" > "));
        assert!(text.contains("A · no step"));
        assert!(text.contains("B step 4/10 · bash"));
        if w >= 120 {
            assert!(
                text.contains("SyntaxError: invalid syntax"),
                "B's broken edit"
            );
        }
    });
}

#[test]
fn compare_shows_the_final_patches_side_by_side() {
    both_sizes("compare_patches", FORK, "qcp", |text, _| {
        assert!(text.contains("A final patch · 1 file"), "{text}");
        assert!(text.contains("B final patch · 1 file"));
        assert!(text.contains("COMPARE pair 4/10 · final patches"));
        assert_eq!(text.matches("+++ b/tinycalc/evaluator.py").count(), 2);
    });
}

#[test]
fn compare_keys_move_between_divergences_and_back() {
    let mut h = open(FORK, 100, 30);
    keys(&mut h, "qc");
    assert_eq!(h.state.screen, Screen::Compare);
    let selected = |h: &Harness| h.state.compare.view.as_ref().unwrap().cursor.selected;
    assert_eq!(selected(&h), 3, "the first divergence");
    // Pairs 4-6 are the original's steps 4-6 alone; 7-9 pair the two runs' different steps.
    keys(&mut h, "n");
    assert_eq!(selected(&h), 6, "the next kind of divergence");
    let view = h.state.compare.view.as_ref().unwrap();
    let pair = view.selected_pair().unwrap();
    assert_eq!((pair.a, pair.b, pair.same), (Some(4), Some(7), false));
    keys(&mut h, "n");
    assert_eq!(selected(&h), 6);
    assert!(h.text().contains("no divergence after this one"));
    keys(&mut h, "N");
    assert_eq!(selected(&h), 3);
    keys(&mut h, "g");
    assert_eq!(selected(&h), 0);
    assert!(h.text().contains("B step 1/10"));
    keys(&mut h, "<Tab>");
    assert_eq!(selected(&h), 3, "tab is the next divergence too");
    keys(&mut h, "q");
    assert_eq!(h.state.screen, Screen::Run);
}

#[test]
fn marking_two_runs_of_the_sample_folder_compares_them() {
    // Two inspect-ai copies of the same log (JSON and .eval) take the same steps.
    let mut h = open("sample-trajectories/inspect-ai", 120, 40);
    keys(&mut h, "v");
    assert!(h.text().contains("RUN 4 · 1 marked"));
    keys(&mut h, "jjc");
    let text = h.text();
    assert!(
        text.contains("first divergence") || text.contains("The runs take the same"),
        "{text}"
    );
    keys(&mut h, "q");
    keys(&mut h, "vjc");
    let text = h.text();
    assert!(text.contains("The runs take the same 6 steps."), "{text}");
}

#[test]
fn diff_tabs_follow_the_step_and_the_tab_keys() {
    let mut h = open(SWE_AGENT, 120, 40);
    keys(&mut h, "5");
    let page = |h: &Harness| h.state.trajectory.as_ref().unwrap().page;
    assert_eq!(page(&h), Page::Diff);
    assert!(h.text().contains("Changes at step 1"));
    keys(&mut h, "jj");
    assert_eq!(page(&h), Page::Diff, "moving keeps the tab");
    assert!(h.text().contains("Changes at step 3 · 1 edit · +4 -0"));
    keys(&mut h, "<Tab>");
    assert_eq!(page(&h), Page::Tree);
    keys(&mut h, "<Tab>");
    assert_eq!(page(&h), Page::Step, "tabs wrap around");
    keys(&mut h, "dd");
    assert_eq!(page(&h), Page::Step, "d again goes back to the step");
    keys(&mut h, "6");
    assert!(h.text().contains("Working tree after step 3"));
}
