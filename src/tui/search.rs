//! Searching in the app: hits in the open trajectory (`/`) and step matches for the run-wide
//! search (ctrl-f), both found by the one search of [`crate::metrics::search`] (the same
//! pattern rule, fields and shown text as `trajscope grep`). Pure functions, run in tasks;
//! the state only stores their results.

use crate::metrics::each_match;
pub use crate::metrics::{Field, Query};
use crate::model::Trajectory;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

/// One match: step (1-based), field, line within the field, byte range within the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub step: usize,
    pub field: Field,
    pub line: usize,
    pub start: usize,
    pub end: usize,
}

/// More hits than anyone can step through; the count says "10000+".
pub const MAX_HITS: usize = 10_000;

/// Every match of `query` in `trajectory`, in reading order. Stops early (returning what it
/// has) when `cancel` is set: a newer search replaced this one.
pub fn find(trajectory: &Trajectory, query: &Query, cancel: &AtomicBool) -> Vec<Hit> {
    let mut hits = Vec::new();
    // A lazy trajectory whose file changed stops the search where it could no longer read;
    // the step pages say why.
    let _ = trajectory.visit_steps(|step| {
        if cancel.load(Ordering::Relaxed) || hits.len() >= MAX_HITS {
            return false;
        }
        let _ = each_match(step, query, Field::Any, |m, _| {
            // Hits are marked line by line: one that runs past its line ends there.
            hits.push(Hit {
                step: m.step,
                field: m.field,
                line: m.line,
                start: m.start - m.line_start,
                end: m.end.min(m.line_end) - m.line_start,
            });
            ControlFlow::Continue(())
        });
        true
    });
    hits.truncate(MAX_HITS);
    hits
}

/// A step of some trajectory that contains the run-wide query.
#[derive(Debug, Clone, PartialEq)]
pub struct StepMatch {
    pub step: usize,
    pub field: Field,
    /// The matching line, trimmed and clipped around the match.
    pub snippet: String,
}

/// The steps of `trajectory` that contain `query`: the first matching field of each.
pub fn grep(trajectory: &Trajectory, query: &Query) -> Vec<StepMatch> {
    let mut found = Vec::new();
    for step in &trajectory.steps {
        let _ = each_match(step, query, Field::Any, |m, text| {
            found.push(StepMatch {
                step: m.step,
                field: m.field,
                snippet: snippet(&text[m.line_start..m.line_end], m.start - m.line_start),
            });
            ControlFlow::Break(())
        });
    }
    found
}

/// Up to ~100 characters of `line` around byte `at`, trimmed.
fn snippet(line: &str, at: usize) -> String {
    let mut start = at.saturating_sub(40);
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    let tail: String = line[start..].chars().take(100).collect();
    let prefix = if start > 0 { "…" } else { "" };
    format!("{prefix}{}", tail.trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Step};

    fn trajectory() -> Trajectory {
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        t.steps.push(Step {
            action: "ls".into(),
            observation: "a.py\nb.py".into(),
            tool: Some("bash".into()),
            ..Step::default()
        });
        t.steps.push(Step {
            thought: "Run it".into(),
            action: "python a.py".into(),
            observation: "  File \"a.py\", line 1\n    x = (\nSyntaxError: invalid syntax\n\u{1b}[31mError\u{1b}[0m again".into(),
            ..Step::default()
        });
        t.number_steps();
        t
    }

    #[test]
    fn hits_carry_step_field_line_and_range_on_sanitised_text() {
        let t = trajectory();
        let q = Query::new("error").unwrap();
        let hits = find(&t, &q, &AtomicBool::new(false));
        assert_eq!(hits.len(), 2, "{hits:?}");
        assert_eq!(
            hits[0],
            Hit {
                step: 2,
                field: Field::Observation,
                line: 2,
                start: 6,
                end: 11
            }
        );
        // The escape codes are gone, so the range points at the visible word.
        assert_eq!((hits[1].line, hits[1].start, hits[1].end), (3, 0, 5));
        let q = Query::new("a\\.py").unwrap();
        let hits = find(&t, &q, &AtomicBool::new(false));
        let steps: Vec<(usize, Field)> = hits.iter().map(|h| (h.step, h.field)).collect();
        assert_eq!(
            steps,
            [
                (1, Field::Observation),
                (2, Field::Action),
                (2, Field::Observation)
            ]
        );
    }

    #[test]
    fn a_cancelled_search_stops() {
        let q = Query::new("py").unwrap();
        assert!(find(&trajectory(), &q, &AtomicBool::new(true)).is_empty());
    }

    #[test]
    fn grep_names_the_first_matching_field_per_step() {
        let t = trajectory();
        let found = grep(&t, &Query::new("invalid syntax").unwrap());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].step, 2);
        assert_eq!(found[0].field, Field::Observation);
        assert_eq!(found[0].snippet, "SyntaxError: invalid syntax");
    }
}
