//! The failure-mode dashboard: the tally table (rules, then labels) with its selection, and
//! the steps behind the selected row with theirs. Both lists are recomputed from the tally
//! when it changes (`update/dashboard.rs`), never while drawing.

use super::list::ListCursor;
use crate::metrics::{Hit, Row, RowKind};

/// Which list takes the movement keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    #[default]
    Rules,
    Hits,
}

/// One step behind a count: a row of the lower list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HitRow {
    /// Index in the tally's trajectories.
    pub trajectory: usize,
    /// 1-based step.
    pub step: usize,
    pub matches: u32,
}

impl HitRow {
    pub fn of(hit: &Hit) -> HitRow {
        HitRow {
            trajectory: hit.trajectory,
            step: hit.step as usize,
            matches: hit.matches,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct DashboardState {
    /// The table: visible rules in rule-file order, then labels by name.
    pub rows: Vec<Row>,
    /// The tally generation `rows` and `hits` were computed from.
    pub generation: Option<u64>,
    pub cursor: ListCursor,
    pub focus: Focus,
    /// The steps behind the selected row.
    pub hits: Vec<HitRow>,
    /// The row (`name`, `kind`) `hits` belong to.
    pub hits_of: Option<(String, RowKind)>,
    pub hits_cursor: ListCursor,
    /// The trajectory opening (its id) made from here: going back from it returns here.
    pub opened: Option<u64>,
}

impl DashboardState {
    pub fn selected_row(&self) -> Option<&Row> {
        self.rows.get(self.cursor.selected)
    }

    pub fn selected_hit(&self) -> Option<&HitRow> {
        self.hits.get(self.hits_cursor.selected)
    }
}
