//! The run-wide search: which trajectories and steps contain a string, filled in as the
//! files are searched.

pub mod update;
mod view;

use super::{Panel, Scrolled};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::State;
use crate::tui::state::list::ListCursor;
use crate::tui::state::trajectory::TrajectoryRef;
use crate::tui::search::{Query, StepMatch};

/// One trajectory with matches.
#[derive(Debug, Clone, PartialEq)]
pub struct GrepMatch {
    pub source: TrajectoryRef,
    pub instance_id: String,
    pub steps: Vec<StepMatch>,
}

/// A line of the results list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrepLine {
    Trajectory(usize),
    Step(usize, usize),
    /// `… N more steps` under a trajectory with many.
    More(usize, usize),
}

/// Steps listed under each trajectory before `… N more`.
pub const STEPS_SHOWN: usize = 8;

#[derive(Debug, Clone)]
pub struct GrepState {
    pub id: u64,
    pub query: Query,
    pub found: Vec<GrepMatch>,
    pub lines: Vec<GrepLine>,
    pub cursor: ListCursor,
    pub files_done: usize,
    pub files_total: usize,
    pub done: bool,
}

impl GrepState {
    pub fn new(id: u64, query: Query, files_total: usize) -> GrepState {
        GrepState {
            id,
            query,
            found: Vec::new(),
            lines: Vec::new(),
            cursor: ListCursor::default(),
            files_done: 0,
            files_total,
            done: files_total == 0,
        }
    }

    /// Adds one trajectory's matches, keeping trajectories sorted by instance id and the
    /// selected line where it was.
    pub fn add(&mut self, found: GrepMatch) {
        let at = self
            .found
            .partition_point(|f| f.instance_id <= found.instance_id);
        let selected = self.lines.get(self.cursor.selected).copied();
        self.found.insert(at, found);
        self.relayout();
        let shift = |i: usize| if i >= at { i + 1 } else { i };
        let moved = selected.map(|line| match line {
            GrepLine::Trajectory(t) => GrepLine::Trajectory(shift(t)),
            GrepLine::Step(t, s) => GrepLine::Step(shift(t), s),
            GrepLine::More(t, n) => GrepLine::More(shift(t), n),
        });
        if let Some(position) = moved.and_then(|m| self.lines.iter().position(|&l| l == m)) {
            self.cursor.selected = position;
        }
    }

    fn relayout(&mut self) {
        self.lines.clear();
        for (t, found) in self.found.iter().enumerate() {
            self.lines.push(GrepLine::Trajectory(t));
            for s in 0..found.steps.len().min(STEPS_SHOWN) {
                self.lines.push(GrepLine::Step(t, s));
            }
            if found.steps.len() > STEPS_SHOWN {
                self.lines
                    .push(GrepLine::More(t, found.steps.len() - STEPS_SHOWN));
            }
        }
    }

    /// Total matching steps.
    pub fn step_count(&self) -> usize {
        self.found.iter().map(|f| f.steps.len()).sum()
    }

    /// The trajectory and step (1-based, when a step line) under the cursor.
    pub fn selected(&self) -> Option<(&GrepMatch, Option<usize>)> {
        match *self.lines.get(self.cursor.selected)? {
            GrepLine::Trajectory(t) => {
                Some((&self.found[t], self.found[t].steps.first().map(|s| s.step)))
            }
            GrepLine::Step(t, s) => Some((&self.found[t], Some(self.found[t].steps[s].step))),
            GrepLine::More(t, _) => Some((
                &self.found[t],
                self.found[t].steps.get(STEPS_SHOWN).map(|s| s.step),
            )),
        }
    }
}

impl Panel for GrepState {
    const NAME: &'static str = "grep";
    const TITLE: &'static str = "Run-wide search results";
    const HINTS: &'static [(Action, &'static str)] = &[
        (Action::Open, "open"),
        (Action::SearchRun, "new search"),
        (Action::Back, "close"),
    ];
    const KEYS: &'static str = include_str!("grep/keys.toml");

    fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
        update::action(state, action, fx);
    }

    fn render(&self, state: &State, frame: &mut ratatui::Frame, area: ratatui::layout::Rect) {
        view::render(state, self, frame, area);
    }

    fn scrolled(&mut self, _failures: usize, _width: usize) -> Scrolled<'_> {
        Scrolled::Rows {
            cursor: &mut self.cursor,
            len: self.lines.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::search::Field;
    use std::path::PathBuf;

    fn found(id: &str, steps: usize) -> GrepMatch {
        GrepMatch {
            source: TrajectoryRef {
                path: PathBuf::from(id),
                index: None,
            },
            instance_id: id.into(),
            steps: (1..=steps)
                .map(|step| StepMatch {
                    step,
                    field: Field::Observation,
                    snippet: "x".into(),
                })
                .collect(),
        }
    }

    #[test]
    fn results_stay_sorted_and_the_selection_stays_put() {
        let mut g = GrepState::new(1, Query::new("x").unwrap(), 3);
        g.add(found("m", 2));
        g.cursor.selected = 2; // m, step 2
        g.add(found("a", 1));
        assert_eq!(g.found[0].instance_id, "a");
        assert_eq!(
            g.selected().map(|(f, s)| (f.instance_id.as_str(), s)),
            Some(("m", Some(2)))
        );
        g.add(found("z", STEPS_SHOWN + 3));
        assert_eq!(g.lines.last(), Some(&GrepLine::More(2, 3)));
        assert_eq!(g.step_count(), 3 + STEPS_SHOWN + 3);
    }
}
