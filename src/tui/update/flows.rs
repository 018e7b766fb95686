//! Key flows a newcomer takes, through the real keymap: filtering by terms, going back to
//! where a trajectory was opened from, keys typed while a trajectory is read, and messages
//! that name the keys in force.

use super::testing::{deliver, empty, press, run, send, shown, summary, trajectory};
use crate::model::ResultsSource;
use crate::tui::config::Config;
use crate::tui::keymap::Keymap;
use crate::tui::msg::{FileOutcome, Msg};
use crate::tui::state::{Screen, Size, State};
use std::path::PathBuf;

#[test]
fn the_filter_selects_exactly_the_resolved_rows() {
    let mut state = run();
    press(&mut state, "/resolved:yes<CR>");
    assert_eq!(shown(&state), ["a"]);
    assert_eq!(state.run.filter_error, None);

    // The word of the column is not a substring test any more.
    press(&mut state, "/<C-u>resolved<CR>");
    assert!(shown(&state).is_empty(), "{:?}", shown(&state));

    press(&mut state, "/<C-u>-resolved:yes<CR>");
    assert_eq!(shown(&state), ["b", "c"]);
    press(&mut state, "/<C-u>steps>10 -resolved:no<CR>");
    assert_eq!(shown(&state), ["a"]);
}

#[test]
fn a_bad_term_is_an_error_in_the_filter_line_and_the_good_terms_apply() {
    let mut state = run();
    press(&mut state, "/resolved:no");
    assert_eq!(shown(&state), ["b"]);
    // Pasted whole: typed, each prefix would be a filter of its own (`steps` a word).
    send(&mut state, Msg::Paste(" steps>x".into()));
    let error = state.run.filter_error.clone().expect("an error");
    assert!(error.contains("steps>x"), "{error}");
    assert_eq!(shown(&state), ["b"], "the terms that parse still apply");
    // A bad term alone filters nothing away.
    press(&mut state, "<C-u>resolved:maybe");
    assert_eq!(shown(&state), ["a", "b", "c"]);
    assert!(state.run.filter_error.is_some());
}

#[test]
fn rule_terms_use_what_the_rules_found() {
    let mut state = run();
    let name = state
        .run
        .rule_names
        .first()
        .cloned()
        .expect("default rules");
    state
        .run
        .rule_hits
        .insert((PathBuf::from("run/b.traj"), None), vec![name.clone()]);
    press(&mut state, &format!("/rule:{name}<CR>"));
    assert_eq!(shown(&state), ["b"]);
    press(&mut state, "/<C-u>rule:no-such-rule");
    assert!(state.run.filter_error.is_some());
}

#[test]
fn q_goes_back_to_the_dashboard_a_trajectory_was_opened_from() {
    let mut state = run();
    let effects = press(&mut state, "m");
    assert_eq!(state.screen, Screen::Dashboard);
    // Opened from the dashboard (as its `enter` on a hit does), then the next one (`]`).
    let row = state.run.visible[0];
    let mut fx = effects;
    super::opening::open(&mut state, row, None, &mut fx);
    deliver(&mut state, &fx, trajectory("run/a.traj", 5, 2));
    let effects = press(&mut state, "]");
    deliver(&mut state, &effects, trajectory("run/b.traj", 5, 2));
    assert_eq!(state.screen, Screen::Trajectory);
    press(&mut state, "q");
    assert_eq!(state.screen, Screen::Dashboard);
}

#[test]
fn keys_typed_while_a_trajectory_is_read_are_kept() {
    let mut state = run();
    let effects = press(&mut state, "<CR>");
    // Three steps down before the steps are there.
    press(&mut state, "jjj");
    deliver(&mut state, &effects, trajectory("run/a.traj", 10, 2));
    let t = state.trajectory.as_ref().expect("open");
    assert_eq!(t.cursor.selected, 3);
    assert!(state.held_keys.is_empty());
}

#[test]
fn messages_name_the_keys_in_force() {
    let keymap_table: toml::Table = toml::from_str(
        r#"
        [run]
        mark = ["x"]
        compare = ["C"]
        "#,
    )
    .expect("toml");
    let mut problems = Vec::new();
    let config = Config {
        keymap: Keymap::with_overrides(Some(&keymap_table), &mut problems),
        ..Config::default()
    };
    assert!(problems.is_empty(), "{problems:?}");
    let mut state = State::new(
        vec![PathBuf::from("run")],
        config,
        Size {
            width: 100,
            height: 30,
        },
    );
    for row in [summary("a", 3, 0.1, None), summary("b", 3, 0.1, None)] {
        send(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: FileOutcome::Trajectories(vec![row]),
            },
        );
    }
    send(&mut state, Msg::RunLoaded);
    press(&mut state, "x");
    let notice = state.notice.clone().expect("a notice").text;
    assert!(notice.contains("press C"), "{notice}");
    press(&mut state, "x");
    press(&mut state, "C");
    let notice = state.notice.clone().expect("a notice").text;
    assert!(
        notice.contains("mark one (x)") && notice.contains("press C"),
        "{notice}"
    );
}

#[test]
fn results_above_and_named_give_verdicts_and_named_win() {
    let mut state = empty();
    let source = |path: &str, explicit: bool, verdict: bool| ResultsSource {
        path: PathBuf::from(path),
        scope: if explicit {
            PathBuf::new()
        } else {
            PathBuf::from("run")
        },
        explicit,
        above: usize::from(!explicit),
        verdicts: [("a".to_string(), verdict)].into(),
        ..ResultsSource::default()
    };
    send(
        &mut state,
        Msg::RunResultsAbove(vec![source("/x/results.json", false, true)]),
    );
    send(
        &mut state,
        Msg::RunFile {
            bytes: 1,
            outcome: FileOutcome::Trajectories(vec![summary("a", 3, 0.1, None)]),
        },
    );
    assert_eq!(state.run.rows[0].resolved, Some(true));
    assert_eq!(state.run.verdict_files, [PathBuf::from("/x/results.json")]);
    // A named file arriving later still wins over the one found above.
    state
        .run
        .results
        .name_first(vec![source("named.json", true, false)]);
    state.run.results.apply(&mut state.run.rows);
    state.run.refresh();
    assert_eq!(state.run.rows[0].resolved, Some(false));
    assert_eq!(
        state.run.rows[0].verdict_source.as_deref(),
        Some(std::path::Path::new("named.json"))
    );
}
