//! `render(&State, &mut Frame)`: draws the state, never changes it. One file per screen
//! region; each draws only the rows that are visible.

mod compare;
mod dashboard;
mod detail;
mod failures;
mod finder;
mod grep;
mod header;
mod help;
mod live;
mod marks;
mod phases;
mod popup;
mod problems;
mod replay;
mod rule_picker;
mod run;
mod runs;
mod scrollbar;
mod status;
mod steps;
mod tabs;
mod trajectory;

use super::state::{Overlay, Screen, State};
use super::theme::Role;
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
    frame.render_widget(Block::new().style(state.theme.style(Role::Text)), area);
    match state.screen {
        Screen::Run => run::render(state, frame, area),
        Screen::Trajectory => trajectory::render(state, frame, area),
        Screen::Compare => compare::render(state, frame, area),
        Screen::Dashboard => dashboard::render(state, frame, area),
        Screen::Runs => runs::render(state, frame, area),
    }
    match &state.overlay {
        Some(Overlay::Help(help)) => help::render(state, help, frame, area),
        Some(Overlay::Finder(finder)) => finder::render(state, finder, frame, area),
        Some(Overlay::Grep(grep)) => grep::render(state, grep, frame, area),
        Some(Overlay::Failures(cursor)) => failures::render(state, cursor, frame, area),
        Some(Overlay::Problems(problems)) => problems::render(state, problems, frame, area),
        Some(Overlay::Replay(panel)) => replay::render(state, panel, frame, area),
        Some(Overlay::RulePicker(picker)) => rule_picker::render(state, picker, frame, area),
        None => {}
    }
    let status = Rect::new(area.x, area.bottom() - 1, area.width, 1);
    status::render(state, frame, status);
}

/// Writes `lines` into the rows of `area`, one line per row, cut at its width. Cheaper than a
/// `Paragraph` for rows that are already laid out.
fn draw_rows<'a>(
    frame: &mut Frame,
    area: Rect,
    lines: impl IntoIterator<Item = impl std::borrow::Borrow<Line<'a>>>,
) {
    let buffer = frame.buffer_mut();
    for (y, line) in (area.y..area.bottom()).zip(lines) {
        buffer.set_line(area.x, y, line.borrow(), area.width);
    }
}
