//! The search in the open trajectory: the query, its hits, the current one.

use crate::tui::search::{Hit, Query};
use std::collections::BTreeSet;

#[derive(Debug, Clone, Default)]
pub struct SearchState {
    pub query: Option<Query>,
    /// The trajectory (by opening id) the hits belong to.
    pub trajectory: u64,
    pub hits: Vec<Hit>,
    /// Steps (1-based) with at least one hit, for the list marks and the scrollbar.
    pub hit_steps: BTreeSet<usize>,
    pub current: Option<usize>,
    pub running: bool,
}

impl SearchState {
    pub fn set_hits(&mut self, hits: Vec<Hit>) {
        self.hit_steps = hits.iter().map(|h| h.step).collect();
        self.hits = hits;
        self.current = None;
        self.running = false;
    }

    pub fn clear(&mut self) {
        *self = SearchState::default();
    }

    /// The first hit at or after step `step` (wrapping), as vim's `/` does.
    pub fn first_from(&self, step: usize) -> Option<usize> {
        if self.hits.is_empty() {
            return None;
        }
        Some(self.hits.iter().position(|h| h.step >= step).unwrap_or(0))
    }

    /// The hit after (or before) the current one, wrapping; from `step` when none is current.
    pub fn advance(&self, forward: bool, step: usize) -> Option<usize> {
        let n = self.hits.len();
        if n == 0 {
            return None;
        }
        Some(match self.current {
            Some(i) if forward => (i + 1) % n,
            Some(i) => (i + n - 1) % n,
            None if forward => self.hits.iter().position(|h| h.step > step).unwrap_or(0),
            None => self
                .hits
                .iter()
                .rposition(|h| h.step < step)
                .unwrap_or(n - 1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::search::Field;

    fn hit(step: usize) -> Hit {
        Hit {
            step,
            field: Field::Observation,
            line: 0,
            start: 0,
            end: 1,
        }
    }

    #[test]
    fn hits_wrap_around_both_ways() {
        let mut s = SearchState::default();
        s.set_hits(vec![hit(2), hit(5), hit(5), hit(9)]);
        assert_eq!(s.hit_steps.len(), 3);
        assert_eq!(s.first_from(3), Some(1));
        assert_eq!(s.first_from(10), Some(0));
        assert_eq!(s.advance(true, 5), Some(3));
        assert_eq!(s.advance(false, 5), Some(0));
        s.current = Some(3);
        assert_eq!(s.advance(true, 0), Some(0));
        s.current = Some(0);
        assert_eq!(s.advance(false, 0), Some(3));
    }
}
