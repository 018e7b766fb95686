//! Where things go on screen, as pure functions of the terminal size. `view` draws into these
//! areas; `update` uses the same ones to page, scroll and map mouse clicks, so the two can
//! never disagree about what is where.

mod compare;

pub use compare::{CompareLayout, compare};
mod dashboard;

pub use dashboard::{DashboardLayout, dashboard};
mod runs;
pub use runs::{RunsLayout, runs, runs_columns};

use super::document::Page;
use super::state::run::Column;
use ratatui::layout::{Constraint, Layout, Rect};

pub struct RunLayout {
    pub title: Rect,
    pub summary: Rect,
    pub header: Rect,
    pub body: Rect,
    pub status: Rect,
}

pub fn run(area: Rect) -> RunLayout {
    let [title, summary, header, body, status] = lines_body_status(area);
    RunLayout {
        title,
        summary,
        header,
        body,
        status,
    }
}

/// `area` cut into one-line bands, the body (the band before last) taking what they leave
/// and the status line last: the shape of the run screens.
pub(super) fn lines_body_status<const N: usize>(area: Rect) -> [Rect; N] {
    Layout::vertical((0..N).map(|i| {
        if i + 2 == N {
            Constraint::Min(0)
        } else {
            Constraint::Length(1)
        }
    }))
    .areas(area)
}

/// Width of each run column (the exit column's is `exit`, what its longest cell needs);
/// the instance column takes what is left.
fn column_width(column: Column, exit: u16) -> u16 {
    match column {
        Column::Instance => 28,
        Column::Format => 14,
        Column::Steps => 5,
        Column::Exit => exit,
        Column::Resolved => 8,
        Column::Cost => 8,
        Column::Tokens => 7,
        Column::Patch => 5,
        Column::Errors => 6,
        Column::Phases => 18,
    }
}

/// Room the instance column keeps beyond its minimum before the phase strip is shown.
const PHASES_SPARE: u16 = 14;

/// Columns dropped first when the terminal is narrow.
const DROP_ORDER: [Column; 7] = [
    Column::Phases,
    Column::Format,
    Column::Tokens,
    Column::Patch,
    Column::Exit,
    Column::Cost,
    Column::Errors,
];

/// The run table's columns that fit in `width`, with their x offset and width.
pub fn run_columns(area: Rect, exit_width: u16) -> Vec<(Column, Rect)> {
    let mut shown: Vec<Column> = Column::ALL.to_vec();
    let column_width = |c: Column| column_width(c, exit_width);
    // The phase strip is a luxury: it shows only when the instance column keeps room for a
    // label that needs its distinguishing path (` · …/run-b`) beside the instance id.
    let needed = |cols: &[Column]| -> u16 {
        let luxury = if cols.contains(&Column::Phases) {
            PHASES_SPARE
        } else {
            0
        };
        cols.iter().map(|&c| column_width(c) + 1).sum::<u16>() + luxury
    };
    for drop in DROP_ORDER {
        if needed(&shown) <= area.width {
            break;
        }
        shown.retain(|&c| c != drop);
    }
    let spare = area.width.saturating_sub(needed(&shown));
    let mut x = area.x;
    shown
        .into_iter()
        .map(|column| {
            let mut width = column_width(column);
            if column == Column::Instance {
                width += spare;
            }
            let rect = Rect::new(
                x,
                area.y,
                width.min(area.right().saturating_sub(x)),
                area.height,
            );
            x = x.saturating_add(width + 1);
            (column, rect)
        })
        .collect()
}

pub struct TrajectoryLayout {
    pub header: Rect,
    pub list: Rect,
    /// The list's scrollbar, which is also the line between the panes.
    pub list_bar: Rect,
    pub tabs: Rect,
    pub detail: Rect,
    pub detail_bar: Rect,
    pub status: Rect,
}

pub fn trajectory(area: Rect) -> TrajectoryLayout {
    let [header, body, status] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    let list_width = (body.width * 35 / 100).clamp(20.min(body.width), 56);
    let [left, right] =
        Layout::horizontal([Constraint::Length(list_width), Constraint::Min(0)]).areas(body);
    let [list, list_bar] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(1)]).areas(left);
    let [tabs, pane] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(right);
    let [detail, detail_bar] =
        Layout::horizontal([Constraint::Min(0), Constraint::Length(1)]).areas(pane);
    TrajectoryLayout {
        header,
        list,
        list_bar,
        tabs,
        detail,
        detail_bar,
        status,
    }
}

/// The tab titles of the right pane and where each is drawn: ` 1 Step  2 Context …`, or
/// without the space after each title when that does not fit.
pub fn tabs(area: Rect) -> Vec<(Page, Rect)> {
    let full: usize = Page::ALL
        .iter()
        .map(|&p| tab_label(p).chars().count() + 1)
        .sum();
    let compact = full > usize::from(area.width) + 1;
    let mut x = area.x;
    Page::ALL
        .iter()
        .map(|&page| {
            let width = tab_label(page).chars().count() as u16 - u16::from(compact);
            let rect = Rect::new(x, area.y, width.min(area.right().saturating_sub(x)), 1);
            x = x.saturating_add(width + 1);
            (page, rect)
        })
        .collect()
}

pub fn tab_label(page: Page) -> String {
    let n = Page::ALL.iter().position(|&p| p == page).unwrap_or(0) + 1;
    format!(" {n} {} ", page.title())
}

/// The label of `page` in a tab `width` cells wide: the compact one drops the last space.
pub fn tab_label_in(page: Page, width: u16) -> String {
    let label = tab_label(page);
    if label.chars().count() > usize::from(width) {
        label.trim_end().to_string()
    } else {
        label
    }
}

/// A centred window for overlays: most of the screen, leaving the status bar visible.
pub fn overlay(area: Rect) -> Rect {
    let width = (area.width * 9 / 10).max(area.width.min(40));
    let height = (area.height.saturating_sub(1) * 9 / 10).max(area.height.min(8));
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height.saturating_sub(1) - height.min(area.height.saturating_sub(1))) / 2,
        width,
        height.min(area.height.saturating_sub(1)),
    )
}

/// Inside an overlay's border: an optional input line, then the list.
pub fn overlay_body(window: Rect, input: bool) -> (Rect, Rect) {
    let inner = Rect::new(
        window.x + 1,
        window.y + 1,
        window.width.saturating_sub(2),
        window.height.saturating_sub(2),
    );
    let input_height = u16::from(input);
    let [input_area, list] =
        Layout::vertical([Constraint::Length(input_height), Constraint::Min(0)]).areas(inner);
    (input_area, list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_terminals_drop_columns_in_order() {
        let wide = run_columns(Rect::new(0, 0, 120, 1), 13);
        assert_eq!(wide.len(), 9);
        let narrow = run_columns(Rect::new(0, 0, 80, 1), 13);
        let names: Vec<Column> = narrow.iter().map(|(c, _)| *c).collect();
        assert!(!names.contains(&Column::Format));
        assert!(names.contains(&Column::Resolved));
        let last = narrow.last().unwrap().1;
        assert!(last.right() <= 80);
    }

    #[test]
    fn trajectory_panes_fill_the_screen() {
        let l = trajectory(Rect::new(0, 0, 80, 24));
        assert_eq!(l.header.height, 3);
        assert_eq!(l.status.y, 23);
        assert_eq!(
            l.list.width + l.list_bar.width + l.detail.width + l.detail_bar.width,
            80
        );
        assert_eq!(l.detail.height, 24 - 3 - 1 - 1);
    }
}
