//! The frame of an overlay window: cleared, bordered, titled.

use crate::tui::layout;
use crate::tui::state::State;
use crate::tui::theme::Paint;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear};

/// Draws the window and returns (header line, list area) inside it.
pub fn window(state: &State, frame: &mut Frame, area: Rect, title: &str) -> (Rect, Rect) {
    let theme = &state.theme;
    let window = layout::overlay(area);
    frame.render_widget(Clear, window);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.style(Paint::Border))
        .style(theme.style(Paint::Text))
        .title(Line::from(Span::styled(
            format!(" {title} "),
            theme.style(Paint::Title),
        )));
    frame.render_widget(block, window);
    layout::overlay_body(window, true)
}
