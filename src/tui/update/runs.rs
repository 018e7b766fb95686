//! The runs screen: moving through the instances, the "solved by exactly k" and "solved only
//! by run X" filters, adding a run, and opening one instance's trajectories side by side.

use super::{list, opening, prompt};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::layout;
use crate::tui::state::prompt::PromptKind;
use crate::tui::state::run::Progress;
use crate::tui::state::runs::{InstanceTrajectories, InstanceView, RunsFilter, letter};
use crate::tui::state::trajectory::TrajectoryRef;
use crate::tui::state::{Notice, Screen, State};
use std::path::PathBuf;

/// The runs screen, from the run table (or at start with `--runs`).
pub fn open(state: &mut State) {
    if state.run.roots.len() < 2 {
        state.notice = Some(Notice::info(
            "one run is open: add another with + to compare runs side by side",
        ));
        return;
    }
    state.screen = Screen::Runs;
    state.overlay = None;
    sync(state);
}

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    if state.runs.instance.is_some() {
        instance_action(state, action, fx);
        return;
    }
    let len = state.runs.visible.len();
    let page = usize::from(layout::runs(state.area()).body.height);
    if list::navigate(&mut state.runs.cursor, action, len, page) {
        return;
    }
    let n = state.run.roots.len();
    match action {
        Action::Back => state.screen = Screen::Run,
        Action::Quit => state.quit = true,
        Action::Open => open_instance(state, fx),
        Action::FilterSolvedBy => {
            state.runs.filter = match state.runs.filter {
                RunsFilter::SolvedBy(k) if k < n => RunsFilter::SolvedBy(k + 1),
                RunsFilter::SolvedBy(_) => RunsFilter::All,
                _ => RunsFilter::SolvedBy(0),
            };
            filtered(state);
        }
        Action::FilterOnly => {
            state.runs.filter = match state.runs.filter {
                RunsFilter::OnlyBy(x) if x + 1 < n => RunsFilter::OnlyBy(x + 1),
                RunsFilter::OnlyBy(_) => RunsFilter::All,
                _ => RunsFilter::OnlyBy(0),
            };
            filtered(state);
        }
        Action::ClearFilter => {
            state.runs.filter = RunsFilter::All;
            filtered(state);
        }
        Action::AddRun => prompt::open(state, PromptKind::AddRun),
        _ => {}
    }
}

fn filtered(state: &mut State) {
    state.runs.cursor.selected = 0;
    state.runs.cursor.offset = 0;
    sync(state);
}

fn instance_action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let page = usize::from(layout::runs(state.area()).body.height).max(1);
    let Some(view) = state.runs.instance.as_mut() else {
        return;
    };
    let longest = view
        .loaded
        .iter()
        .flatten()
        .flatten()
        .filter_map(|t| t.as_ref().ok())
        .map(|t| t.steps.len())
        .max()
        .unwrap_or(0);
    let last = longest.saturating_sub(1);
    match action {
        Action::Back => state.runs.instance = None,
        Action::Quit => state.quit = true,
        Action::Down => view.scroll = (view.scroll + 1).min(last),
        Action::Up => view.scroll = view.scroll.saturating_sub(1),
        Action::PageDown | Action::HalfPageDown => view.scroll = (view.scroll + page).min(last),
        Action::PageUp | Action::HalfPageUp => view.scroll = view.scroll.saturating_sub(page),
        Action::Top => view.scroll = 0,
        Action::Bottom => view.scroll = last,
        Action::Open => {
            // Open the first run's trajectory in the trajectory screen.
            let row = state
                .runs
                .selected()
                .and_then(|r| r.cells.iter().flatten().next().copied());
            if let Some(row) = row {
                opening::open(state, row, None, fx);
            }
        }
        _ => {}
    }
}

/// Reads the selected instance's trajectory in every run.
fn open_instance(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(row) = state.runs.selected() else {
        return;
    };
    let sources: Vec<Option<TrajectoryRef>> = row
        .cells
        .iter()
        .map(|c| {
            c.and_then(|i| state.run.rows.get(i))
                .map(|r| TrajectoryRef {
                    path: r.path.clone(),
                    index: r.source_index,
                })
        })
        .collect();
    let instance_id = row.instance_id.clone();
    let verdicts = row.verdicts(&state.run.rows);
    let id = state.next_id();
    state.runs.instance = Some(InstanceView {
        id,
        instance_id,
        sources: sources.clone(),
        verdicts,
        loaded: None,
        scroll: 0,
    });
    fx.push(Effect::LoadInstance { id, sources });
}

/// The trajectories of the instance view arrived.
pub fn loaded(state: &mut State, id: u64, trajectories: InstanceTrajectories) {
    if let Some(view) = state.runs.instance.as_mut().filter(|v| v.id == id) {
        view.loaded = Some(trajectories);
    }
}

/// Adds the run at `input` (a folder or file) and reads it; the runs already read stay.
pub fn add_run(state: &mut State, input: &str, fx: &mut Vec<Effect>) {
    let path = PathBuf::from(input.trim());
    if input.trim().is_empty() {
        return;
    }
    if !path.exists() {
        state.notice = Some(Notice::error(format!(
            "{}: no such file or folder",
            path.display()
        )));
        return;
    }
    if state.run.roots.contains(&path) {
        state.notice = Some(Notice::info(format!("{} is open already", path.display())));
        return;
    }
    if !state.run.progress.finished {
        state.notice = Some(Notice::info(
            "the runs are still loading: add another once they have",
        ));
        return;
    }
    state.run.roots.push(path.clone());
    state.run.progress = Progress::default();
    fx.push(Effect::LoadRun {
        roots: vec![path.clone()],
        rules: state.metrics.rules().clone(),
    });
    fx.push(Effect::Watch {
        roots: state.run.roots.clone(),
        rules: state.metrics.rules().clone(),
    });
    fx.push(Effect::LoadLabels {
        roots: state.run.roots.clone(),
    });
    state.notice = Some(Notice::info(format!(
        "run {} added: {}",
        letter(state.run.roots.len() - 1),
        path.display()
    )));
    state.screen = Screen::Runs;
    sync(state);
}

/// Keeps the instance rows in step with the run table while the runs screen shows.
pub fn sync(state: &mut State) {
    if state.screen != Screen::Runs {
        return;
    }
    state.runs.sync(&state.run);
    let page = usize::from(layout::runs(state.area()).body.height);
    state.runs.cursor.settle(state.runs.visible.len(), page);
}
