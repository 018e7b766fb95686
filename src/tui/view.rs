//! `render(&State, &mut Frame)`: draws the state, never changes it. One file per screen
//! region; each draws only the rows that are visible. The open overlay panel draws itself
//! over the screen (`panel/<name>/view.rs`), then the status bar.

mod compare;
mod dashboard;
mod detail;
mod header;
mod live;
mod marks;
mod phases;
pub(crate) mod popup;
mod run;
mod runs;
mod scrollbar;
mod status;
mod steps;
mod tabs;
mod trajectory;

use super::state::{Screen, State};
use super::theme::Paint;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Block;

pub fn render(state: &State, frame: &mut Frame) {
    let area = frame.area();
    if area.width < 20 || area.height < 6 {
        frame.render_widget(
            ratatui::widgets::Paragraph::new("trajscope: the terminal is too small"),
            area,
        );
        return;
    }
    frame.render_widget(Block::new().style(state.theme.style(Paint::Text)), area);
    match state.screen {
        Screen::Run => run::render(state, frame, area),
        Screen::Trajectory => trajectory::render(state, frame, area),
        Screen::Compare => compare::render(state, frame, area),
        Screen::Dashboard => dashboard::render(state, frame, area),
        Screen::Runs => runs::render(state, frame, area),
    }
    if let Some(overlay) = &state.overlay {
        overlay.render(state, frame, area);
    }
    let status = Rect::new(area.x, area.bottom() - 1, area.width, 1);
    status::render(state, frame, status);
}

/// Writes `lines` into the rows of `area`, one line per row, cut at its width. Cheaper than a
/// `Paragraph` for rows that are already laid out.
pub(crate) fn draw_rows<'a>(
    frame: &mut Frame,
    area: Rect,
    lines: impl IntoIterator<Item = impl std::borrow::Borrow<Line<'a>>>,
) {
    let buffer = frame.buffer_mut();
    for (y, line) in (area.y..area.bottom()).zip(lines) {
        buffer.set_line(area.x, y, line.borrow(), area.width);
    }
}
