//! The help window: every key, by layer, generated from the keymap.

use super::popup;
use crate::tui::state::State;
use crate::tui::state::help::{HelpLine, HelpState};
use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(state: &State, help: &HelpState, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let (header, list) = popup::window(state, frame, area, "Keys · esc closes");
    frame.render_widget(
        Paragraph::new("This screen first. Change keys in config.toml: [keymap.<section>].")
            .style(theme.style(Role::Dim)),
        header,
    );
    let keys_width = help
        .lines
        .iter()
        .filter_map(|l| match l {
            HelpLine::Binding { keys, .. } => Some(keys.chars().count()),
            _ => None,
        })
        .max()
        .unwrap_or(10)
        .min(28);
    let lines: Vec<Line> = help
        .lines
        .iter()
        .skip(help.scroll)
        .take(usize::from(list.height))
        .map(|line| match line {
            HelpLine::Section(layer) => {
                Line::from(Span::styled(layer.title(), theme.style(Role::HelpSection)))
            }
            HelpLine::Binding { keys, help } => Line::from(vec![
                Span::styled(
                    format!("  {keys:<keys_width$}  "),
                    theme.style(Role::HelpKey),
                ),
                Span::styled(*help, theme.style(Role::Text)),
            ]),
            HelpLine::Blank => Line::default(),
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), list);
}
