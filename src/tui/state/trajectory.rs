//! The trajectory being read: which one, its steps as list rows, the selected step, the page
//! shown on the right and how far it is scrolled, which observations are unfolded.

use super::list::ListCursor;
use crate::model::{Step, Trajectory};
use crate::text::one_line;
use crate::tui::document::{AnalysisCell, Page};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

/// Where a trajectory lives: a file, and which of its trajectories when it holds several.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TrajectoryRef {
    pub path: PathBuf,
    pub index: Option<usize>,
}

/// One row of the step list, computed once when the trajectory loads (off the UI thread:
/// deciding whether a step is an error reads its observation).
#[derive(Debug, Clone, PartialEq)]
pub struct StepRow {
    pub index: usize,
    pub agent: Option<String>,
    pub tool: String,
    pub summary: String,
    pub error: bool,
}

impl StepRow {
    pub fn of(step: &Step) -> StepRow {
        let tool = step.tool_name();
        // `open x.py` under the tool `open` reads better as `x.py`.
        let summary = step.summary();
        let summary = summary
            .strip_prefix(tool)
            .filter(|rest| rest.is_empty() || rest.starts_with(' '))
            .map_or(summary, str::trim_start);
        StepRow {
            index: step.index,
            agent: step.agent.clone(),
            tool: one_line(tool, 40),
            summary: one_line(summary, 300),
            error: step.is_error(),
        }
    }
}

/// A trajectory read from disk, with its step rows.
#[derive(Debug, Clone)]
pub struct LoadedTrajectory {
    pub trajectory: Trajectory,
    pub steps: Vec<StepRow>,
}

impl LoadedTrajectory {
    pub fn new(trajectory: Trajectory) -> LoadedTrajectory {
        let steps = trajectory.steps.iter().map(StepRow::of).collect();
        LoadedTrajectory { trajectory, steps }
    }
}

#[derive(Debug, Clone)]
pub struct TrajectoryState {
    /// Tells this opening apart from earlier ones: late results for another are dropped.
    pub id: u64,
    pub source: TrajectoryRef,
    /// Its row in the run table, for next/previous trajectory.
    pub row: Option<usize>,
    /// The instance id, known before the file is read.
    pub title: String,
    pub trajectory: Option<Arc<Trajectory>>,
    pub steps: Arc<[StepRow]>,
    /// Several agents took steps (CodeR): the list shows which.
    pub multi_agent: bool,
    /// Columns for the tool names in the step list: the longest, within limits.
    pub tool_width: usize,
    pub error: Option<String>,
    pub cursor: ListCursor,
    pub page: Page,
    /// Rows scrolled off the top of the right pane.
    pub scroll: usize,
    /// Steps (1-based) whose long observation is unfolded.
    pub unfolded: HashSet<usize>,
    /// Select this step (1-based) once loaded.
    pub pending_step: Option<usize>,
    /// Scroll to this search hit once its document is built.
    pub pending_hit: Option<usize>,
    /// Select the step that started this sub-agent's log once loaded.
    pub pending_subagent: Option<PathBuf>,
    /// Its diffs, computed once off the UI thread by the first diff page built.
    pub analysis: AnalysisCell,
    /// The screen it was opened from, where going back leads (kept across next/previous
    /// trajectory).
    pub back: super::Screen,
    /// Only its first steps are read; the rest of the file is being indexed: bytes read
    /// and the file's size.
    pub indexing: Option<(u64, u64)>,
}

impl TrajectoryState {
    pub fn opening(id: u64, source: TrajectoryRef, row: Option<usize>, title: String) -> Self {
        TrajectoryState {
            id,
            source,
            row,
            title,
            trajectory: None,
            steps: Arc::from(Vec::new()),
            multi_agent: false,
            tool_width: 4,
            error: None,
            cursor: ListCursor::default(),
            page: Page::Step,
            scroll: 0,
            unfolded: HashSet::new(),
            pending_step: None,
            pending_hit: None,
            pending_subagent: None,
            analysis: AnalysisCell::default(),
            back: super::Screen::Run,
            indexing: None,
        }
    }

    /// The selected step's 1-based index, once loaded.
    pub fn step_index(&self) -> Option<usize> {
        self.steps.get(self.cursor.selected).map(|s| s.index)
    }

    pub fn selected_step(&self) -> Option<&Step> {
        let index = self.step_index()?;
        self.trajectory.as_ref()?.step(index)
    }

    /// The position in the list of the step numbered `index`.
    pub fn position_of(&self, index: usize) -> Option<usize> {
        self.steps.iter().position(|s| s.index == index)
    }

    /// Selects the list position `position`, resetting the pane's scroll when it changes.
    pub fn select(&mut self, position: usize) {
        let before = self.cursor.selected;
        self.cursor.select(position, self.steps.len());
        if self.cursor.selected != before {
            self.scroll = 0;
            self.pending_hit = None;
        }
    }

    /// The next (or previous) step after the selection that satisfies `wanted`.
    pub fn find_step(&self, forward: bool, wanted: impl Fn(&StepRow) -> bool) -> Option<usize> {
        let here = self.cursor.selected;
        if forward {
            (here + 1..self.steps.len()).find(|&i| wanted(&self.steps[i]))
        } else {
            (0..here).rev().find(|&i| wanted(&self.steps[i]))
        }
    }
}
