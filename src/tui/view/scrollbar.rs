//! A one-column scrollbar: where the visible part is, and marks (errors, search hits) at
//! their place along the whole list, as lnav marks them.

use crate::tui::theme::{Paint, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    Error,
    Hit,
}

/// `marks` are (row, mark) in list order; a hit outranks an error in the same cell. When
/// everything is visible there is no thumb, only the track (a plain divider line).
pub fn render(
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    len: usize,
    offset: usize,
    visible: usize,
    marks: &[(usize, Mark)],
) {
    let height = usize::from(area.height);
    if height == 0 || area.width == 0 {
        return;
    }
    let mut cells: Vec<Option<Mark>> = vec![None; height];
    for &(row, mark) in marks {
        // A list that fits gets its marks beside the rows; a longer one, in proportion.
        let y = if len <= height {
            row
        } else {
            row * height / len.max(1)
        };
        let y = y.min(height - 1);
        cells[y] = cells[y].max(Some(mark));
    }
    let (thumb_start, thumb_end) = if len <= visible {
        (0, 0)
    } else {
        let start = offset * height / len;
        let size = (visible * height / len).max(1);
        (start.min(height - 1), (start + size).min(height))
    };
    let buffer = frame.buffer_mut();
    for (y, cell) in cells.iter().enumerate() {
        let in_thumb = y >= thumb_start && y < thumb_end;
        let (symbol, role) = match cell {
            // Ticks across the track: unlike the rows' own marks (`✗`, `●`), they read as
            // places along the whole list, not as one row's state.
            Some(Mark::Hit) => ("╪", Paint::ScrollbarHit),
            Some(Mark::Error) => ("━", Paint::ScrollbarError),
            None if in_thumb => ("┃", Paint::ScrollbarThumb),
            None => ("│", Paint::ScrollbarTrack),
        };
        let position = (area.x, area.y + y as u16);
        if let Some(c) = buffer.cell_mut(position) {
            c.set_symbol(symbol).set_style(theme.style(role));
        }
    }
}
