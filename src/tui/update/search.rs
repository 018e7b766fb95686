//! Searching the open trajectory: starting a search, taking its hits, moving between them.

use crate::metrics::{SearchError, shown_text};
use crate::model::Trajectory;
use crate::tui::document::Page;
use crate::tui::effect::Effect;
use crate::tui::search::{Field, Query};
use crate::tui::state::search::SearchState;
use crate::tui::state::{Notice, State};
use std::sync::Arc;

/// Starts searching for `text` in the open trajectory (an empty text clears the search).
pub fn start(state: &mut State, text: &str, fx: &mut Vec<Effect>) {
    let query = match Query::new(text) {
        Ok(query) => query,
        Err(SearchError::Empty) => {
            state.search.clear();
            return;
        }
        Err(err) => {
            state.notice = Some(Notice::error(format!("search: {err}")));
            return;
        }
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
    let step = current_step(state);
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
    let step = current_step(state);
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
        let head = fold_lines * 2 / 3;
        let folded = match t.selected_step() {
            Some(step) => {
                let lines = shown_text(Field::Observation, step).lines().count();
                let tail_from = lines.saturating_sub(fold_lines / 3);
                lines > fold_lines && hit.line >= head && hit.line < tail_from
            }
            // A lazily opened step is not held here: unfold whenever the hit may be folded.
            None => hit.line >= head,
        };
        if folded {
            t.unfolded.insert(hit.step);
        }
    }
    t.pending_hit = Some(i);
}

/// The step the reader is on (1 before a trajectory is open): where searching goes on from.
fn current_step(state: &State) -> usize {
    state
        .trajectory
        .as_ref()
        .and_then(|t| t.step_index())
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{opened, press, send};
    use crate::tui::effect::Effect;
    use crate::tui::search::{self, Query};
    use crate::tui::state::State;
    use std::sync::atomic::AtomicBool;

    /// Runs the `Search` effect in `effects` the way the runtime would and delivers the hits.
    fn finish(state: &mut State, effects: &[Effect]) {
        let Some(Effect::Search {
            trajectory,
            query,
            source,
        }) = effects.iter().find(|e| matches!(e, Effect::Search { .. }))
        else {
            panic!("no search in {effects:?}");
        };
        let msg = crate::tui::job::search(*trajectory, query, source, &AtomicBool::new(false));
        send(state, msg);
    }

    fn step(state: &State) -> Option<usize> {
        state.trajectory.as_ref().and_then(|t| t.step_index())
    }

    #[test]
    fn slash_enter_searches_and_jumps_to_the_first_hit() {
        let (mut state, _) = opened(20, 5);
        press(&mut state, "jj");
        let effects = press(&mut state, "/syntaxerror<CR>");
        assert!(state.search.running);
        finish(&mut state, &effects);
        assert_eq!(state.search.hits.len(), 4, "steps 5, 10, 15, 20");
        assert_eq!(step(&state), Some(5), "the first hit at or after step 3");
        assert_eq!(state.search.current, Some(0));
        assert!(state.trajectory.as_ref().unwrap().pending_hit.is_some());
        press(&mut state, "n");
        assert_eq!(step(&state), Some(10));
        press(&mut state, "NN");
        assert_eq!(step(&state), Some(20), "wraps around");
        press(&mut state, "<C-l>");
        assert!(state.search.query.is_none());
        press(&mut state, "n");
        assert!(state.notice.is_some());
    }

    #[test]
    fn results_of_an_older_query_are_ignored() {
        let (mut state, _) = opened(10, 2);
        let old = press(&mut state, "/output<CR>");
        press(&mut state, "/thinking<CR>");
        finish(&mut state, &old);
        assert!(state.search.hits.is_empty());
        assert!(state.search.running);
    }

    #[test]
    fn a_hit_in_a_folded_observation_unfolds_it() {
        // 100 lines with the default fold at 60: lines 40..80 are folded; the SyntaxError
        // of step 5 is on line 50.
        let (mut state, _) = opened(5, 100);
        let effects = press(&mut state, "/SyntaxError<CR>");
        finish(&mut state, &effects);
        assert!(state.trajectory.as_ref().unwrap().unfolded.contains(&5));
    }

    #[test]
    fn no_match_is_said() {
        let (mut state, _) = opened(3, 1);
        let effects = press(&mut state, "/nothing here<CR>");
        finish(&mut state, &effects);
        assert_eq!(state.notice.as_ref().map(|n| n.error), Some(true));
    }

    #[test]
    fn the_search_follows_to_the_next_trajectory() {
        let (mut state, _) = opened(10, 2);
        let effects = press(&mut state, "/SyntaxError<CR>");
        finish(&mut state, &effects);
        let effects = press(&mut state, "]");
        let effects = super::super::testing::deliver(
            &mut state,
            &effects,
            super::super::testing::trajectory("run/b.traj", 12, 2),
        );
        assert!(effects.iter().any(|e| matches!(e, Effect::Search { .. })));
        finish(&mut state, &effects);
        assert_eq!(state.search.hits.len(), 2);
        assert_eq!(step(&state), Some(5));
    }

    #[test]
    fn invalid_regex_is_searched_literally() {
        let q = Query::new("right)").unwrap();
        assert!(q.literal);
        let t = super::super::testing::trajectory("t", 1, 1);
        assert!(search::find(&t, &q, &AtomicBool::new(false)).is_empty());
    }
}
