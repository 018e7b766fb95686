//! Mouse: the wheel scrolls what is under the pointer, a click selects (a second click on
//! the selected row opens it), a click on a column title sorts, on a tab shows that page.

use super::{page, run, trajectory};
use crate::tui::effect::Effect;
use crate::tui::layout;
use crate::tui::state::{Overlay, Screen, State};
use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

/// Rows the wheel moves per notch in text panes.
const WHEEL_ROWS: usize = 3;

pub fn event(state: &mut State, event: MouseEvent, fx: &mut Vec<Effect>) {
    let at = Position::new(event.column, event.row);
    let delta: isize = match event.kind {
        MouseEventKind::ScrollDown => 1,
        MouseEventKind::ScrollUp => -1,
        MouseEventKind::Down(MouseButton::Left) => return click(state, at, fx),
        _ => return,
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
    }
}

fn wheel_overlay(state: &mut State, delta: isize) {
    let run_failures = state.run.failures.len();
    match state.overlay.as_mut() {
        Some(Overlay::Finder(f)) => f.cursor.move_by(delta, f.matches.len()),
        Some(Overlay::Grep(g)) => g.cursor.move_by(delta, g.lines.len()),
        Some(Overlay::Failures(c)) => c.move_by(delta, run_failures),
        Some(Overlay::Help(h)) => {
            h.scroll = h.scroll.saturating_add_signed(delta * WHEEL_ROWS as isize);
        }
        Some(Overlay::Problems(_)) | None => {}
    }
}

fn click(state: &mut State, at: Position, fx: &mut Vec<Effect>) {
    let area = state.area();
    if state.overlay.is_some() {
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
                let column = layout::run_columns(l.header)
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
                        trajectory::open(state, row, None, fx);
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
    }
}

fn click_overlay_row(state: &mut State, y: usize) {
    let run_failures = state.run.failures.len();
    match state.overlay.as_mut() {
        Some(Overlay::Finder(f)) => {
            if let Some(i) = f.cursor.row_at(y, f.matches.len()) {
                f.cursor.selected = i;
            }
        }
        Some(Overlay::Grep(g)) => {
            if let Some(i) = g.cursor.row_at(y, g.lines.len()) {
                g.cursor.selected = i;
            }
        }
        Some(Overlay::Failures(c)) => {
            if let Some(i) = c.row_at(y, run_failures) {
                c.selected = i;
            }
        }
        _ => {}
    }
}

/// The row of `area` that `at` is on, if it is inside.
fn row_in(area: Rect, at: Position) -> Option<usize> {
    area.contains(at).then(|| usize::from(at.y - area.y))
}
