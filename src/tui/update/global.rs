//! Keys that work everywhere: quit, help, the trajectory finder, run-wide search, failures.

use super::{finder, prompt};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::help::HelpState;
use crate::tui::state::list::ListCursor;
use crate::tui::state::prompt::PromptKind;
use crate::tui::state::{Notice, Overlay, State};

pub fn action(state: &mut State, action: Action, _fx: &mut Vec<Effect>) {
    match action {
        Action::Quit => state.quit = true,
        Action::Help => {
            let first = state.layers()[0];
            state.prompt = None;
            state.overlay = Some(Overlay::Help(HelpState::new(&state.keymap, first)));
        }
        Action::FindTrajectory => finder::open_trajectories(state),
        Action::SearchRun => prompt::open(state, PromptKind::Grep),
        Action::Failures => {
            if state.run.failures.is_empty() {
                state.notice = Some(Notice::info("every file was read"));
            } else {
                state.overlay = Some(Overlay::Failures(ListCursor::default()));
            }
        }
        _ => {}
    }
}
