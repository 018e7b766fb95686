//! Searching trajectories: the query (regex, or literal when it is not a valid regex), hits
//! in one trajectory, and step matches for the run-wide search. Pure functions, run in
//! tasks; the state only stores their results.

use crate::model::{Step, Trajectory};
use crate::text::sanitise;
use regex::{Regex, RegexBuilder};
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

/// The parts of a step that are searched and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    Tool,
    Thought,
    Action,
    Observation,
    /// What a person said (a user step), or a compaction's summary.
    User,
}

impl Field {
    pub const ALL: [Field; 5] = [
        Field::User,
        Field::Tool,
        Field::Thought,
        Field::Action,
        Field::Observation,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Field::Tool => "tool",
            Field::Thought => "thought",
            Field::Action => "action",
            Field::Observation => "observation",
            Field::User => "user",
        }
    }

    /// The field's text as displayed (sanitised): hits and document lines count the same lines.
    pub fn text(self, step: &Step) -> Cow<'_, str> {
        match self {
            Field::Tool => Cow::Borrowed(step.tool.as_deref().unwrap_or("")),
            Field::Thought => sanitise(&step.thought),
            Field::Action => sanitise(&step.action),
            Field::Observation => sanitise(&step.observation),
            Field::User => sanitise(&step.user),
        }
    }
}

/// What the user typed after `/`, compiled. Lower-case queries ignore case ("smart case").
#[derive(Debug, Clone)]
pub struct Query {
    pub text: String,
    pub regex: Regex,
    /// The text was not a valid regex and is matched literally.
    pub literal: bool,
}

impl Query {
    /// `None` for an empty query.
    pub fn new(text: &str) -> Option<Query> {
        if text.is_empty() {
            return None;
        }
        let ignore_case = !text.chars().any(char::is_uppercase);
        let build = |pattern: &str| {
            RegexBuilder::new(pattern)
                .case_insensitive(ignore_case)
                .size_limit(1 << 22)
                .build()
        };
        match build(text) {
            Ok(regex) => Some(Query {
                text: text.to_string(),
                regex,
                literal: false,
            }),
            Err(_) => build(&regex::escape(text)).ok().map(|regex| Query {
                text: text.to_string(),
                regex,
                literal: true,
            }),
        }
    }
}

impl PartialEq for Query {
    fn eq(&self, other: &Query) -> bool {
        self.text == other.text
    }
}

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
        for field in Field::ALL {
            let text = field.text(step);
            if !query.regex.is_match(&text) {
                continue;
            }
            for (line_no, line) in text.lines().enumerate() {
                for m in query.regex.find_iter(line) {
                    if m.start() == m.end() {
                        continue;
                    }
                    hits.push(Hit {
                        step: step.index,
                        field,
                        line: line_no,
                        start: m.start(),
                        end: m.end(),
                    });
                }
            }
        }
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
        for field in Field::ALL {
            let text = field.text(step);
            let Some(m) = query.regex.find(&text) else {
                continue;
            };
            let line_start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[m.start()..]
                .find('\n')
                .map_or(text.len(), |i| m.start() + i);
            found.push(StepMatch {
                step: step.index,
                field,
                snippet: snippet(&text[line_start..line_end], m.start() - line_start),
            });
            break;
        }
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
    use crate::model::Format;

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
    fn smart_case_and_literal_fallback() {
        let q = Query::new("syntaxerror").unwrap();
        assert!(!q.literal);
        assert!(q.regex.is_match("SyntaxError"));
        let q = Query::new("SyntaxError").unwrap();
        assert!(!q.regex.is_match("syntaxerror"));
        let q = Query::new("x = (").unwrap();
        assert!(q.literal, "an unbalanced paren is searched for as text");
        assert!(q.regex.is_match("    x = ("));
        assert!(Query::new("").is_none());
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
