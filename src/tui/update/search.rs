//! Searching the open trajectory: starting a search, taking its hits, moving between them.

use crate::model::Trajectory;
use crate::tui::document::Page;
use crate::tui::effect::Effect;
use crate::tui::search::{Field, Query};
use crate::tui::state::search::SearchState;
use crate::tui::state::{Notice, State};
use std::sync::Arc;

/// Starts searching for `text` in the open trajectory (an empty text clears the search).
pub fn start(state: &mut State, text: &str, fx: &mut Vec<Effect>) {
    let Some(query) = Query::new(text) else {
        state.search.clear();
        return;
    };
    let Some(t) = state.trajectory.as_ref() else {
        return;
    };
    match t.trajectory.clone() {
        Some(trajectory) => {
            let id = t.id;
            run(state, query, id, trajectory, fx);
        }
        // Still loading: the search runs when it arrives.
        None => {
            state.search = SearchState {
                query: Some(query),
                ..SearchState::default()
            }
        }
    }
}

pub fn run(
    state: &mut State,
    query: Query,
    trajectory_id: u64,
    trajectory: Arc<Trajectory>,
    fx: &mut Vec<Effect>,
) {
    state.search = SearchState {
        query: Some(query.clone()),
        trajectory: trajectory_id,
        running: true,
        ..SearchState::default()
    };
    fx.push(Effect::Search {
        trajectory: trajectory_id,
        query,
        source: trajectory,
    });
}

/// Hits arrived: keep them if they are for the current query and trajectory, and jump to
/// the first at or after the selected step.
pub fn done(state: &mut State, trajectory: u64, query: &str, hits: Vec<crate::tui::search::Hit>) {
    let current = state.search.query.as_ref().map(|q| q.text.as_str());
    if state.search.trajectory != trajectory || current != Some(query) {
        return;
    }
    state.search.set_hits(hits);
    if state.search.hits.is_empty() {
        state.notice = Some(Notice::error(format!("no match for /{query}")));
        return;
    }
    let step = state
        .trajectory
        .as_ref()
        .and_then(|t| t.step_index())
        .unwrap_or(1);
    if let Some(first) = state.search.first_from(step) {
        jump(state, first);
    }
}

/// `n` / `N`.
pub fn advance(state: &mut State, forward: bool) {
    if state.search.query.is_none() {
        state.notice = Some(Notice::info("no search yet: / starts one"));
        return;
    }
    let step = state
        .trajectory
        .as_ref()
        .and_then(|t| t.step_index())
        .unwrap_or(1);
    match state.search.advance(forward, step) {
        Some(i) => jump(state, i),
        None if state.search.running => state.notice = Some(Notice::info("searching…")),
        None => state.notice = Some(Notice::error("no match")),
    }
}

/// Makes hit `i` current: selects its step, shows the step page, unfolds the observation
/// if the hit is folded away, and scrolls to it once the page is built.
pub fn jump(state: &mut State, i: usize) {
    let Some(&hit) = state.search.hits.get(i) else {
        return;
    };
    state.search.current = Some(i);
    let fold_lines = state.options.fold_lines;
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    if let Some(position) = t.position_of(hit.step) {
        t.select(position);
    }
    t.page = Page::Step;
    if hit.field == Field::Observation {
        let lines = t
            .selected_step()
            .map_or(0, |s| Field::Observation.text(s).lines().count());
        let head = fold_lines * 2 / 3;
        let tail_from = lines.saturating_sub(fold_lines / 3);
        if lines > fold_lines && hit.line >= head && hit.line < tail_from {
            t.unfolded.insert(hit.step);
        }
    }
    t.pending_hit = Some(i);
}
