//! Keys that work everywhere: quit, help, the trajectory finder, run-wide search (the failures
//! list opens itself: `panel/failures.rs`).

use super::prompt;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::panel::finder;
use crate::tui::panel::help::HelpState;
use crate::tui::state::State;
use crate::tui::state::prompt::PromptKind;

pub fn action(state: &mut State, action: Action, _fx: &mut Vec<Effect>) {
    match action {
        Action::Quit => state.quit = true,
        Action::Help => {
            let first = state.layers()[0];
            state.prompt = None;
            state.overlay = Some(HelpState::new(&state.keymap, first).into());
        }
        Action::FindTrajectory => finder::update::open_trajectories(state),
        Action::SearchRun => prompt::open(state, PromptKind::Grep),
        _ => {}
    }
}
