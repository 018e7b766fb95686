//! Where the runs screen goes: title, the summary line, which letter is which run, the
//! column header, the instance rows (or one instance's trajectories side by side).

use ratatui::layout::Rect;

pub struct RunsLayout {
    pub title: Rect,
    pub summary: Rect,
    pub legend: Rect,
    pub header: Rect,
    pub body: Rect,
    pub status: Rect,
}

pub fn runs(area: Rect) -> RunsLayout {
    let [title, summary, legend, header, body, status] = super::lines_body_status(area);
    RunsLayout {
        title,
        summary,
        legend,
        header,
        body,
        status,
    }
}

/// The instance column's width and each run column's, for `runs` runs in `width` cells.
pub fn runs_columns(width: u16, runs: usize) -> (u16, u16) {
    let runs = u16::try_from(runs.max(1)).unwrap_or(u16::MAX);
    let cell = 10u16.min(width.saturating_sub(20) / runs).max(3);
    (width.saturating_sub(cell.saturating_mul(runs)), cell)
}
