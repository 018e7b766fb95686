//! The help window: every key, by layer, generated from the keymap, wrapped to the window.

use crate::tui::action::Action;
use crate::tui::layer::Layer;
use crate::tui::state::State;
use crate::tui::panel::help::{HelpRow, HelpState};
use crate::tui::theme::Paint;
use crate::tui::view::popup;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(state: &State, help: &HelpState, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let close = state.keymap.key_name(Layer::Help, Action::Back);
    let (header, list) = popup::window(state, frame, area, &format!("Keys · {close} closes"));
    frame.render_widget(
        Paragraph::new("This screen first. Change keys in config.toml: [keymap.<section>].")
            .style(theme.style(Paint::Dim)),
        header,
    );
    let keys_width = help.keys_width();
    let lines: Vec<Line> = help
        .rows(usize::from(list.width))
        .into_iter()
        .skip(help.scroll)
        .take(usize::from(list.height))
        .map(|row| match row {
            HelpRow::Heading(title) => {
                Line::from(Span::styled(title, theme.style(Paint::HelpSection)))
            }
            HelpRow::Entry { keys, text } => Line::from(vec![
                Span::styled(
                    format!("  {keys:<keys_width$}  "),
                    theme.style(Paint::HelpKey),
                ),
                Span::styled(text, theme.style(Paint::Text)),
            ]),
            HelpRow::Blank => Line::default(),
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), list);
}
