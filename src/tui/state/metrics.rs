//! What the failure-mode rules found across the run, and the hand-made step labels: the
//! tally that the dashboard, the trajectory view and exports read. Trajectories are scanned
//! in the run-loading job as their files are read (off the UI thread); only their small
//! per-trajectory tallies arrive here.
//!
//! Owns the tally and the label sets; the dashboard's cursors live in `dashboard.rs`.

use super::trajectory::TrajectoryRef;
use crate::metrics::{LabelSet, Matcher, Tally, TrajectoryKey};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct MetricsState {
    pub tally: Tally,
    /// The label sets of the run folders, once read.
    pub labels: Vec<LabelSet>,
    /// Run folders whose label file could not be read, and why: labelling there is refused,
    /// so that the file is not replaced by one without its labels.
    pub label_errors: Vec<(PathBuf, String)>,
    pub labels_loaded: bool,
    /// Eval-results sources of the run already joined into the tally.
    pub results_joined: usize,
    /// Bumped whenever the tally or the labels change: what is computed from them is stale.
    pub generation: u64,
    /// Bumped by every label edit; a save started before the latest edit is superseded.
    pub label_edits: u64,
}

impl MetricsState {
    pub fn new(rules: Arc<Matcher>) -> MetricsState {
        MetricsState {
            tally: Tally::new(rules),
            labels: Vec::new(),
            label_errors: Vec::new(),
            labels_loaded: false,
            results_joined: 0,
            generation: 0,
            label_edits: 0,
        }
    }

    pub fn rules(&self) -> &Arc<Matcher> {
        self.tally.matcher()
    }

    /// The tally's index of the trajectory at `source`, once its file was tallied.
    pub fn index_of(&self, source: &TrajectoryRef) -> Option<usize> {
        self.tally.find(&TrajectoryKey {
            path: source.path.clone(),
            source_index: source.index,
        })
    }

    /// The rules (not hidden) that matched at 1-based `step` of the trajectory at `source`.
    pub fn rules_at(&self, source: &TrajectoryRef, step: usize) -> Vec<&str> {
        self.index_of(source)
            .map(|i| self.tally.rules_at(i, step))
            .unwrap_or_default()
    }

    /// The labels of 1-based `step` of the trajectory at `source`.
    pub fn labels_at(&self, source: &TrajectoryRef, step: usize) -> Vec<&str> {
        self.labels
            .iter()
            .flat_map(|set| set.at_step(&source.path, source.index, step))
            .map(|l| l.label.as_str())
            .collect()
    }

    /// The label set that holds labels for the file at `path`: the one of the run folder
    /// it is in (the deepest, when folders nest).
    pub fn set_for(&self, path: &Path) -> Option<usize> {
        self.labels
            .iter()
            .enumerate()
            .filter(|(_, set)| set.key_of(path).is_some())
            .max_by_key(|(_, set)| set.root().components().count())
            .map(|(i, _)| i)
    }

    /// Why labels cannot be saved for the file at `path`, if they cannot.
    pub fn label_problem(&self, path: &Path) -> Option<String> {
        if !self.labels_loaded {
            return Some("the labels of this run are still being read".into());
        }
        self.label_errors
            .iter()
            .find(|(root, _)| in_folder(root, path))
            .map(|(_, message)| format!("labels cannot be saved: {message}"))
    }

    /// Counts the labels in the tally again after they changed.
    pub fn relabel(&mut self) {
        self.tally.set_labels(&self.labels);
        self.generation += 1;
    }
}

/// Whether the file at `path` is inside run folder `root`.
fn in_folder(root: &Path, path: &Path) -> bool {
    LabelSet::empty(root).key_of(path).is_some()
}

/// What matched at the selected step of the open trajectory, shown above the step page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StepMarks {
    pub rules: Vec<String>,
    pub labels: Vec<String>,
}

impl StepMarks {
    /// The marks of the step the step page shows, if it shows one that has any.
    pub fn of_page(state: &super::State) -> Option<StepMarks> {
        let t = state.open_trajectory()?;
        if t.page != crate::tui::document::Page::Step {
            return None;
        }
        let step = t.step_index()?;
        let marks = StepMarks {
            rules: state
                .metrics
                .rules_at(&t.source, step)
                .into_iter()
                .map(String::from)
                .collect(),
            labels: state
                .metrics
                .labels_at(&t.source, step)
                .into_iter()
                .map(String::from)
                .collect(),
        };
        (marks.rows() > 0).then_some(marks)
    }

    /// Rows they take: one for rules, one for labels.
    pub fn rows(&self) -> u16 {
        u16::from(!self.rules.is_empty()) + u16::from(!self.labels.is_empty())
    }
}

/// Rows above the step page taken by the step's marks.
pub fn marks_rows(state: &super::State) -> u16 {
    StepMarks::of_page(state).map_or(0, |m| m.rows())
}
