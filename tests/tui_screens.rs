//! Snapshots of the screens and overlays that `tui_snapshots.rs` and the feature tests do
//! not cover yet, at 80x24 and 120x40: the problems window, the prompts, the replay panel
//! before it runs, the live run; and one styled snapshot (symbols and colours) per built-in
//! theme, so a colour change shows up in review. Each test asserts the key facts too, so a
//! snapshot accepted by mistake still fails.

#[path = "support/tui.rs"]
mod tui;

use std::path::{Path, PathBuf};
use trajscope::backend::AdHoc;
use trajscope::tui::config::Config;
use trajscope::tui::harness::Harness;
use trajscope::tui::state::Overlay;
use tui::keys;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn both_sizes(name: &str, open: impl Fn(u16, u16) -> Harness, check: impl Fn(&str, u16)) {
    for (w, h) in SIZES {
        let mut harness = open(w, h);
        let text = harness.text();
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), text);
        check(&text, w);
    }
}

fn opened(setup: &str) -> impl Fn(u16, u16) -> Harness {
    move |w, h| {
        let mut harness = tui::open(w, h);
        keys(&mut harness, setup);
        harness
    }
}

#[test]
fn problems_window() {
    // A config with an unknown action and an option out of range: both listed at start,
    // over the run table, with the key that closes the window.
    both_sizes(
        "problems",
        |w, h| {
            let config = Config::parse(
                "[keymap.run]\nnope = \"x\"\n[options]\nfold_lines = 1",
                Path::new("config.toml"),
                None,
            );
            tui::open_with(config, w, h)
        },
        |text, _| {
            assert!(text.contains("Configuration problems · 2"), "{text}");
            assert!(text.contains("keymap.run.nope: unknown action"), "{text}");
            assert!(text.contains("options.fold_lines"), "{text}");
        },
    );
}

#[test]
fn search_prompt_while_typing() {
    // `/` in a trajectory: the prompt at the bottom holds what is typed so far, the step
    // still shows above it.
    both_sizes("prompt_search", opened("<CR>/Syntax"), |text, _| {
        let last = text.lines().last().unwrap_or_default();
        assert_eq!(last, "/Syntax", "{text}");
        assert!(text.contains("Step 1/6"), "{text}");
    });
}

#[test]
fn filter_prompt_applies_as_typed() {
    // `/` in the run table filters as it is typed: two of the three rows are left.
    both_sizes("prompt_filter", opened("/exit:submitted"), |text, _| {
        let last = text.lines().last().unwrap_or_default();
        assert_eq!(last, "filter: exit:submitted", "{text}");
        assert!(text.contains("2 of 3 trajectories"), "{text}");
        assert!(!text.contains("sympy__sympy-20590"), "{text}");
        assert!(text.contains("astropy__astropy-12907"), "{text}");
    });
}

#[test]
fn label_prompt() {
    // `L` on a step asks for a label.
    both_sizes("prompt_label", opened("<CR>jjL"), |text, _| {
        let last = text.lines().last().unwrap_or_default();
        assert_eq!(last, "label this step:", "{text}");
        assert!(text.contains("Step 3/6"), "{text}");
    });
}

/// The replay sample opened by a relative path (paths on screen are the same everywhere),
/// with a backend that is never called: the panel is only opened.
fn replay_sample(w: u16, h: u16) -> Harness {
    let mut config = Config::default();
    config.replay.ad_hoc = AdHoc {
        base_url: Some("http://127.0.0.1:9".into()),
        model: Some("m".into()),
        ..AdHoc::default()
    };
    config.replay.workspace = Some(PathBuf::from("sample-trajectories/repo"));
    let run = PathBuf::from("sample-trajectories/mini-swe-agent/tinycalc__tinycalc-1");
    let mut harness = Harness::open(&[run], config, w, h);
    keys(&mut harness, "<CR>jjr");
    harness
}

#[test]
fn replay_panel_before_it_runs() {
    // `r` on step 3: the panel over the trajectory, its settings (backend, mode, samples,
    // context) and the recorded answer it would re-run beside room for the live one.
    both_sizes("replay_setup", replay_sample, |text, _| {
        assert!(
            text.contains("Replay from step 3 · tinycalc__tinycalc-1"),
            "{text}"
        );
        assert!(text.contains("‹ resample ›"), "{text}");
        assert!(text.contains("RECORDED · step 3"), "{text}");
    });
    let harness = replay_sample(80, 24);
    assert!(matches!(harness.state.overlay, Some(Overlay::Replay(_))));
}

/// The buffer with its styles (ratatui's `Buffer` debug form: the rows, then the colour and
/// modifier runs).
fn styled(harness: &mut Harness) -> String {
    format!("{:?}", harness.render())
}

#[test]
fn styled_dark_theme() {
    // The trajectory screen at step 3 (an error step, a search hit): the dark theme's
    // colours for the list, the sections and the status bar.
    let mut harness = tui::open(80, 24);
    keys(&mut harness, "<CR>/SyntaxError<CR>");
    let text = styled(&mut harness);
    assert!(text.contains("fg:"), "{text}");
    insta::assert_snapshot!("styled_dark_80x24", text);
}

#[test]
fn styled_light_theme() {
    // The same screen in the light theme: other colours, the same symbols.
    let mut dark = tui::open(80, 24);
    keys(&mut dark, "<CR>/SyntaxError<CR>");
    let mut light = tui::open_with(tui::light(), 80, 24);
    keys(&mut light, "<CR>/SyntaxError<CR>");
    assert_eq!(
        dark.text(),
        light.text(),
        "the themes differ only in colour"
    );
    let text = styled(&mut light);
    assert_ne!(text, styled(&mut dark));
    insta::assert_snapshot!("styled_light_80x24", text);
}

#[test]
fn rule_picker() {
    // `p` in the run table: the built-in packs, the defaults ticked, the selected pack's
    // source below; the key line names the keys from the keymap.
    both_sizes("rule_picker", opened("pj"), |text, _| {
        assert!(text.contains("Rule packs the tally uses"), "{text}");
        assert!(text.contains("[x] default"), "{text}");
        assert!(text.contains("[ ] swe-bench-pro-failure-modes"), "{text}");
        assert!(text.contains("[ ] sniffly-claude-code-errors"), "{text}");
        assert!(
            text.contains("space ticks · enter counts the run again · esc closes"),
            "{text}"
        );
        assert!(
            text.contains("nilenso"),
            "the selected pack's source: {text}"
        );
    });
}

#[test]
fn rule_picker_counts_the_run_again() {
    // Only the sniffly pack ticked, then enter: the run is read again and the dashboard
    // lists that pack's rules, not the defaults'.
    let mut harness = tui::open(120, 40);
    keys(&mut harness, "pjj<Space>kk<Space><CR>");
    let text = harness.text();
    assert!(
        text.contains("counting with sniffly-claude-code-errors"),
        "{text}"
    );
    keys(&mut harness, "m");
    let text = harness.text();
    assert!(
        text.contains("User Interruption"),
        "the pack's rules: {text}"
    );
    assert!(
        !text.contains("syntax_error"),
        "default rules left out: {text}"
    );
}
