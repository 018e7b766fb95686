//! Mouse: the wheel scrolls what is under the pointer, a click selects (a second click on
//! the selected row opens it), a click on a column title sorts, on a tab shows that page.

use super::{opening, page, run};
use crate::tui::effect::Effect;
use crate::tui::layout;
use crate::tui::msg::{Mouse, MouseKind};
use crate::tui::state::{Screen, Scrolled, State};
use ratatui::layout::{Position, Rect};

/// Rows the wheel moves per notch in text panes.
const WHEEL_ROWS: usize = 3;

pub fn event(state: &mut State, event: Mouse, fx: &mut Vec<Effect>) {
    let at = Position::new(event.column, event.row);
    let delta: isize = match event.kind {
        MouseKind::WheelDown => 1,
        MouseKind::WheelUp => -1,
        MouseKind::Click => return click(state, at, fx),
    };
    if state.overlay.is_some() {
        return wheel_overlay(state, delta);
    }
    match state.screen {
        Screen::Run => {
            state.run.cursor.move_by(delta, state.run.visible.len());
            state.run.user_moved = true;
        }
        Screen::Trajectory => {
            let l = layout::trajectory(state.area());
            let Some(t) = state.trajectory.as_mut() else {
                return;
            };
            if l.detail.contains(at) || l.tabs.contains(at) || l.detail_bar.contains(at) {
                t.scroll = t.scroll.saturating_add_signed(delta * WHEEL_ROWS as isize);
            } else {
                let mut cursor = t.cursor;
                cursor.move_by(delta, t.steps.len());
                t.select(cursor.selected);
            }
        }
        Screen::Compare => {
            if let Some(view) = state.compare.view.as_mut() {
                view.scroll = view
                    .scroll
                    .saturating_add_signed(delta * WHEEL_ROWS as isize);
            }
        }
        Screen::Dashboard => super::dashboard::wheel(state, at, delta),
        Screen::Runs => {
            let len = state.runs.visible.len();
            state.runs.cursor.move_by(delta, len);
        }
    }
}

fn wheel_overlay(state: &mut State, delta: isize) {
    let failures = state.run.failures.len();
    let width = super::settle::overlay_text_width(state);
    let Some(overlay) = state.overlay.as_mut() else {
        return;
    };
    match overlay.scrolled(failures, width) {
        Scrolled::Rows { cursor, len } => cursor.move_by(delta, len),
        Scrolled::Text { scroll, .. } => {
            *scroll = scroll.saturating_add_signed(delta * WHEEL_ROWS as isize);
        }
        Scrolled::Fixed => {}
    }
}

fn click(state: &mut State, at: Position, fx: &mut Vec<Effect>) {
    let area = state.area();
    if let Some(overlay) = &state.overlay {
        if !overlay.takes_clicks() {
            return;
        }
        let window = layout::overlay(area);
        if !window.contains(at) {
            state.overlay = None;
            return;
        }
        let (_, list) = layout::overlay_body(window, true);
        if let Some(y) = row_in(list, at) {
            click_overlay_row(state, y);
        }
        return;
    }
    match state.screen {
        Screen::Run => {
            let l = layout::run(area);
            if l.header.contains(at) {
                let column = layout::run_columns(l.header, state.run.exit_width)
                    .into_iter()
                    .find(|(_, r)| at.x >= r.x && at.x < r.right() + 1);
                if let Some((column, _)) = column {
                    run::sort_by(state, column);
                }
            } else if let Some(y) = row_in(l.body, at) {
                let len = state.run.visible.len();
                let Some(position) = state.run.cursor.row_at(y, len) else {
                    return;
                };
                if position == state.run.cursor.selected {
                    if let Some(row) = state.run.selected_row() {
                        opening::open(state, row, None, fx);
                    }
                } else {
                    state.run.cursor.selected = position;
                    state.run.user_moved = true;
                }
            }
        }
        Screen::Trajectory => {
            let l = layout::trajectory(area);
            if let Some((target, _)) = layout::tabs(l.tabs)
                .into_iter()
                .find(|(_, r)| r.contains(at))
            {
                page::show(state, target);
                if let Some(t) = state.trajectory.as_mut() {
                    t.page = target;
                }
            } else if let Some(y) = row_in(l.list, at)
                && let Some(t) = state.trajectory.as_mut()
                && let Some(position) = t.cursor.row_at(y, t.steps.len())
            {
                t.select(position);
            }
        }
        Screen::Compare => {}
        Screen::Dashboard => super::dashboard::click(state, at, fx),
        Screen::Runs => {}
    }
}

fn click_overlay_row(state: &mut State, y: usize) {
    let failures = state.run.failures.len();
    let width = super::settle::overlay_text_width(state);
    if let Some(overlay) = state.overlay.as_mut()
        && let Scrolled::Rows { cursor, len } = overlay.scrolled(failures, width)
        && let Some(i) = cursor.row_at(y, len)
    {
        cursor.selected = i;
    }
}

/// The row of `area` that `at` is on, if it is inside.
fn row_in(area: Rect, at: Position) -> Option<usize> {
    area.contains(at).then(|| usize::from(at.y - area.y))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{opened, run, send};
    use crate::tui::layout;
    use crate::tui::msg::Msg;
    use crate::tui::state::Screen;
    use crate::tui::state::run::Column;
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

    fn mouse(kind: MouseEventKind, column: u16, row: u16) -> Msg {
        let event = MouseEvent {
            kind,
            column,
            row,
            modifiers: KeyModifiers::NONE,
        };
        Msg::Mouse(crate::tui::msg::Mouse::from_event(&event).unwrap())
    }

    fn click(column: u16, row: u16) -> Msg {
        mouse(MouseEventKind::Down(MouseButton::Left), column, row)
    }

    #[test]
    fn clicking_a_column_title_sorts_and_a_row_twice_opens_it() {
        let mut state = run();
        let l = layout::run(state.area());
        let steps = layout::run_columns(l.header, state.run.exit_width)
            .into_iter()
            .find(|(c, _)| *c == Column::Steps)
            .map(|(_, r)| r)
            .unwrap();
        send(&mut state, click(steps.x + 1, l.header.y));
        assert_eq!(state.run.sort.column, Column::Steps);
        send(&mut state, click(2, l.body.y + 2));
        assert_eq!(state.run.cursor.selected, 2);
        assert_eq!(state.screen, Screen::Run);
        send(&mut state, click(2, l.body.y + 2));
        assert_eq!(state.screen, Screen::Trajectory);
    }

    #[test]
    fn the_wheel_moves_steps_on_the_left_and_scrolls_on_the_right() {
        let (mut state, _) = opened(10, 300);
        let l = layout::trajectory(state.area());
        send(
            &mut state,
            mouse(MouseEventKind::ScrollDown, l.list.x + 1, l.list.y + 1),
        );
        let t = state.trajectory.as_ref().unwrap();
        assert_eq!((t.step_index(), t.scroll), (Some(2), 0));
        send(
            &mut state,
            mouse(MouseEventKind::ScrollDown, l.detail.x + 1, l.detail.y + 1),
        );
        assert_eq!(state.trajectory.as_ref().unwrap().scroll, 3);
        send(&mut state, click(l.list.x + 1, l.list.y + 6));
        assert_eq!(state.trajectory.as_ref().unwrap().step_index(), Some(7));
        let (_, context_tab) = layout::tabs(l.tabs)[1];
        send(&mut state, click(context_tab.x + 1, context_tab.y));
        assert_eq!(
            state.trajectory.as_ref().unwrap().page,
            crate::tui::document::Page::Context
        );
    }
}
