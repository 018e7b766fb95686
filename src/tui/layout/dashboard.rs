//! Where the failure-mode dashboard goes: the tally table on top (as tall as its rows, up to
//! a little over half the screen), the steps behind the selected row below.

use ratatui::layout::{Constraint, Layout, Rect};

pub struct DashboardLayout {
    pub title: Rect,
    pub summary: Rect,
    pub header: Rect,
    pub rules: Rect,
    /// The line naming the selected row above its steps.
    pub hits_title: Rect,
    pub hits: Rect,
    pub status: Rect,
}

/// The dashboard's areas for a table of `rows` rows.
pub fn dashboard(area: Rect, rows: usize) -> DashboardLayout {
    let spare = area.height.saturating_sub(5);
    let most = (spare * 11 / 20).max(3).min(spare.saturating_sub(2));
    let rules = u16::try_from(rows)
        .unwrap_or(u16::MAX)
        .clamp(1, most.max(1));
    let [title, summary, header, rules, hits_title, hits, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(rules),
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    DashboardLayout {
        title,
        summary,
        header,
        rules,
        hits_title,
        hits,
        status,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_takes_what_it_needs_up_to_about_half() {
        let small = dashboard(Rect::new(0, 0, 80, 24), 17);
        assert_eq!(small.rules.height, 10, "19 spare rows: 10 for rules");
        assert_eq!(small.hits.height, 9);
        assert_eq!(small.status.y, 23);
        let few = dashboard(Rect::new(0, 0, 120, 40), 4);
        assert_eq!(few.rules.height, 4, "no more than the rows");
        assert_eq!(few.hits.y, 3 + 4 + 1);
    }
}
