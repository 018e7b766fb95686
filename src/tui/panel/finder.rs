//! The fuzzy finder: over the run's trajectories (instance ids and paths) or over the steps
//! of the open trajectory. Narrows as the user types; matching a few thousand short lines
//! takes about a millisecond, so it runs in `update`, not in a job.

pub mod update;
mod view;

use super::{Panel, Scrolled};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::State;
use crate::tui::state::list::ListCursor;
use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinderKind {
    Trajectories,
    Steps,
}

impl FinderKind {
    pub fn title(self) -> &'static str {
        match self {
            FinderKind::Trajectories => "Find a trajectory",
            FinderKind::Steps => "Find a step",
        }
    }
}

/// What choosing an item opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinderTarget {
    /// A row of the run table.
    Row(usize),
    /// A step (1-based) of the open trajectory.
    Step(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub struct FinderItem {
    pub text: String,
    pub target: FinderTarget,
}

/// An item that matches the input, and which of its characters matched.
#[derive(Debug, Clone, PartialEq)]
pub struct FinderMatch {
    pub item: usize,
    pub score: i64,
    pub positions: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct FinderState {
    pub kind: FinderKind,
    pub input: String,
    pub items: Vec<FinderItem>,
    pub matches: Vec<FinderMatch>,
    pub cursor: ListCursor,
}

impl FinderState {
    pub fn new(kind: FinderKind, items: Vec<FinderItem>) -> FinderState {
        let mut finder = FinderState {
            kind,
            input: String::new(),
            items,
            matches: Vec::new(),
            cursor: ListCursor::default(),
        };
        finder.refilter();
        finder
    }

    /// Recomputes the matches for the current input, best first.
    pub fn refilter(&mut self) {
        let matcher = SkimMatcherV2::default().smart_case();
        self.matches = if self.input.is_empty() {
            (0..self.items.len())
                .map(|item| FinderMatch {
                    item,
                    score: 0,
                    positions: Vec::new(),
                })
                .collect()
        } else {
            let mut matches: Vec<FinderMatch> = self
                .items
                .iter()
                .enumerate()
                .filter_map(|(item, it)| {
                    let (score, positions) = matcher.fuzzy_indices(&it.text, &self.input)?;
                    Some(FinderMatch {
                        item,
                        score,
                        positions,
                    })
                })
                .collect();
            matches.sort_by(|a, b| b.score.cmp(&a.score).then(a.item.cmp(&b.item)));
            matches
        };
        self.cursor = ListCursor::default();
    }

    pub fn selected_target(&self) -> Option<FinderTarget> {
        let m = self.matches.get(self.cursor.selected)?;
        Some(self.items[m.item].target)
    }
}

impl Panel for FinderState {
    const NAME: &'static str = "finder";
    const TITLE: &'static str = "Fuzzy finder";
    const HINTS: &'static [(Action, &'static str)] =
        &[(Action::Confirm, "open"), (Action::Cancel, "close")];
    const KEYS: &'static str = include_str!("finder/keys.toml");
    const TAKES_TEXT: bool = true;

    fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
        update::action(state, action, fx);
    }

    fn type_char(state: &mut State, c: char, _fx: &mut Vec<Effect>) {
        update::type_char(state, c);
    }

    fn paste(state: &mut State, text: &str, _fx: &mut Vec<Effect>) {
        update::paste(state, text);
    }

    fn render(&self, state: &State, frame: &mut ratatui::Frame, area: ratatui::layout::Rect) {
        view::render(state, self, frame, area);
    }

    fn scrolled(&mut self, _failures: usize, _width: usize) -> Scrolled<'_> {
        Scrolled::Rows {
            cursor: &mut self.cursor,
            len: self.matches.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrows_as_you_type() {
        let items = [
            "django__django-11099",
            "astropy__astropy-12907",
            "sympy__sympy-20590",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| FinderItem {
            text: t.to_string(),
            target: FinderTarget::Row(i),
        })
        .collect();
        let mut f = FinderState::new(FinderKind::Trajectories, items);
        assert_eq!(f.matches.len(), 3);
        f.input = "dj11".into();
        f.refilter();
        assert_eq!(f.matches.len(), 1);
        assert_eq!(f.selected_target(), Some(FinderTarget::Row(0)));
        assert!(!f.matches[0].positions.is_empty());
        f.input = "zzz".into();
        f.refilter();
        assert!(f.matches.is_empty());
        assert_eq!(f.selected_target(), None);
    }
}
