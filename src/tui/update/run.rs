//! The run table: moving, opening, sorting, filtering; and the run filling in as files load.

use super::{compare, list, opening, prompt};
use crate::model::LoadFailure;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::msg::FileOutcome;
use crate::tui::panel::finder::update as finder;
use crate::tui::state::State;
use crate::tui::state::prompt::PromptKind;
use crate::tui::state::run::{Column, Sort};

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let len = state.run.visible.len();
    let page = list::page_height(state);
    if list::navigate(&mut state.run.cursor, action, len, page) {
        state.run.user_moved = true;
        return;
    }
    match action {
        Action::Quit => state.quit = true,
        Action::Open => {
            if let Some(row) = state.run.selected_row() {
                opening::open(state, row, None, fx);
            }
        }
        Action::Filter => prompt::open(state, PromptKind::Filter),
        Action::ClearFilter => {
            state.run.filter.clear();
            state.run.refresh();
        }
        Action::SortNext => sort_by(state, state.run.sort.column.next()),
        Action::SortPrevious => sort_by(state, state.run.sort.column.previous()),
        Action::SortReverse => {
            state.run.sort.descending = !state.run.sort.descending;
            state.run.refresh();
        }
        Action::FindTrajectory => finder::open_trajectories(state),
        Action::Mark => compare::mark(state),
        Action::Compare => compare::open(state, fx),
        Action::FailureModes => super::dashboard::open(state),
        Action::Runs => super::runs::open(state),
        Action::AddRun => prompt::open(state, PromptKind::AddRun),
        _ => {}
    }
}

/// Sorts by `column`; choosing the current column again reverses the order.
pub fn sort_by(state: &mut State, column: Column) {
    state.run.sort = if state.run.sort.column == column {
        Sort {
            column,
            descending: !state.run.sort.descending,
        }
    } else {
        Sort {
            column,
            descending: column.descending_first(),
        }
    };
    state.run.refresh();
}

pub fn discovered(state: &mut State, files: usize, bytes: u64, failures: Vec<LoadFailure>) {
    let progress = &mut state.run.progress;
    progress.files_total = Some(files);
    progress.bytes_total = bytes;
    state.run.failures.extend(failures);
}

pub fn file(state: &mut State, bytes: u64, outcome: FileOutcome) {
    let progress = &mut state.run.progress;
    progress.files_done += 1;
    progress.bytes_done += bytes;
    match outcome {
        FileOutcome::Trajectories(mut rows) => {
            rows.retain(|r| !super::live::owns(state, &r.path));
            state.run.add_rows(rows);
        }
        FileOutcome::Results(source) => state.run.add_results(source),
        FileOutcome::Failed(failure) => state.run.failures.push(failure),
    }
}

/// Many files at once: the table is sorted once for all of them.
pub fn files(state: &mut State, files: Vec<(u64, FileOutcome)>) {
    let mut rows = Vec::new();
    let mut sources = Vec::new();
    for (bytes, outcome) in files {
        let progress = &mut state.run.progress;
        progress.files_done += 1;
        progress.bytes_done += bytes;
        match outcome {
            FileOutcome::Trajectories(more) => rows.extend(more),
            FileOutcome::Results(source) => sources.push(source),
            FileOutcome::Failed(failure) => state.run.failures.push(failure),
        }
    }
    rows.retain(|r| !super::live::owns(state, &r.path));
    state.run.add_batch(rows, sources);
}

/// Rows of a file still being read: listed now, the file counted when it ends.
pub fn rows(state: &mut State, mut rows: Vec<crate::model::TrajectorySummary>) {
    state.run.progress.rows_streamed += rows.len();
    rows.retain(|r| !super::live::owns(state, &r.path));
    state.run.add_batch(rows, Vec::new());
}

pub fn loaded(state: &mut State, fx: &mut Vec<Effect>) {
    state.run.progress.finished = true;
    state.run.failures.sort_by(|a, b| a.path.cmp(&b.path));
    if state.open_single && state.run.rows.len() == 1 && state.trajectory.is_none() {
        opening::open(state, 0, None, fx);
    }
    // Opened at start, before its row existed: its row now, for the keys that use it.
    if let Some(t) = state.trajectory.as_mut().filter(|t| t.row.is_none()) {
        t.row = state.run.row_of(&t.source);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{empty, press, run, send, shown, summary};
    use crate::model::{LoadFailure, ResultsSource};
    use crate::tui::effect::Effect;
    use crate::tui::msg::{FileOutcome, Msg};
    use crate::tui::state::Screen;
    use std::path::PathBuf;

    #[test]
    fn start_asks_to_load_the_roots() {
        let mut state = empty();
        let effects = super::super::start(&mut state);
        assert!(matches!(&effects[..], [
                Effect::LoadRun { roots, .. },
                Effect::Watch { roots: watched, .. },
                Effect::LoadLabels { roots: labels },
            ] if roots == &[PathBuf::from("run")] && watched == roots && labels == roots));
    }

    #[test]
    fn the_run_fills_in_as_files_load() {
        let mut state = empty();
        send(
            &mut state,
            Msg::RunDiscovered {
                files: 2,
                bytes: 50,
                failures: Vec::new(),
            },
        );
        assert_eq!(state.run.progress.files_total, Some(2));
        assert!(!state.run.progress.finished);
        send(
            &mut state,
            Msg::RunFile {
                bytes: 20,
                outcome: FileOutcome::Trajectories(vec![summary("z", 3, 0.1, None)]),
            },
        );
        assert_eq!(shown(&state), ["z"]);
        let failure = LoadFailure {
            path: "run/x.traj".into(),
            message: "run/x.traj:1:2: bad".into(),
        };
        send(
            &mut state,
            Msg::RunFile {
                bytes: 30,
                outcome: FileOutcome::Failed(failure),
            },
        );
        assert_eq!(state.run.progress.files_done, 2);
        assert_eq!(state.run.progress.bytes_done, 50);
        assert_eq!(state.run.failures.len(), 1);
        send(&mut state, Msg::RunLoaded);
        assert!(state.run.progress.finished);
    }

    #[test]
    fn the_first_row_stays_selected_while_loading_until_the_user_moves() {
        let mut state = empty();
        send(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: FileOutcome::Trajectories(vec![summary("m", 1, 0.0, None)]),
            },
        );
        send(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: FileOutcome::Trajectories(vec![summary("a", 1, 0.0, None)]),
            },
        );
        assert_eq!(
            state.run.cursor.selected, 0,
            "the top row, not the first file read"
        );
        press(&mut state, "j");
        send(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: FileOutcome::Trajectories(vec![summary("0", 1, 0.0, None)]),
            },
        );
        let selected = state
            .run
            .selected_row()
            .map(|r| state.run.rows[r].instance_id.clone());
        assert_eq!(
            selected.as_deref(),
            Some("m"),
            "the user's row stays selected"
        );
    }

    #[test]
    fn results_arriving_late_are_joined() {
        let mut state = empty();
        send(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: FileOutcome::Trajectories(vec![summary("a", 1, 0.0, None)]),
            },
        );
        let mut source = ResultsSource {
            scope: "run".into(),
            ..ResultsSource::default()
        };
        source.verdicts.insert("a".into(), true);
        send(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: FileOutcome::Results(source),
            },
        );
        assert_eq!(state.run.rows[0].resolved, Some(true));
        assert_eq!(state.run.totals.resolved, 1);
    }

    #[test]
    fn sorting_keys() {
        let mut state = run();
        assert_eq!(shown(&state), ["a", "b", "c"]);
        press(&mut state, "ss");
        assert_eq!(shown(&state), ["b", "a", "c"], "steps, most first");
        press(&mut state, "S");
        assert_eq!(shown(&state), ["c", "a", "b"]);
        press(&mut state, "<lt>");
        assert_eq!(state.run.sort.column, super::Column::Format);
    }

    #[test]
    fn the_filter_applies_as_typed_and_esc_restores_it() {
        let mut state = run();
        press(&mut state, "/resolved:no");
        assert_eq!(shown(&state), ["b"]);
        assert!(state.prompt.is_some());
        press(&mut state, "<Esc>");
        assert_eq!(shown(&state), ["a", "b", "c"]);
        press(&mut state, "/resolved:no<CR>");
        assert_eq!(shown(&state), ["b"]);
        assert!(state.prompt.is_none());
        press(&mut state, "<Esc>");
        assert_eq!(
            shown(&state),
            ["a", "b", "c"],
            "esc in the table clears the filter"
        );
    }

    #[test]
    fn enter_opens_the_selected_trajectory() {
        let mut state = run();
        let effects = press(&mut state, "j<CR>");
        assert_eq!(state.screen, Screen::Trajectory);
        let source = effects.iter().find_map(|e| match e {
            Effect::LoadTrajectory { source, .. } => Some(source.clone()),
            _ => None,
        });
        assert_eq!(source.map(|s| s.path), Some(PathBuf::from("run/b.traj")));
    }

    #[test]
    fn a_single_file_opens_straight_into_its_trajectory() {
        let mut state = empty();
        state.open_single = true;
        send(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: FileOutcome::Trajectories(vec![summary("only", 2, 0.0, None)]),
            },
        );
        let effects = send(&mut state, Msg::RunLoaded);
        assert_eq!(state.screen, Screen::Trajectory);
        assert!(
            effects
                .iter()
                .any(|e| matches!(e, Effect::LoadTrajectory { .. }))
        );
    }

    #[test]
    fn q_quits_from_the_run() {
        let mut state = run();
        press(&mut state, "q");
        assert!(state.quit);
    }
}
