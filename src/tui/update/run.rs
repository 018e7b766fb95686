//! The run table: moving, opening, sorting, filtering; and the run filling in as files load.

use super::{finder, list, prompt, trajectory};
use crate::model::LoadFailure;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::msg::FileOutcome;
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
                trajectory::open(state, row, None, fx);
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
        FileOutcome::Trajectories(rows) => state.run.add_rows(rows),
        FileOutcome::Results(source) => state.run.add_results(source),
        FileOutcome::Failed(failure) => state.run.failures.push(failure),
    }
}

pub fn loaded(state: &mut State, fx: &mut Vec<Effect>) {
    state.run.progress.finished = true;
    state.run.failures.sort_by(|a, b| a.path.cmp(&b.path));
    if state.open_single && state.run.rows.len() == 1 && state.trajectory.is_none() {
        trajectory::open(state, 0, None, fx);
    }
}
