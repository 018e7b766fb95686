//! The run table's phase strip (explore `·`, edit `e`, verify `v`, submit `s`, from the
//! `edit`, `test_run` and `submit` rules) and the `!` on a resolved run whose last edit no test
//! run followed. Both come from the tally, so they fill in as the rules run.

use crate::metrics::{Phases, TrajectoryKey};
use crate::model::TrajectorySummary;
use crate::tui::state::State;
use crate::tui::state::run::Column;
use crate::tui::theme::Paint;

/// The cell of `column` for `row` when it shows phases; `None` for the others.
pub fn cell(
    state: &State,
    row: &TrajectorySummary,
    column: Column,
    width: u16,
) -> Option<(String, Option<Paint>)> {
    if !matches!(column, Column::Phases | Column::Resolved) {
        return None;
    }
    let tally = &state.metrics.tally;
    let key = TrajectoryKey {
        path: row.path.clone(),
        source_index: row.source_index,
    };
    let t = tally.trajectory(tally.find(&key)?)?;
    let phases = Phases::of(tally.matcher(), t);
    match column {
        Column::Phases => Some((phases.strip(usize::from(width)), Some(Paint::StepSummary))),
        _ if phases.unverified_pass(row.resolved) => {
            Some(("✓ yes !".to_string(), Some(Paint::Unknown)))
        }
        _ => None,
    }
}
