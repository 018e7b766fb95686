//! Following a Claude Code sub-agent link: from the step that started a sub-agent to the
//! sub-agent's own log, and from a sub-agent back to that step of its parent.

use super::trajectory::open_source;
use crate::tui::effect::Effect;
use crate::tui::state::trajectory::TrajectoryRef;
use crate::tui::state::{Notice, State};
use std::path::Path;

pub fn follow(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(t) = state.trajectory.as_ref() else {
        return;
    };
    let Some(trajectory) = t.trajectory.clone() else {
        return;
    };
    if let Some(child) = t.selected_step().and_then(|s| s.subagent.clone()) {
        open(state, &child, None, fx);
        return;
    }
    match &trajectory.parent {
        Some(parent) => {
            let parent = parent.clone();
            open(state, &parent, Some(&trajectory.source), fx);
        }
        None => {
            state.notice = Some(Notice::info(
                "this step started no sub-agent with a log of its own, and this trajectory is no sub-agent",
            ));
        }
    }
}

/// Opens the log at `path` (its run row, when the run lists it); `from_child` selects the
/// step that started that sub-agent once the parent is read.
fn open(state: &mut State, path: &Path, from_child: Option<&Path>, fx: &mut Vec<Effect>) {
    let row = state.run.rows.iter().position(|r| r.path == path);
    let title = row
        .and_then(|r| state.run.rows.get(r))
        .map(|r| r.instance_id.clone())
        .unwrap_or_else(|| crate::model::instance_id_from_path(path));
    let source = TrajectoryRef {
        path: path.to_path_buf(),
        index: None,
    };
    open_source(state, source, row, title, None, fx);
    if let Some(t) = state.trajectory.as_mut() {
        t.pending_subagent = from_child.map(Path::to_path_buf);
    }
}
