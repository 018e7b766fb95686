//! The trajectory screen: opening one, moving between steps (errors, same tool, next
//! trajectory), and the trajectory arriving from disk.

use super::{clipboard, finder, list, page, prompt, search};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::prompt::PromptKind;
use crate::tui::state::trajectory::{LoadedTrajectory, TrajectoryRef, TrajectoryState};
use crate::tui::state::{Notice, Screen, State};
use std::sync::Arc;

/// Opens row `row` of the run, at step `step` (1-based) when given.
pub fn open(state: &mut State, row: usize, step: Option<usize>, fx: &mut Vec<Effect>) {
    let Some(summary) = state.run.rows.get(row) else {
        return;
    };
    let source = TrajectoryRef {
        path: summary.path.clone(),
        index: summary.source_index,
    };
    let title = summary.instance_id.clone();
    state.screen = Screen::Trajectory;
    state.overlay = None;
    if let Some(t) = state.trajectory.as_mut().filter(|t| t.source == source) {
        // Already open (or opening): just go to the step.
        if let Some(step) = step {
            match t.position_of(step) {
                Some(position) => t.select(position),
                None => t.pending_step = Some(step),
            }
        }
        return;
    }
    let id = state.next_id();
    let mut opening = TrajectoryState::opening(id, source.clone(), Some(row), title);
    opening.pending_step = step;
    state.trajectory = Some(opening);
    state.search.hits.clear();
    state.search.hit_steps.clear();
    state.search.current = None;
    fx.push(Effect::LoadTrajectory { id, source });
}

pub fn loaded(
    state: &mut State,
    id: u64,
    result: Result<Box<LoadedTrajectory>, String>,
    fx: &mut Vec<Effect>,
) {
    let Some(t) = state.trajectory.as_mut().filter(|t| t.id == id) else {
        return;
    };
    let loaded = match result {
        Ok(loaded) => loaded,
        Err(message) => {
            t.error = Some(message);
            return;
        }
    };
    let LoadedTrajectory {
        mut trajectory,
        steps,
    } = *loaded;
    // The run's join of eval results is authoritative; a prediction may hold the patch.
    if let Some(row) = t.row.and_then(|r| state.run.rows.get(r)) {
        trajectory.resolved = trajectory.resolved.or(row.resolved);
        if trajectory.exit_status.is_none() {
            trajectory.exit_status = row.exit_status.clone();
        }
    }
    if trajectory.submission.is_none() {
        state
            .run
            .results
            .apply(std::slice::from_mut(&mut trajectory));
    }
    t.multi_agent = !trajectory.agents().is_empty();
    let trajectory = Arc::new(trajectory);
    t.trajectory = Some(trajectory.clone());
    t.steps = Arc::from(steps);
    if let Some(step) = t.pending_step.take()
        && let Some(position) = t.position_of(step)
    {
        t.select(position);
    }
    if let Some(query) = state.search.query.clone() {
        search::run(state, query, id, trajectory, fx);
    }
}

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let page_rows = list::page_height(state);
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    let mut cursor = t.cursor;
    if list::navigate(&mut cursor, action, t.steps.len(), page_rows) {
        t.select(cursor.selected);
        return;
    }
    match action {
        Action::Back => back_to_run(state),
        Action::NextError | Action::PreviousError => {
            let forward = action == Action::NextError;
            match t.find_step(forward, |s| s.error) {
                Some(position) => t.select(position),
                None => {
                    let which = if forward { "after" } else { "before" };
                    state.notice = Some(Notice::info(format!(
                        "no step with an error {which} this one"
                    )));
                }
            }
        }
        Action::NextSameTool | Action::PreviousSameTool => {
            let forward = action == Action::NextSameTool;
            let Some(tool) = t.steps.get(t.cursor.selected).map(|s| s.tool.clone()) else {
                return;
            };
            match t.find_step(forward, |s| s.tool == tool) {
                Some(position) => t.select(position),
                None => {
                    let which = if forward { "after" } else { "before" };
                    state.notice = Some(Notice::info(format!("no `{tool}` step {which} this one")));
                }
            }
        }
        Action::NextTrajectory | Action::PreviousTrajectory => {
            let forward = action == Action::NextTrajectory;
            let next = t.row.and_then(|row| state.run.neighbour(row, forward));
            match next {
                Some(row) => open(state, row, None, fx),
                None => {
                    let which = if forward { "last" } else { "first" };
                    state.notice = Some(Notice::info(format!(
                        "this is the {which} trajectory of the run"
                    )));
                }
            }
        }
        Action::Search => prompt::open(state, PromptKind::Search),
        Action::NextHit => search::advance(state, true),
        Action::PreviousHit => search::advance(state, false),
        Action::ClearSearch => state.search.clear(),
        Action::FindStep => finder::open_steps(state),
        Action::CopyAction | Action::CopyObservation | Action::OpenInEditor => {
            clipboard::action(state, action, fx);
        }
        other => page::action(state, other),
    }
}

/// Back to the run table, with the trajectory's row selected.
pub fn back_to_run(state: &mut State) {
    state.screen = Screen::Run;
    let row = state.trajectory.as_ref().and_then(|t| t.row);
    if let Some(position) = row.and_then(|r| state.run.visible.iter().position(|&i| i == r)) {
        state.run.cursor.selected = position;
        state.run.user_moved = true;
    }
}
