//! Moving through any list with the list actions (down, up, pages, top, bottom).

use crate::tui::action::Action;
use crate::tui::layout;
use crate::tui::state::list::ListCursor;
use crate::tui::state::{Screen, State};

/// Applies a movement action; `false` when `action` is not a movement.
pub fn navigate(cursor: &mut ListCursor, action: Action, len: usize, page: usize) -> bool {
    let page = page.max(1) as isize;
    match action {
        Action::Down => cursor.move_by(1, len),
        Action::Up => cursor.move_by(-1, len),
        Action::PageDown => cursor.move_by(page, len),
        Action::PageUp => cursor.move_by(-page, len),
        Action::HalfPageDown => cursor.move_by((page / 2).max(1), len),
        Action::HalfPageUp => cursor.move_by(-(page / 2).max(1), len),
        Action::Top => cursor.select(0, len),
        Action::Bottom => cursor.select(len.saturating_sub(1), len),
        _ => return false,
    }
    true
}

/// Rows visible in the list that has the keys now (an overlay's, or the screen's).
pub fn page_height(state: &State) -> usize {
    let area = state.area();
    if state.overlay.is_some() {
        let (_, list) = layout::overlay_body(layout::overlay(area), true);
        return usize::from(list.height);
    }
    usize::from(match state.screen {
        Screen::Run => layout::run(area).body.height,
        Screen::Trajectory => layout::trajectory(area).list.height,
        Screen::Compare => layout::compare(area).list.height,
        Screen::Dashboard => {
            layout::dashboard(area, state.dashboard.rows.len())
                .rules
                .height
        }
        Screen::Runs => layout::runs(area).body.height,
    })
}

/// Rows visible in the right pane of the trajectory view.
pub fn detail_height(state: &State) -> usize {
    let marks = crate::tui::state::metrics::marks_rows(state);
    usize::from(
        layout::trajectory(state.area())
            .detail
            .height
            .saturating_sub(marks),
    )
}
