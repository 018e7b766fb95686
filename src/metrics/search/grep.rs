//! `trajscope grep`: every match of one [`Query`] in the steps of a trajectory, with the
//! step, field, line and a one-line snippet split around the match for highlighting.

use super::{Match, Query, each_match};
use crate::metrics::field::Field;
use crate::model::Trajectory;
use serde::Serialize;
use std::ops::ControlFlow;

/// Characters of context kept on each side of a match in a long line.
const CONTEXT_BEFORE: usize = 60;
const CONTEXT_AFTER: usize = 100;

/// One match: where it is, and the line around it split for highlighting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepHit {
    /// 1-based step.
    pub step: usize,
    pub field: Field,
    /// 1-based line within the field's text.
    pub line: usize,
    /// Byte offsets of the match in the field's text as shown (escapes removed).
    pub start: usize,
    pub end: usize,
    /// The line around the match, control characters replaced, cut to a window when long.
    pub before: String,
    pub matched: String,
    pub after: String,
}

impl GrepHit {
    /// The snippet as one line.
    pub fn snippet(&self) -> String {
        format!("{}{}{}", self.before, self.matched, self.after)
    }
}

/// A query over some fields.
#[derive(Debug, Clone)]
pub struct Search {
    query: Query,
    field: Field,
}

impl Search {
    pub fn new(query: Query, field: Field) -> Search {
        Search { query, field }
    }

    /// Every match in `trajectory`, by step, then field in reading order, then position.
    pub fn find(&self, trajectory: &Trajectory) -> Vec<GrepHit> {
        let mut hits = Vec::new();
        for step in &trajectory.steps {
            let _ = each_match(step, &self.query, self.field, |m, text| {
                hits.push(hit(&m, text));
                ControlFlow::Continue(())
            });
        }
        hits
    }
}

fn hit(m: &Match, text: &str) -> GrepHit {
    let match_end = m.end.min(m.line_end).max(m.start);
    let before = &text[m.line_start..m.start];
    let after = &text[match_end..m.line_end];
    let before = if before.chars().count() > CONTEXT_BEFORE {
        let keep = before
            .char_indices()
            .rev()
            .nth(CONTEXT_BEFORE - 1)
            .map_or(0, |(i, _)| i);
        format!("…{}", &before[keep..])
    } else {
        before.to_string()
    };
    let after = match after.char_indices().nth(CONTEXT_AFTER) {
        Some((i, _)) => format!("{}…", &after[..i]),
        None => after.to_string(),
    };
    GrepHit {
        step: m.step,
        field: m.field,
        line: m.line + 1,
        start: m.start,
        end: m.end,
        before: clean(&before),
        matched: clean(&text[m.start..match_end]),
        after: clean(&after),
    }
}

/// Control characters left in shown text would garble a terminal.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' => ' ',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::search::{Case, SearchError};
    use crate::model::{Format, Step};

    fn trajectory() -> Trajectory {
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        t.steps = vec![
            Step {
                action: "python a.py".into(),
                observation:
                    "line one\nTraceback (most recent call last):\n  x\x1b[31m\nValueError: Error"
                        .into(),
                ..Step::default()
            },
            Step {
                thought: "the Error is fixed".into(),
                observation: format!("{}Error{}", "a".repeat(200), "b".repeat(200)),
                ..Step::default()
            },
        ];
        t.number_steps();
        t
    }

    fn search(pattern: &str, case: Case, regex_only: bool, field: Field) -> Search {
        Search::new(Query::with(pattern, case, regex_only).unwrap(), field)
    }

    #[test]
    fn finds_every_match_with_step_field_line_and_snippet() {
        let hits = search("Error", Case::Smart, false, Field::Any).find(&trajectory());
        let places: Vec<(usize, Field, usize)> =
            hits.iter().map(|h| (h.step, h.field, h.line)).collect();
        assert_eq!(
            places,
            vec![
                (1, Field::Observation, 4),
                (1, Field::Observation, 4),
                (2, Field::Thought, 1),
                (2, Field::Observation, 1),
            ]
        );
        assert_eq!(hits[0].before, "Value");
        assert_eq!(hits[0].matched, "Error");
        assert_eq!(hits[0].after, ": Error");
        assert!(hits[3].before.starts_with('…') && hits[3].after.ends_with('…'));
        assert_eq!(hits[3].before.chars().count(), CONTEXT_BEFORE + 1);
    }

    #[test]
    fn regex_field_and_case_options() {
        let t = trajectory();
        let tb = search(r"^Traceback", Case::Smart, true, Field::Observation);
        assert_eq!(tb.find(&t).len(), 1);
        let ci = search("error", Case::Ignore, false, Field::Thought);
        assert_eq!(ci.find(&t).len(), 1);
        // The escape is not shown, so it is not searched: `x` ends its line.
        let x = search(r"x$", Case::Smart, true, Field::Observation);
        let found = x.find(&t);
        assert_eq!((found[0].line, found[0].before.as_str()), (3, "  "));
        assert!(
            search(r"\x1b", Case::Smart, true, Field::Any)
                .find(&t)
                .is_empty()
        );
        assert!(matches!(
            Query::with("(", Case::Smart, true),
            Err(SearchError::Regex(_))
        ));
        assert_eq!(
            Query::with("x?", Case::Smart, true).unwrap_err(),
            SearchError::MatchesEmpty
        );
    }
}
