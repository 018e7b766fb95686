//! `trajscope grep`: every match of one pattern in the steps of a trajectory, with the step,
//! field, line and a one-line snippet. Same pattern semantics as rules: literal unless
//! `regex`, `^`/`$` at line ends, non-overlapping matches.

use super::field::Field;
use crate::model::Trajectory;
use regex::Regex;
use serde::Serialize;

/// Characters of context kept on each side of a match in a long line.
const CONTEXT_BEFORE: usize = 60;
const CONTEXT_AFTER: usize = 100;

/// A pattern that could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    #[error("invalid regex: {0}")]
    Regex(String),
    #[error("the pattern matches the empty string, so it would match everywhere")]
    MatchesEmpty,
}

/// One match: where it is, and the line around it split for highlighting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepHit {
    /// 1-based step.
    pub step: usize,
    pub field: Field,
    /// 1-based line within the field's text.
    pub line: usize,
    /// Byte offsets of the match in the field's text.
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

/// A compiled search.
#[derive(Debug, Clone)]
pub struct Search {
    regex: Regex,
    field: Field,
}

impl Search {
    pub fn new(
        pattern: &str,
        regex: bool,
        ignore_case: bool,
        field: Field,
    ) -> Result<Search, SearchError> {
        let body = if regex {
            pattern.to_string()
        } else {
            regex::escape(pattern)
        };
        let flags = if ignore_case { "(?mi)" } else { "(?m)" };
        let regex = Regex::new(&format!("{flags}{body}")).map_err(|e| {
            let text = e.to_string();
            SearchError::Regex(
                text.lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .trim()
                    .trim_start_matches("error: ")
                    .to_string(),
            )
        })?;
        if regex.is_match("") {
            return Err(SearchError::MatchesEmpty);
        }
        Ok(Search { regex, field })
    }

    /// Every match in `trajectory`, by step, then field, then position.
    pub fn find(&self, trajectory: &Trajectory) -> Vec<GrepHit> {
        let mut hits = Vec::new();
        for step in &trajectory.steps {
            for field in Field::CONCRETE {
                if !self.field.covers(field) {
                    continue;
                }
                let text = field.text(step);
                let mut line = 1;
                let mut counted_to = 0;
                for m in self.regex.find_iter(&text) {
                    line +=
                        memchr::memchr_iter(b'\n', &text.as_bytes()[counted_to..m.start()]).count();
                    counted_to = m.start();
                    hits.push(hit(step.index, field, line, &text, m.start(), m.end()));
                }
            }
        }
        hits
    }
}

fn hit(step: usize, field: Field, line: usize, text: &str, start: usize, end: usize) -> GrepHit {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let match_end = end.min(line_end).max(start);
    let before = &text[line_start..start];
    let after = &text[match_end..line_end];
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
        step,
        field,
        line,
        start,
        end,
        before: clean(&before),
        matched: clean(&text[start..match_end]),
        after: clean(&after),
    }
}

/// Control characters (ANSI escapes, carriage returns) would garble a terminal.
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

    #[test]
    fn finds_every_match_with_step_field_line_and_snippet() {
        let search = Search::new("Error", false, false, Field::Any).unwrap();
        let hits = search.find(&trajectory());
        let places: Vec<(usize, Field, usize)> =
            hits.iter().map(|h| (h.step, h.field, h.line)).collect();
        assert_eq!(
            places,
            vec![
                (1, Field::Observation, 4),
                (1, Field::Observation, 4),
                (2, Field::Observation, 1),
                (2, Field::Thought, 1)
            ]
        );
        assert_eq!(hits[0].before, "Value");
        assert_eq!(hits[0].matched, "Error");
        assert_eq!(hits[0].after, ": Error");
        assert!(hits[2].before.starts_with('…') && hits[2].after.ends_with('…'));
        assert_eq!(hits[2].before.chars().count(), CONTEXT_BEFORE + 1);
    }

    #[test]
    fn regex_field_and_case_options() {
        let t = trajectory();
        let tb = Search::new(r"^Traceback", true, false, Field::Observation).unwrap();
        assert_eq!(tb.find(&t).len(), 1);
        let ci = Search::new("error", false, true, Field::Thought).unwrap();
        assert_eq!(ci.find(&t).len(), 1);
        let x = Search::new(r"x.\[31m", true, false, Field::Observation).unwrap();
        assert_eq!(
            x.find(&t)[0].matched,
            "x\u{fffd}[31m",
            "escape characters are replaced"
        );
        assert!(matches!(
            Search::new("(", true, false, Field::Any),
            Err(SearchError::Regex(_))
        ));
        assert_eq!(
            Search::new("x?", true, false, Field::Any).unwrap_err(),
            SearchError::MatchesEmpty
        );
    }
}
