//! The help screen: scrolling and closing.

use crate::tui::action::Action;
use crate::tui::layout;
use crate::tui::state::{Overlay, State};
use crate::tui::update::list::page_height;

pub fn action(state: &mut State, action: Action) {
    let page = page_height(state);
    let (_, list) = layout::overlay_body(layout::overlay(state.area()), true);
    let Some(Overlay::Help(help)) = state.overlay.as_mut() else {
        return;
    };
    // The help wraps: scroll over the lines as shown.
    let last = help
        .rows(usize::from(list.width))
        .len()
        .saturating_sub(page);
    help.scroll = match action {
        Action::Back => {
            state.overlay = None;
            return;
        }
        Action::Down => help.scroll + 1,
        Action::Up => help.scroll.saturating_sub(1),
        Action::PageDown => help.scroll + page.saturating_sub(1).max(1),
        Action::PageUp => help.scroll.saturating_sub(page.saturating_sub(1).max(1)),
        Action::Top => 0,
        Action::Bottom => last,
        _ => help.scroll,
    }
    .min(last);
}
