//! Opening a trajectory (from the run, the dashboard, a finder, the live run, a sub-agent
//! link) and its arrival from disk. Every screen opens trajectories through here; none of
//! this depends on the trajectory screen's keys (`trajectory.rs`), so no import goes round.

use super::search;
use crate::tui::effect::Effect;
use crate::tui::state::trajectory::{LoadedTrajectory, TrajectoryRef, TrajectoryState};
use crate::tui::state::{Notice, Screen, State};
use std::path::Path;
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
    let title = state.run.label(row).to_string();
    open_source(state, source, Some(row), title, step, fx);
}

/// Opens the trajectory `source` (row `row` of the run, when known), at `step` when given.
pub fn open_source(
    state: &mut State,
    source: TrajectoryRef,
    row: Option<usize>,
    title: String,
    step: Option<usize>,
    fx: &mut Vec<Effect>,
) {
    let back = match state.screen {
        Screen::Trajectory => state.trajectory.as_ref().map_or(Screen::Run, |t| t.back),
        other => other,
    };
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
    let mut opening = TrajectoryState::opening(id, source.clone(), row, title);
    opening.pending_step = step;
    opening.back = back;
    state.trajectory = Some(opening);
    state.search.hits.clear();
    state.search.hit_steps.clear();
    state.search.current = None;
    fx.push(Effect::LoadTrajectory {
        id,
        source,
        lazy_above: state.options.lazy_above,
    });
}

pub fn loaded(
    state: &mut State,
    id: u64,
    result: Result<Box<LoadedTrajectory>, String>,
    fx: &mut Vec<Effect>,
) {
    let Some(was_indexing) = state
        .trajectory
        .as_ref()
        .filter(|t| t.id == id)
        .map(|t| t.indexing.is_some())
    else {
        return;
    };
    let fresh = was_indexing.then(|| state.next_id());
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    t.indexing = None;
    let loaded = match result {
        Ok(loaded) => loaded,
        Err(message) => {
            t.error = Some(message);
            return;
        }
    };
    if let Some(fresh) = fresh {
        // Its first steps were shown: stay on the step read, and let every page built from
        // them (titled `Step 1/350+`) and every search of them go, as of another trajectory.
        if t.pending_step.is_none() {
            t.pending_step = t.step_index();
        }
        t.id = fresh;
    }
    install(state, *loaded, !was_indexing, fx);
}

/// The file opened at start holds several trajectories: back to the run, which lists them.
pub fn several(state: &mut State, id: u64, path: &Path, count: usize) {
    let Some(t) = state.trajectory.as_ref().filter(|t| t.id == id) else {
        return;
    };
    if state.screen == Screen::Trajectory {
        state.screen = t.back;
    }
    state.trajectory = None;
    // The name alone: the status bar is one line, and the run's header shows the path.
    let name = path
        .file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy();
    state.notice = Some(Notice::info(format!(
        "{count} trajectories in {name}: pick one"
    )));
}

/// The first steps of a big file: shown at once, the rest of the file being indexed.
pub fn started(state: &mut State, id: u64, loaded: LoadedTrajectory, fx: &mut Vec<Effect>) {
    let Some(t) = state.trajectory.as_mut().filter(|t| t.id == id) else {
        return;
    };
    let size = loaded.trajectory.lazy.as_ref().map_or(0, |l| l.file_size());
    t.indexing = Some((0, size));
    install(state, loaded, true, fx);
}

/// How far the index of the open trajectory's file has got.
pub fn indexing(state: &mut State, id: u64, read: u64, total: u64) {
    if let Some(t) = state.trajectory.as_mut().filter(|t| t.id == id)
        && t.indexing.is_some()
    {
        t.indexing = Some((read, total));
    }
}

/// Shows `loaded` as the open trajectory (`announce`: say in the status bar that it was
/// opened lazily, once).
fn install(state: &mut State, loaded: LoadedTrajectory, announce: bool, fx: &mut Vec<Effect>) {
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    let id = t.id;
    let LoadedTrajectory {
        mut trajectory,
        steps,
    } = loaded;
    // The run's join of eval results is authoritative; a prediction may hold the patch.
    if let Some(row) = t.row.and_then(|r| state.run.rows.get(r)) {
        trajectory.resolved = trajectory.resolved.or(row.resolved);
        if trajectory.exit_status.is_none() {
            trajectory.exit_status = row.exit_status.clone();
        }
    }
    if trajectory.submission.is_none() {
        let run: Vec<&Path> = state.run.rows.iter().map(|r| r.path.as_path()).collect();
        state
            .run
            .results
            .apply_among(std::slice::from_mut(&mut trajectory), &run);
    }
    t.error = None;
    if let Some(lazy) = trajectory.lazy.as_ref().filter(|_| announce) {
        state.notice = Some(Notice::info(format!(
            "opened lazily ({}): steps are read from the file when shown; no diffs or replay (see lazy_above_mb)",
            crate::tui::units::bytes(lazy.file_size())
        )));
    }
    t.multi_agent = !trajectory.agents().is_empty();
    let trajectory = Arc::new(trajectory);
    t.trajectory = Some(trajectory.clone());
    t.tool_width = steps
        .iter()
        .map(|s| crate::text::display_width(&s.tool))
        .max()
        .unwrap_or(1)
        .clamp(4, 16);
    t.steps = Arc::from(steps);
    // A step past the first ones read is selected once the index has it.
    if let Some(step) = t.pending_step
        && (t.indexing.is_none() || t.position_of(step).is_some())
    {
        t.pending_step = None;
        if let Some(position) = t.position_of(step) {
            t.select(position);
        }
    }
    if let Some(child) = t.pending_subagent.take()
        && let Some(step) = trajectory
            .steps
            .iter()
            .find(|s| s.subagent.as_ref() == Some(&child))
        && let Some(position) = t.position_of(step.index)
    {
        t.select(position);
    }
    if let Some(query) = state.search.query.clone() {
        search::run(state, query, id, trajectory, fx);
    }
}
