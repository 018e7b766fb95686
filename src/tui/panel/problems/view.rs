//! The start-up window listing every problem found in the user's configuration.

use crate::tui::action::Action;
use crate::tui::layer::Layer;
use crate::tui::state::State;
use crate::tui::theme::Paint;
use crate::tui::view::popup;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

pub fn render(state: &State, problems: &[String], frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let title = format!("Configuration problems · {}", problems.len());
    let (header, list) = popup::window(state, frame, area, &title);
    let close = state.keymap.key_name(Layer::Problems, Action::Back);
    frame.render_widget(
        Paragraph::new(format!(
            "These entries were ignored and their defaults used. {close} to continue."
        ))
        .style(theme.style(Paint::Dim)),
        header,
    );
    let lines: Vec<Line> = problems
        .iter()
        .map(|p| Line::styled(format!("• {p}"), theme.style(Paint::RunFailed)))
        .collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), list);
}
