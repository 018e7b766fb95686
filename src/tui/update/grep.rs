//! The run-wide search: starting it, taking results as files are searched, opening one.

use super::{list, prompt, trajectory};
use crate::tui::action::Action;
use crate::tui::effect::{Effect, TaskKey};
use crate::tui::search::Query;
use crate::tui::state::grep::{GrepMatch, GrepState};
use crate::tui::state::prompt::PromptKind;
use crate::tui::state::{Overlay, State};

pub fn start(state: &mut State, text: &str, fx: &mut Vec<Effect>) {
    let Some(query) = Query::new(text) else {
        return;
    };
    let mut files: Vec<_> = state.run.rows.iter().map(|r| r.path.clone()).collect();
    files.sort();
    files.dedup();
    let id = state.next_id();
    state.overlay = Some(Overlay::Grep(GrepState::new(
        id,
        query.clone(),
        files.len(),
    )));
    fx.push(Effect::Grep { id, query, files });
}

fn current(state: &mut State, id: u64) -> Option<&mut GrepState> {
    match state.overlay.as_mut() {
        Some(Overlay::Grep(grep)) if grep.id == id => Some(grep),
        _ => None,
    }
}

pub fn found(state: &mut State, id: u64, found: GrepMatch) {
    if let Some(grep) = current(state, id) {
        grep.add(found);
    }
}

pub fn progress(state: &mut State, id: u64, files_done: usize, done: bool) {
    if let Some(grep) = current(state, id) {
        if done {
            grep.done = true;
            grep.files_done = grep.files_total;
        } else {
            grep.files_done = grep.files_done.max(files_done);
        }
    }
}

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let page = list::page_height(state);
    let Some(Overlay::Grep(grep)) = state.overlay.as_mut() else {
        return;
    };
    if list::navigate(&mut grep.cursor, action, grep.lines.len(), page) {
        return;
    }
    match action {
        Action::Back => {
            if !grep.done {
                fx.push(Effect::Cancel(TaskKey::Grep));
            }
            state.overlay = None;
        }
        Action::SearchRun => prompt::open(state, PromptKind::Grep),
        Action::Open => {
            let Some((found, step)) = grep.selected() else {
                return;
            };
            let source = found.source.clone();
            let query = grep.query.clone();
            let row = state
                .run
                .rows
                .iter()
                .position(|r| r.path == source.path && r.source_index == source.index);
            if let Some(row) = row {
                // The hits of the same query are highlighted in the trajectory.
                state.search.query = Some(query.clone());
                trajectory::open(state, row, step, fx);
                if let Some(t) = state.trajectory.as_ref()
                    && let Some(loaded) = t.trajectory.clone()
                {
                    let id = t.id;
                    super::search::run(state, query, id, loaded, fx);
                }
            }
        }
        _ => {}
    }
}
