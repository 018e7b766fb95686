//! `update(&mut State, Msg) -> Vec<Effect>`: the only place state changes. Synchronous and
//! pure: no I/O, no clock, no threads; anything slow comes back later as a `Msg`.
//!
//! Keys go to the top layer (prompt, else overlay, else screen), then to `Global`; each layer
//! has its file here. After every message, cursors and scroll are settled against the layout
//! and the document the right pane needs is requested if it is not built yet.

mod clipboard;
mod document;
mod finder;
mod global;
mod grep;
mod help;
mod list;
mod mouse;
mod page;
mod prompt;
mod run;
mod search;
mod settle;
mod trajectory;

use super::action::Action;
use super::effect::Effect;
use super::keymap::Key;
use super::layer::Layer;
use super::msg::Msg;
use super::state::{Overlay, Size, State};

/// The effects to run when the app starts.
pub fn start(state: &mut State) -> Vec<Effect> {
    let mut fx = vec![Effect::LoadRun {
        roots: state.run.roots.clone(),
    }];
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
        Msg::RunFile { bytes, outcome } => run::file(state, bytes, outcome),
        Msg::RunLoaded => run::loaded(state, &mut fx),
        Msg::TrajectoryLoaded { id, result } => trajectory::loaded(state, id, result, &mut fx),
        Msg::DocumentReady { key, document } => state.documents.insert(key, document),
        Msg::SearchDone {
            trajectory,
            query,
            hits,
        } => search::done(state, trajectory, &query, hits),
        Msg::GrepFound { id, found } => grep::found(state, id, found),
        Msg::GrepProgress { id, files_done } => grep::progress(state, id, files_done, false),
        Msg::GrepDone { id } => grep::progress(state, id, 0, true),
        Msg::Notice(notice) => state.notice = Some(notice),
    }
    settle::settle(state);
    document::request(state, &mut fx);
    fx
}

fn on_key(state: &mut State, key: Key, fx: &mut Vec<Effect>) {
    state.notice = None;
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
    match layer {
        Layer::Global => global::action(state, action, fx),
        Layer::Run => run::action(state, action, fx),
        Layer::Trajectory => trajectory::action(state, action, fx),
        Layer::Prompt => prompt::action(state, action, fx),
        Layer::Finder => finder::action(state, action, fx),
        Layer::Grep => grep::action(state, action, fx),
        Layer::Failures | Layer::Problems => list_overlay_action(state, action),
        Layer::Help => help::action(state, action),
    }
}

fn type_char(state: &mut State, layer: Layer, c: char, fx: &mut Vec<Effect>) {
    match layer {
        Layer::Prompt => prompt::type_char(state, c, fx),
        Layer::Finder => finder::type_char(state, c),
        _ => {}
    }
}

/// The failures list and the problems window: move, or close.
fn list_overlay_action(state: &mut State, action: Action) {
    if action == Action::Back {
        state.overlay = None;
        return;
    }
    let len = state.run.failures.len();
    let page = list::page_height(state);
    if let Some(Overlay::Failures(cursor)) = &mut state.overlay {
        list::navigate(cursor, action, len, page);
    }
}
