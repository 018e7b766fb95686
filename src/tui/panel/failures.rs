//! The files of the run that could not be read, each with its error: opened from anywhere
//! (`!`), moved through by file, closed.

mod view;

use super::{Opener, Panel, Scrolled};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::list::ListCursor;
use crate::tui::state::{Notice, Overlay, State};
use crate::tui::update::list;

/// Where the list is; the failures themselves are the run's (`state.run.failures`).
#[derive(Debug, Clone, Default)]
pub struct Failures {
    pub cursor: ListCursor,
}

impl Panel for Failures {
    const NAME: &'static str = "failures";
    const TITLE: &'static str = "Files that could not be read";
    const HINTS: &'static [(Action, &'static str)] = &[(Action::Back, "close")];
    const KEYS: &'static str = include_str!("failures/keys.toml");
    const OPENER: Option<Opener> = Some(Opener {
        name: "failures",
        help: "list the files that could not be read",
    });

    fn open(state: &mut State, _fx: &mut Vec<Effect>) {
        if state.run.failures.is_empty() {
            state.notice = Some(Notice::info("every file was read"));
        } else {
            state.overlay = Some(Failures::default().into());
        }
    }

    fn action(state: &mut State, action: Action, _fx: &mut Vec<Effect>) {
        if action == Action::Back {
            state.overlay = None;
            return;
        }
        let len = state.run.failures.len();
        let page = list::page_height(state);
        if let Some(Overlay::Failures(failures)) = &mut state.overlay {
            list::navigate(&mut failures.cursor, action, len, page);
        }
    }

    fn render(&self, state: &State, frame: &mut ratatui::Frame, area: ratatui::layout::Rect) {
        view::render(state, &self.cursor, frame, area);
    }

    fn scrolled(&mut self, failures: usize, _width: usize) -> Scrolled<'_> {
        Scrolled::Rows {
            cursor: &mut self.cursor,
            len: failures,
        }
    }
}
