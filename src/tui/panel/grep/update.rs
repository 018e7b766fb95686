//! The run-wide search: starting it, taking results as files are searched, opening one.

use crate::metrics::SearchError;
use crate::tui::action::Action;
use crate::tui::effect::{Effect, JobKey};
use crate::tui::search::Query;
use crate::tui::panel::grep::{GrepMatch, GrepState};
use crate::tui::state::prompt::PromptKind;
use crate::tui::state::{Notice, Overlay, State};
use crate::tui::update::{list, opening, prompt};

pub fn start(state: &mut State, text: &str, fx: &mut Vec<Effect>) {
    let query = match Query::new(text) {
        Ok(query) => query,
        Err(SearchError::Empty) => return,
        Err(err) => {
            state.notice = Some(Notice::error(format!("search: {err}")));
            return;
        }
    };
    let mut files: Vec<_> = state.run.rows.iter().map(|r| r.path.clone()).collect();
    files.sort();
    files.dedup();
    let id = state.next_id();
    state.overlay = Some(
        GrepState::new(
            id,
            query.clone(),
            files.len(),
        )
        .into(),
    );
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
                fx.push(Effect::Cancel(JobKey::Grep));
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
                opening::open(state, row, step, fx);
                if let Some(t) = state.trajectory.as_ref()
                    && let Some(loaded) = t.trajectory.clone()
                {
                    let id = t.id;
                    crate::tui::update::search::run(state, query, id, loaded, fx);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::tui::update::testing::{press, run, send};
    use crate::tui::effect::{Effect, JobKey};
    use crate::tui::msg::Msg;
    use crate::tui::search::{Field, StepMatch};
    use crate::tui::panel::grep::GrepMatch;
    use crate::tui::state::trajectory::TrajectoryRef;
    use crate::tui::state::{Overlay, Screen};

    fn found(id: &str, step: usize) -> GrepMatch {
        GrepMatch {
            source: TrajectoryRef {
                path: format!("run/{id}.traj").into(),
                index: None,
            },
            instance_id: id.into(),
            steps: vec![StepMatch {
                step,
                field: Field::Observation,
                snippet: "boom".into(),
            }],
        }
    }

    #[test]
    fn searching_the_run_lists_matches_and_opens_one_at_its_step() {
        let mut state = run();
        let effects = press(&mut state, "<C-f>boom<CR>");
        let (id, files) = match &effects[..] {
            [Effect::Grep { id, files, query }] if query.text == "boom" => (*id, files.clone()),
            other => panic!("{other:?}"),
        };
        assert_eq!(files.len(), 3);
        send(
            &mut state,
            Msg::GrepFound {
                id,
                found: found("c", 4),
            },
        );
        send(
            &mut state,
            Msg::GrepFound {
                id: id + 100,
                found: found("a", 1),
            },
        );
        send(&mut state, Msg::GrepDone { id });
        let Some(Overlay::Grep(grep)) = &state.overlay else {
            panic!("no results")
        };
        assert_eq!(grep.found.len(), 1, "results of another search are dropped");
        assert!(grep.done);
        let effects = press(&mut state, "j<CR>");
        assert_eq!(state.screen, Screen::Trajectory);
        assert_eq!(state.trajectory.as_ref().unwrap().pending_step, Some(4));
        assert_eq!(
            state.search.query.as_ref().map(|q| q.text.as_str()),
            Some("boom")
        );
        assert!(
            effects
                .iter()
                .any(|e| matches!(e, Effect::LoadTrajectory { .. }))
        );
    }

    #[test]
    fn closing_a_running_search_cancels_it() {
        let mut state = run();
        press(&mut state, "<C-f>x<CR>");
        let effects = press(&mut state, "<Esc>");
        assert!(matches!(&effects[..], [Effect::Cancel(JobKey::Grep)]));
        assert!(state.overlay.is_none());
    }
}
