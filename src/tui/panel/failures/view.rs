//! The window listing files that could not be read, each with its one-line error,
//! wrapped; the cursor scrolls by file.

use crate::text::sanitise;
use crate::tui::state::State;
use crate::tui::state::list::ListCursor;
use crate::tui::theme::Paint;
use crate::tui::view::popup;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

pub fn render(state: &State, cursor: &ListCursor, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let failures = &state.run.failures;
    let title = format!("Files that could not be read · {}", failures.len());
    let (header, list) = popup::window(state, frame, area, &title);
    let opened = state.run.rows.len();
    let note = match opened {
        0 => "No other file held a trajectory.".to_string(),
        1 => "1 trajectory opened normally.".to_string(),
        n => format!("{n} trajectories opened normally."),
    };
    frame.render_widget(Paragraph::new(note).style(theme.style(Paint::Dim)), header);
    let lines: Vec<Line> = failures
        .iter()
        .skip(cursor.selected)
        .take(usize::from(list.height))
        .map(|failure| {
            Line::styled(
                sanitise(&failure.message).into_owned(),
                theme.style(Paint::RunFailed),
            )
        })
        .collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), list);
}
