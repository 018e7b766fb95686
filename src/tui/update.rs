//! `update(&mut State, Msg) -> Vec<Effect>`: the only place state changes. Synchronous and
//! pure: no I/O, no clock, no threads; anything slow comes back later as a `Msg`.
//!
//! Keys go to the top layer (prompt, else overlay, else screen), then to `Global`; each screen
//! layer has its file here, each overlay panel its `panel/<name>/update.rs` (reached through
//! the panel registry), and a panel's own opening action opens it from any layer. After every
//! message, cursors and scroll are settled against the layout and the document the right pane
//! needs is requested if it is not built yet. The panels' update files use `list`, `opening`,
//! `prompt`, `search` and `compare` from here.

mod clipboard;
pub(crate) mod compare;
mod dashboard;
mod document;
mod export;
#[cfg(test)]
mod flows;
mod global;
mod labels;
pub(crate) mod list;
pub mod live;
mod metrics;
mod mouse;
pub(crate) mod opening;
mod page;
pub(crate) mod prompt;
mod run;
mod runs;
pub(crate) mod search;
mod settle;
mod subagent;
#[cfg(test)]
pub(crate) mod testing;
mod trajectory;

use super::action::Action;
use super::effect::Effect;
use super::keymap::Key;
use super::layer::Layer;
use super::msg::Msg;
use super::panel::{grep, replay};
use super::state::trajectory::TrajectoryRef;
use super::state::{Screen, Size, State};

/// The effects to run when the app starts.
pub fn start(state: &mut State) -> Vec<Effect> {
    // The watch starts with the load, so that no write after the load's read is missed.
    let mut fx = vec![
        Effect::LoadRun {
            roots: state.run.roots.clone(),
            rules: state.metrics.rules().clone(),
        },
        Effect::Watch {
            roots: state.run.roots.clone(),
            rules: state.metrics.rules().clone(),
        },
        Effect::LoadLabels {
            roots: state.run.roots.clone(),
        },
    ];
    if state.open_at_start
        && let Some(path) = state.run.roots.first().cloned()
    {
        let title = crate::model::instance_id_from_path(&path);
        let source = TrajectoryRef { path, index: None };
        opening::open_source(state, source, None, title, None, &mut fx);
    }
    settle::settle(state);
    document::request(state, &mut fx);
    fx
}

pub fn update(state: &mut State, msg: Msg) -> Vec<Effect> {
    let mut fx = Vec::new();
    match msg {
        Msg::Key(key) => on_key(state, key, &mut fx),
        Msg::Mouse(event) => mouse::event(state, event, &mut fx),
        Msg::Resize { width, height } => state.size = Size { width, height },
        Msg::Paste(text) => prompt::paste(state, &text, &mut fx),
        Msg::RunDiscovered {
            files,
            bytes,
            failures,
        } => run::discovered(state, files, bytes, failures),
        Msg::RunResultsAbove(sources) => state.run.add_batch(Vec::new(), sources),
        Msg::RunFile { bytes, outcome } => run::file(state, bytes, outcome),
        Msg::RunFiles { files, tallies } => {
            run::files(state, files);
            metrics::tallied(state, tallies);
        }
        Msg::RunRows { rows, tallies } => {
            run::rows(state, rows);
            metrics::tallied(state, tallies);
        }
        Msg::RunLoaded => run::loaded(state, &mut fx),
        Msg::RunTallied(tallies) => metrics::tallied(state, tallies),
        Msg::LabelsLoaded(sets) => metrics::labels_loaded(state, sets),
        Msg::LabelsSaved { root, edit, result } => {
            metrics::labels_saved(state, root, edit, result);
        }
        Msg::TrajectoryLoaded { id, result } => opening::loaded(state, id, result, &mut fx),
        Msg::TrajectorySeveral { id, path, count } => opening::several(state, id, &path, count),
        Msg::TrajectoryStarted { id, loaded } => opening::started(state, id, *loaded, &mut fx),
        Msg::TrajectoryIndexing { id, read, total } => opening::indexing(state, id, read, total),
        Msg::CompareLoaded { id, result } => compare::loaded(state, id, result),
        Msg::InstanceLoaded { id, trajectories } => runs::loaded(state, id, trajectories),
        Msg::DocumentReady { key, document } => state.documents.insert(key, document),
        Msg::SearchDone {
            trajectory,
            query,
            hits,
        } => search::done(state, trajectory, &query, hits),
        Msg::GrepFound { id, found } => grep::update::found(state, id, found),
        Msg::GrepProgress { id, files_done } => {
            grep::update::progress(state, id, files_done, false)
        }
        Msg::GrepDone { id } => grep::update::progress(state, id, 0, true),
        Msg::Notice(notice) => state.notice = Some(notice),
        Msg::Live(msg) => live::message(state, msg, &mut fx),
        Msg::Replay(msg) => replay::update::message(state, msg),
    }
    metrics::join_results(state);
    dashboard::sync(state);
    runs::sync(state);
    if !state.held_keys.is_empty() && !awaiting_trajectory(state) {
        for key in std::mem::take(&mut state.held_keys) {
            settle::settle(state);
            on_key(state, key, &mut fx);
        }
    }
    settle::settle(state);
    document::request(state, &mut fx);
    fx
}

/// Keys held at most, while a trajectory is read.
const MAX_HELD_KEYS: usize = 64;

/// Whether keys are meant for a trajectory not read yet: one being opened, or the only file
/// given, which opens once the run is read.
fn awaiting_trajectory(state: &State) -> bool {
    if state.prompt.is_some() || state.overlay.is_some() {
        return false;
    }
    match (&state.screen, &state.trajectory) {
        (Screen::Trajectory, Some(t)) => t.trajectory.is_none() && t.error.is_none(),
        (Screen::Run, None) => state.open_single && !state.run.progress.finished,
        _ => false,
    }
}

fn on_key(state: &mut State, key: Key, fx: &mut Vec<Effect>) {
    state.notice = None;
    if awaiting_trajectory(state) && state.held_keys.len() < MAX_HELD_KEYS {
        let layer = state.layers()[0];
        let action = state
            .keymap
            .action(layer, &key)
            .or_else(|| state.keymap.action(Layer::Global, &key));
        // Leaving, quitting, help and moving to another trajectory act at once; the rest
        // waits for the steps.
        let at_once = matches!(
            action,
            Some(
                Action::Back
                    | Action::Quit
                    | Action::Help
                    | Action::Cancel
                    | Action::NextTrajectory
                    | Action::PreviousTrajectory
            )
        );
        if !at_once {
            state.held_keys.push(key);
            return;
        }
    }
    for layer in state.layers() {
        if let Some(action) = state.keymap.action(layer, &key) {
            dispatch(state, layer, action, fx);
            return;
        }
        if layer.takes_text()
            && let Some(c) = key.typed_char()
        {
            type_char(state, layer, c, fx);
            return;
        }
    }
}

fn dispatch(state: &mut State, layer: Layer, action: Action, fx: &mut Vec<Effect>) {
    // A panel's own opening action opens it from whichever layer binds it.
    if let Action::OpenPanel(panel) = action {
        panel.open_panel(state, fx);
        return;
    }
    match layer {
        Layer::Global => global::action(state, action, fx),
        Layer::Run => run::action(state, action, fx),
        Layer::Trajectory => trajectory::action(state, action, fx),
        Layer::Compare => compare::action(state, action),
        Layer::Dashboard => dashboard::action(state, action, fx),
        Layer::Runs => runs::action(state, action, fx),
        Layer::Prompt => prompt::action(state, action, fx),
        panel => {
            panel.panel_action(state, action, fx);
        }
    }
}

fn type_char(state: &mut State, layer: Layer, c: char, fx: &mut Vec<Effect>) {
    match layer {
        Layer::Prompt => prompt::type_char(state, c, fx),
        panel => panel.panel_type_char(state, c, fx),
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{empty, press, run};
    use crate::tui::config::Config;
    use crate::tui::state::{Overlay, Size, State};

    #[test]
    fn help_opens_on_this_screens_keys_and_closes() {
        let mut state = run();
        press(&mut state, "?");
        let Some(Overlay::Help(help)) = &state.overlay else {
            panic!("no help")
        };
        assert_eq!(help.first, crate::tui::layer::Layer::Run);
        press(&mut state, "GG");
        let Some(Overlay::Help(help)) = &state.overlay else {
            panic!("no help")
        };
        let page = super::list::page_height(&state);
        let (_, list) =
            crate::tui::layout::overlay_body(crate::tui::layout::overlay(state.area()), true);
        assert_eq!(
            help.scroll,
            help.rows(usize::from(list.width)).len() - page,
            "scrolled to the end of the wrapped lines, not past it"
        );
        press(&mut state, "<Esc>");
        assert!(state.overlay.is_none());
    }

    #[test]
    fn typed_text_goes_to_the_prompt_not_to_global_keys() {
        let mut state = run();
        press(&mut state, "/?!q");
        assert_eq!(state.prompt.as_ref().map(|p| p.input.as_str()), Some("?!q"));
        assert!(state.overlay.is_none() && !state.quit);
        press(&mut state, "<C-u><BS>");
        assert!(
            state.prompt.is_none(),
            "backspace on an empty prompt closes it"
        );
        press(&mut state, "<C-c>");
        assert!(state.quit, "ctrl-c quits from anywhere");
    }

    #[test]
    fn config_problems_are_shown_at_start_and_dismissed() {
        let config = Config::parse(
            "[keymap.run]\nnope = \"x\"\n[options]\nfold_lines = 1",
            std::path::Path::new("c.toml"),
            None,
        );
        let mut state = State::new(
            vec!["run".into()],
            config,
            Size {
                width: 80,
                height: 24,
            },
        );
        let Some(Overlay::Problems(problems)) = &state.overlay else {
            panic!("no problems shown")
        };
        assert_eq!(problems.0.len(), 2);
        press(&mut state, "<CR>");
        assert!(state.overlay.is_none());
    }

    #[test]
    fn the_failures_list_opens_only_when_something_failed() {
        let mut state = empty();
        press(&mut state, "!");
        assert!(state.overlay.is_none());
        assert_eq!(
            state.notice.as_ref().map(|n| n.text.as_str()),
            Some("every file was read")
        );
    }

    #[test]
    fn a_small_terminal_keeps_the_selection_visible() {
        let mut state = run();
        super::update(
            &mut state,
            crate::tui::msg::Msg::Resize {
                width: 60,
                height: 6,
            },
        );
        press(&mut state, "jj");
        let body = crate::tui::layout::run(state.area()).body.height as usize;
        let c = state.run.cursor;
        assert!(
            c.selected >= c.offset && c.selected < c.offset + body,
            "{c:?} in {body} rows"
        );
    }
}
