//! The problems found in the user's configuration at start-up, all at once, until dismissed.

mod view;

use super::Panel;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::State;

/// One line per problem.
#[derive(Debug, Clone)]
pub struct Problems(pub Vec<String>);

impl Panel for Problems {
    const NAME: &'static str = "problems";
    const TITLE: &'static str = "Configuration problems";
    const HINTS: &'static [(Action, &'static str)] = &[(Action::Back, "close")];
    const KEYS: &'static str = include_str!("problems/keys.toml");

    fn action(state: &mut State, action: Action, _fx: &mut Vec<Effect>) {
        if action == Action::Back {
            state.overlay = None;
        }
    }

    fn render(&self, state: &State, frame: &mut ratatui::Frame, area: ratatui::layout::Rect) {
        view::render(state, &self.0, frame, area);
    }
}
