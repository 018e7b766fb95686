//! Comparing two runs of one task: the trajectories marked in the run table, and the compare
//! screen (the two trajectories aligned step by step, the selected pair of steps side by
//! side, or the two final patches).

use super::list::ListCursor;
use super::trajectory::TrajectoryRef;
use crate::diff::{AlignedPair, RunComparison, compare_runs};
use crate::model::Trajectory;
use std::sync::Arc;

/// Two trajectories read in full and aligned (off the UI thread).
#[derive(Debug)]
pub struct Compared {
    pub a: Trajectory,
    pub b: Trajectory,
    pub comparison: RunComparison,
}

impl Compared {
    pub fn new(a: Trajectory, b: Trajectory) -> Compared {
        let comparison = compare_runs(&a, &b);
        Compared { a, b, comparison }
    }
}

/// What the second side of a comparison is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompareWith {
    Trajectory(TrajectoryRef),
    /// The trajectory the first one was forked from (`trajscope replay`).
    ForkParent,
}

/// The compare screen.
#[derive(Debug, Clone)]
pub struct CompareView {
    /// Tells this comparison apart from earlier ones: late results for another are dropped.
    pub id: u64,
    pub titles: [String; 2],
    /// The run's verdicts for the two, which the files alone may not hold.
    pub resolved: [Option<bool>; 2],
    pub compared: Option<Arc<Compared>>,
    pub error: Option<String>,
    /// Over the aligned pairs.
    pub cursor: ListCursor,
    /// Rows scrolled off the top of the two side-by-side panes.
    pub scroll: usize,
    /// The panes show the final patches instead of the selected pair of steps.
    pub patches: bool,
    /// Where Back goes: the run, or the trajectory a replay was started from.
    pub back: super::Screen,
}

impl CompareView {
    pub fn opening(id: u64, titles: [String; 2]) -> CompareView {
        CompareView {
            id,
            titles,
            resolved: [None, None],
            compared: None,
            error: None,
            cursor: ListCursor::default(),
            scroll: 0,
            patches: false,
            back: super::Screen::Run,
        }
    }

    pub fn pairs(&self) -> &[AlignedPair] {
        self.compared
            .as_ref()
            .map_or(&[], |c| c.comparison.pairs.as_slice())
    }

    pub fn selected_pair(&self) -> Option<&AlignedPair> {
        self.pairs().get(self.cursor.selected)
    }

    /// Where each divergence begins: a pair that differs after one that does not, or after
    /// one of another kind (steps only one run took, then two steps that differ).
    pub fn divergences(&self) -> Vec<usize> {
        let pairs = self.pairs();
        let kind = |p: &AlignedPair| (p.a.is_some(), p.b.is_some());
        (0..pairs.len())
            .filter(|&i| {
                !pairs[i].same
                    && (i == 0 || pairs[i - 1].same || kind(&pairs[i - 1]) != kind(&pairs[i]))
            })
            .collect()
    }

    /// The position of the next (or previous) divergence from the selection.
    pub fn find_divergence(&self, forward: bool) -> Option<usize> {
        let here = self.cursor.selected;
        let starts = self.divergences();
        if forward {
            starts.into_iter().find(|&i| i > here)
        } else {
            starts.into_iter().rev().find(|&i| i < here)
        }
    }

    pub fn select(&mut self, position: usize) {
        let before = self.cursor.selected;
        self.cursor.select(position, self.pairs().len());
        if self.cursor.selected != before {
            self.scroll = 0;
        }
    }
}

/// Marks in the run table and the comparison open, if any.
#[derive(Debug, Clone, Default)]
pub struct CompareState {
    /// Rows of the run (indices into `RunState::rows`) marked with `m`, oldest first; two at
    /// most.
    pub marked: Vec<usize>,
    pub view: Option<CompareView>,
}

impl CompareState {
    /// Marks `row`, or unmarks it when marked; a third mark drops the oldest.
    pub fn toggle(&mut self, row: usize) -> bool {
        if let Some(i) = self.marked.iter().position(|&r| r == row) {
            self.marked.remove(i);
            return false;
        }
        if self.marked.len() == 2 {
            self.marked.remove(0);
        }
        self.marked.push(row);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(same: bool) -> AlignedPair {
        AlignedPair {
            a: Some(1),
            b: Some(1),
            same,
            similarity: if same { 1.0 } else { 0.2 },
        }
    }

    fn view(same: &[bool]) -> CompareView {
        let mut v = CompareView::opening(1, ["a".into(), "b".into()]);
        let a = Trajectory::new("a.traj", crate::model::Format::SweAgent);
        let mut compared = Compared::new(a.clone(), a);
        compared.comparison.pairs = same.iter().map(|&s| pair(s)).collect();
        v.compared = Some(Arc::new(compared));
        v
    }

    #[test]
    fn divergences_are_where_differing_runs_begin() {
        let mut v = view(&[true, false, false, true, false, true]);
        assert_eq!(v.divergences(), [1, 4]);
        assert_eq!(v.find_divergence(true), Some(1));
        v.select(1);
        assert_eq!(v.find_divergence(true), Some(4));
        v.select(4);
        assert_eq!(v.find_divergence(true), None);
        assert_eq!(v.find_divergence(false), Some(1));
        assert_eq!(view(&[false, true]).divergences(), [0]);
    }

    #[test]
    fn at_most_two_marks() {
        let mut c = CompareState::default();
        assert!(c.toggle(3));
        assert!(c.toggle(5));
        assert!(c.toggle(7));
        assert_eq!(c.marked, [5, 7]);
        assert!(!c.toggle(5));
        assert_eq!(c.marked, [7]);
    }
}
