//! The text input at the bottom: typing, editing, and what Enter does for each kind.

use super::{labels, search};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::panel::grep::update as grep;
use crate::tui::state::State;
use crate::tui::state::prompt::{Prompt, PromptKind};

pub fn open(state: &mut State, kind: PromptKind) {
    let initial = match kind {
        PromptKind::Filter => state.run.filter.clone(),
        PromptKind::Search
        | PromptKind::Grep
        | PromptKind::Label
        | PromptKind::Workspace
        | PromptKind::AddRun => String::new(),
    };
    state.prompt = Some(Prompt::new(kind, &initial));
}

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let Some(prompt) = state.prompt.as_mut() else {
        return;
    };
    match action {
        Action::Confirm => {
            let Some(prompt) = state.prompt.take() else {
                return;
            };
            match prompt.kind {
                PromptKind::Search => search::start(state, &prompt.input, fx),
                PromptKind::Filter => {}
                PromptKind::Grep => grep::start(state, &prompt.input, fx),
                PromptKind::Label => labels::add(state, &prompt.input, fx),
                PromptKind::Workspace => {
                    crate::tui::panel::replay::update::set_workspace(state, &prompt.input)
                }
                PromptKind::AddRun => super::runs::add_run(state, &prompt.input, fx),
            }
        }
        Action::Cancel => cancel(state),
        Action::DeleteBackward if prompt.input.is_empty() => cancel(state),
        Action::DeleteBackward => {
            prompt.delete_backward();
            changed(state);
        }
        Action::ClearInput => {
            prompt.clear();
            changed(state);
        }
        Action::CursorLeft => prompt.left(),
        Action::CursorRight => prompt.right(),
        _ => {}
    }
}

fn cancel(state: &mut State) {
    if let Some(prompt) = state.prompt.take()
        && prompt.kind == PromptKind::Filter
    {
        state.run.filter = prompt.previous;
        state.run.refresh();
    }
}

pub fn type_char(state: &mut State, c: char, _fx: &mut Vec<Effect>) {
    if let Some(prompt) = state.prompt.as_mut() {
        prompt.insert(c);
        changed(state);
    }
}

/// Pasted text goes to whatever takes text: the prompt, or an open panel that does (the
/// finder).
pub fn paste(state: &mut State, text: &str, fx: &mut Vec<Effect>) {
    if let Some(prompt) = state.prompt.as_mut() {
        prompt.insert_str(text);
        changed(state);
    } else if let Some(overlay) = &state.overlay {
        overlay.layer().panel_paste(state, text, fx);
    }
}

/// The filter applies as it is typed.
fn changed(state: &mut State) {
    if let Some(prompt) = state
        .prompt
        .as_ref()
        .filter(|p| p.kind == PromptKind::Filter)
    {
        state.run.filter = prompt.input.clone();
        state.run.refresh();
    }
}
