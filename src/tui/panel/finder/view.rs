//! The fuzzy finder window: the input, the count, and the best matches with the matched
//! characters highlighted.

use crate::text::clip;
use crate::tui::state::State;
use crate::tui::panel::finder::FinderState;
use crate::tui::theme::Paint;
use crate::tui::view::popup;
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(state: &State, finder: &FinderState, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let title = format!(
        "{} · {}/{}",
        finder.kind.title(),
        finder.matches.len(),
        finder.items.len()
    );
    let (input, list) = popup::window(state, frame, area, &title);
    let line = Line::from(vec![
        Span::styled("> ", theme.style(Paint::FinderPrompt)),
        Span::styled(finder.input.clone(), theme.style(Paint::Text)),
    ]);
    frame.render_widget(Paragraph::new(line), input);
    let x = input.x + 2 + crate::text::display_width(&finder.input) as u16;
    if state.prompt.is_none() {
        frame.set_cursor_position(Position::new(
            x.min(input.right().saturating_sub(1)),
            input.y,
        ));
    }
    let width = usize::from(list.width);
    let lines: Vec<Line> = finder
        .matches
        .iter()
        .enumerate()
        .skip(finder.cursor.offset)
        .take(usize::from(list.height))
        .map(|(i, m)| {
            let base = if i == finder.cursor.selected {
                theme.style(Paint::Text).patch(theme.style(Paint::Selected))
            } else {
                theme.style(Paint::Text)
            };
            let matched = base.patch(theme.style(Paint::FinderMatch));
            let text = clip(&finder.items[m.item].text, width).into_owned();
            let mut spans: Vec<Span> = Vec::new();
            let mut run = String::new();
            let mut run_matched = false;
            for (ci, c) in text.chars().enumerate() {
                let is_match = m.positions.binary_search(&ci).is_ok();
                if is_match != run_matched && !run.is_empty() {
                    let style = if run_matched { matched } else { base };
                    spans.push(Span::styled(std::mem::take(&mut run), style));
                }
                run_matched = is_match;
                run.push(c);
            }
            if !run.is_empty() {
                spans.push(Span::styled(run, if run_matched { matched } else { base }));
            }
            let used = text.chars().count();
            spans.push(Span::styled(" ".repeat(width.saturating_sub(used)), base));
            Line::from(spans)
        })
        .collect();
    if lines.is_empty() {
        frame.render_widget(
            Paragraph::new(" nothing matches").style(theme.style(Paint::Dim)),
            list,
        );
    } else {
        frame.render_widget(Paragraph::new(lines), list);
    }
}
