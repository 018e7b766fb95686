//! The live watch's reports: rows of the run replaced in place as their files change, new
//! files becoming new rows, trajectories still being written marked, alerts flagged; the
//! open trajectory refreshed with follow mode (the cursor stays on the newest step while it
//! is on the last one; otherwise new steps are only announced). `F` toggles follow.

use super::trajectory;
use crate::tui::effect::Effect;
use crate::tui::msg::{LiveFile, LiveMsg};
use crate::tui::state::live::LiveKey;
use crate::tui::state::trajectory::{LoadedTrajectory, TrajectoryRef};
use crate::tui::state::{Notice, Screen, State};
use std::path::Path;
use std::sync::Arc;

pub fn message(state: &mut State, msg: LiveMsg, fx: &mut Vec<Effect>) {
    match msg {
        LiveMsg::Started { polling } => {
            state.live.active = true;
            state.live.stopped = None;
            state.live.polling = polling;
        }
        LiveMsg::Stopped(reason) => {
            state.live.active = false;
            state.notice = Some(Notice::error(format!("live watch stopped: {reason}")));
            state.live.stopped = Some(reason);
        }
        LiveMsg::File(file) => file_changed(state, file, fx),
    }
}

/// Whether rows of `path` come from the live watch: the initial load's (older) reading of
/// the same file must not replace them.
pub fn owns(state: &State, path: &Path) -> bool {
    state.live.files.contains(path)
}

fn file_changed(state: &mut State, file: LiveFile, fx: &mut Vec<Effect>) {
    let LiveFile {
        path,
        trajectories,
        removed,
    } = file;
    state.live.files.insert(path.clone());
    if !removed {
        state.run.failures.retain(|f| f.path != path);
    }
    let open = state
        .trajectory
        .as_ref()
        .map(|t| t.source.clone())
        .filter(|s| s.path == path);
    let mut kept: Vec<Option<usize>> = Vec::new();
    let mut fired = Vec::new();
    let mut open_update = None;
    for live in trajectories {
        let mut summary = live.summary;
        state.run.results.apply(std::slice::from_mut(&mut summary));
        let index = summary.source_index;
        let key: LiveKey = (path.clone(), index);
        kept.push(index);
        let existing = state
            .run
            .rows
            .iter()
            .position(|r| r.path == path && r.source_index == index);
        let changed = match existing {
            Some(row) => {
                let changed = state.run.rows[row] != summary;
                state.run.rows[row] = summary.clone();
                changed
            }
            None => {
                state.run.rows.push(summary.clone());
                true
            }
        };
        if summary.exit_status.is_some() {
            state.live.running.remove(&key);
        } else if changed {
            state.live.running.insert(key.clone());
        }
        for firing in live.alerts {
            fired.push((summary.instance_id.clone(), firing.clone()));
            state
                .live
                .alerts
                .entry(key.clone())
                .or_default()
                .push(firing);
        }
        if open.as_ref().is_some_and(|s| s.index == index) {
            open_update = Some(live.loaded);
        }
    }
    let gone =
        |r: &crate::model::TrajectorySummary| r.path == path && !kept.contains(&r.source_index);
    if state.run.rows.iter().any(gone) {
        state.run.rows.retain(|r| !gone(r));
        state
            .live
            .running
            .retain(|(p, i)| p != &path || kept.contains(i));
        state
            .live
            .alerts
            .retain(|(p, i), _| p != &path || kept.contains(i));
    }
    renumber_open_row(state);
    state.run.refresh();

    if let Some(loaded) = open_update {
        refresh_open(state, &loaded, fx);
    }
    if let Some((instance, firing)) = fired.last() {
        let more = if fired.len() > 1 {
            format!(" (+{} more)", fired.len() - 1)
        } else {
            String::new()
        };
        state.notice = Some(Notice::error(format!(
            "⚠ alert {} at step {} of {instance}{more}",
            firing.rule, firing.step
        )));
    }
    if state.open_single && state.trajectory.is_none() && state.run.rows.len() == 1 {
        trajectory::open(state, 0, None, fx);
    }
}

/// Rows moved when others were removed: the open trajectory's row is found again.
fn renumber_open_row(state: &mut State) {
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    let TrajectoryRef { path, index } = &t.source;
    t.row = state
        .run
        .rows
        .iter()
        .position(|r| &r.path == path && r.source_index == *index);
}

/// The open trajectory grew or was rewritten: show the new version, keeping the selected
/// step, or following the newest.
fn refresh_open(state: &mut State, loaded: &Arc<LoadedTrajectory>, fx: &mut Vec<Effect>) {
    let id = state.next_id();
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    let before = t.steps.len();
    let was_loaded = t.trajectory.is_some();
    let on_last = t.cursor.selected + 1 >= before;
    // A new id: documents built for the old version (a step that was completed since, the
    // patch) are not reused.
    t.id = id;
    trajectory::loaded(state, id, Ok(Box::new(LoadedTrajectory::clone(loaded))), fx);
    let follow = state.live.follow;
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    let after = t.steps.len();
    if !was_loaded || after <= before {
        return;
    }
    if follow && on_last {
        t.select(after - 1);
    } else {
        let source = t.source.clone();
        let live = &mut state.live;
        if live.unseen_in.as_ref() != Some(&source) {
            live.unseen = 0;
            live.unseen_in = Some(source);
        }
        live.unseen += after - before;
    }
}

/// Steps below the cursor that arrived while it was not following.
pub fn unseen_steps(state: &State) -> usize {
    let Some(t) = state.trajectory.as_ref() else {
        return 0;
    };
    if state.live.unseen_in.as_ref() != Some(&t.source) {
        return 0;
    }
    let below = t.steps.len().saturating_sub(t.cursor.selected + 1);
    state.live.unseen.min(below)
}

/// `F`: follow on (jumping to the newest step) or off.
pub fn toggle_follow(state: &mut State) {
    state.live.follow = !state.live.follow;
    state.live.unseen = 0;
    if state.live.follow {
        if let Some(t) = state
            .trajectory
            .as_mut()
            .filter(|_| state.screen == Screen::Trajectory)
            && !t.steps.is_empty()
        {
            t.select(t.steps.len() - 1);
        }
        state.notice = Some(Notice::info(
            "follow on: the newest step stays selected as steps arrive",
        ));
    } else {
        state.notice = Some(Notice::info(
            "follow off: new steps are counted in the status bar",
        ));
    }
}
