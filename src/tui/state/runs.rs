//! Several runs side by side: every root the user opened is one run (`trajscope --runs A B
//! C`, or a run added with `+`), one column per run and one row per instance, with filters
//! for "solved by exactly k runs" and "solved only by run X", and the trajectories of one
//! instance read in full, side by side.

use super::list::ListCursor;
use super::run::RunState;
use super::trajectory::{LoadedTrajectory, TrajectoryRef};
use crate::model::TrajectorySummary;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Which instances the table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunsFilter {
    #[default]
    All,
    /// Every run has a verdict and exactly this many resolved it.
    SolvedBy(usize),
    /// This run resolved it and no other run did.
    OnlyBy(usize),
}

/// One instance: the row (in [`RunState::rows`]) of its trajectory in each run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceRow {
    pub instance_id: String,
    pub cells: Vec<Option<usize>>,
}

impl InstanceRow {
    /// Each run's verdict (`None`: no trajectory, or no verdict).
    pub fn verdicts(&self, rows: &[TrajectorySummary]) -> Vec<Option<bool>> {
        self.cells
            .iter()
            .map(|c| c.and_then(|i| rows.get(i)).and_then(|r| r.resolved))
            .collect()
    }

    /// How many runs resolved it, when every run has a verdict.
    pub fn solved_by(&self, rows: &[TrajectorySummary]) -> Option<usize> {
        self.verdicts(rows)
            .into_iter()
            .try_fold(0, |n, v| v.map(|solved| n + usize::from(solved)))
    }

    fn shown(&self, filter: RunsFilter, rows: &[TrajectorySummary]) -> bool {
        match filter {
            RunsFilter::All => true,
            RunsFilter::SolvedBy(k) => self.solved_by(rows) == Some(k),
            RunsFilter::OnlyBy(x) => {
                let verdicts = self.verdicts(rows);
                verdicts.get(x) == Some(&Some(true))
                    && verdicts
                        .iter()
                        .enumerate()
                        .all(|(i, v)| i == x || *v != Some(true))
            }
        }
    }
}

/// One instance's trajectories, one per run: `None` where the run has none, `Err` where its
/// file could not be read.
pub type InstanceTrajectories = Vec<Option<Result<Arc<LoadedTrajectory>, String>>>;

/// The trajectories of one instance, one per run, read in full.
#[derive(Debug, Clone)]
pub struct InstanceView {
    pub id: u64,
    pub instance_id: String,
    /// Each run's trajectory of the instance, if it has one.
    pub sources: Vec<Option<TrajectoryRef>>,
    /// Each run's verdict as the run table has it (joined from the run's eval results,
    /// which a trajectory read on its own does not carry).
    pub verdicts: Vec<Option<bool>>,
    /// Each run's trajectory once read (or why it could not be).
    pub loaded: Option<InstanceTrajectories>,
    /// The first step shown in every column.
    pub scroll: usize,
}

#[derive(Debug, Clone, Default)]
pub struct RunsState {
    pub rows: Vec<InstanceRow>,
    /// Indices into `rows` of the rows shown.
    pub visible: Vec<usize>,
    pub filter: RunsFilter,
    pub cursor: ListCursor,
    pub instance: Option<InstanceView>,
}

impl RunsState {
    /// Rebuilds the rows from the run table: every instance any run has, by id.
    pub fn sync(&mut self, run: &RunState) {
        let n = run.roots.len();
        let mut by_id: BTreeMap<&str, Vec<Option<usize>>> = BTreeMap::new();
        for (i, row) in run.rows.iter().enumerate() {
            if row.fork_of.is_some() {
                continue;
            }
            let Some(r) = run_of(run, row) else {
                continue;
            };
            let cells = by_id
                .entry(row.instance_id.as_str())
                .or_insert_with(|| vec![None; n]);
            // The first trajectory of an instance in a run speaks for it, as in `stats`.
            if cells[r].is_none() {
                cells[r] = Some(i);
            }
        }
        let selected = self
            .visible
            .get(self.cursor.selected)
            .and_then(|&i| self.rows.get(i))
            .map(|r| r.instance_id.clone());
        self.rows = by_id
            .into_iter()
            .map(|(id, cells)| InstanceRow {
                instance_id: id.to_string(),
                cells,
            })
            .collect();
        self.visible = (0..self.rows.len())
            .filter(|&i| self.rows[i].shown(self.filter, &run.rows))
            .collect();
        if let Some(id) = selected
            && let Some(p) = self
                .visible
                .iter()
                .position(|&i| self.rows[i].instance_id == id)
        {
            self.cursor.selected = p;
        }
    }

    pub fn selected(&self) -> Option<&InstanceRow> {
        self.visible
            .get(self.cursor.selected)
            .and_then(|&i| self.rows.get(i))
    }

    /// Instances in every run, and how many of those (with a verdict everywhere) exactly k
    /// runs solved, k = 0..=runs.
    pub fn shared(&self, run: &RunState) -> (usize, Vec<usize>) {
        let mut counts = vec![0; run.roots.len() + 1];
        let mut shared = 0;
        for row in &self.rows {
            if row.cells.iter().all(Option::is_some) {
                shared += 1;
                if let Some(k) = row.solved_by(&run.rows) {
                    counts[k] += 1;
                }
            }
        }
        (shared, counts)
    }
}

/// Which run (root) a row belongs to.
pub fn run_of(run: &RunState, row: &TrajectorySummary) -> Option<usize> {
    run.roots.iter().position(|r| row.path.starts_with(r))
}

/// `A`, `B`, … for the column headers.
pub fn letter(i: usize) -> String {
    match u8::try_from(i).ok().filter(|&i| i < 26) {
        Some(i) => char::from(b'A' + i).to_string(),
        None => format!("R{}", i + 1),
    }
}
