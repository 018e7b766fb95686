//! Where the compare screen's parts go: the two runs' header lines, the alignment list, the
//! titles of the two panes, and the panes side by side.

use ratatui::layout::{Constraint, Layout, Rect};

pub struct CompareLayout {
    pub header: Rect,
    pub list: Rect,
    pub titles: [Rect; 2],
    pub panes: [Rect; 2],
    /// The column between the panes.
    pub divider: Rect,
}

pub fn compare(area: Rect) -> CompareLayout {
    let [header, body, _status] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    let list_height = (body.height * 2 / 5).clamp(3.min(body.height), 12);
    let [list, titles, panes] = Layout::vertical([
        Constraint::Length(list_height),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(body);
    let half = |r: Rect| {
        let [left, divider, right] = Layout::horizontal([
            Constraint::Fill(1),
            Constraint::Length(1),
            Constraint::Fill(1),
        ])
        .areas(r);
        (left, divider, right)
    };
    let (title_a, _, title_b) = half(titles);
    let (pane_a, divider, pane_b) = half(panes);
    CompareLayout {
        header,
        list,
        titles: [title_a, title_b],
        panes: [pane_a, pane_b],
        divider,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panes_split_the_width_and_leave_the_status_line() {
        let l = compare(Rect::new(0, 0, 80, 24));
        assert_eq!(l.panes[0].width + l.divider.width + l.panes[1].width, 80);
        assert_eq!(l.panes[0].bottom(), 23);
        assert!(
            l.list.height >= 3 && l.panes[0].height >= 8,
            "{:?}",
            l.panes[0]
        );
    }
}
