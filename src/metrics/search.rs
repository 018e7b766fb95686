//! The one search of trajscope: `trajscope grep`, the TUI's `/` and its run-wide search
//! (ctrl-f) all compile a pattern with [`Query`] and find its matches with [`each_match`],
//! so the same pattern finds the same places everywhere.
//!
//! The rule, as users read it (docs/metrics.md, docs/tui.md): a pattern is a regular
//! expression (`^`/`$` at line ends); one that is not a valid regex is searched for as
//! literal text (`right)` finds `right)`). A pattern in lower case ignores case, one
//! capital makes it exact. Matches are found in the text as it is shown (terminal escapes
//! removed, [`crate::text::sanitise`]), in the fields a rule's `any` covers.

mod grep;

pub use grep::{GrepHit, Search};

use super::field::Field;
use crate::model::Step;
use crate::text::sanitise;
use regex::{Regex, RegexBuilder};
use std::borrow::Cow;
use std::ops::ControlFlow;

/// A pattern that cannot be searched for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    #[error("nothing to search for")]
    Empty,
    #[error("invalid regex: {0}")]
    Regex(String),
    #[error("the pattern matches the empty string, so it would match everywhere")]
    MatchesEmpty,
}

/// How letter case counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Case {
    /// Lower case ignores case, any capital makes the pattern exact.
    #[default]
    Smart,
    Ignore,
    Exact,
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Query {
    /// What the user typed.
    pub text: String,
    pub regex: Regex,
    /// The text was not a valid regex and is matched literally.
    pub literal: bool,
}

impl PartialEq for Query {
    fn eq(&self, other: &Query) -> bool {
        self.text == other.text && self.regex.as_str() == other.regex.as_str()
    }
}

impl Query {
    /// `text` under the rule: a regex, or literal text when it is not one; smart case.
    pub fn new(text: &str) -> Result<Query, SearchError> {
        Query::with(text, Case::Smart, false)
    }

    /// `text` with an explicit case rule; `regex_only` makes an invalid regex an error
    /// instead of literal text (`trajscope grep --regex`).
    pub fn with(text: &str, case: Case, regex_only: bool) -> Result<Query, SearchError> {
        if text.is_empty() {
            return Err(SearchError::Empty);
        }
        let ignore_case = match case {
            Case::Smart => !text.chars().any(char::is_uppercase),
            Case::Ignore => true,
            Case::Exact => false,
        };
        let build = |pattern: &str| {
            RegexBuilder::new(pattern)
                .case_insensitive(ignore_case)
                .multi_line(true)
                .size_limit(1 << 22)
                .build()
        };
        let (regex, literal) = match build(text) {
            Ok(regex) => (regex, false),
            Err(err) if regex_only => return Err(SearchError::Regex(last_line(&err))),
            Err(_) => (
                build(&regex::escape(text)).map_err(|e| SearchError::Regex(last_line(&e)))?,
                true,
            ),
        };
        if regex.is_match("") {
            return Err(SearchError::MatchesEmpty);
        }
        Ok(Query {
            text: text.to_string(),
            regex,
            literal,
        })
    }
}

/// The useful line of a regex error (the last one, without `error: `).
fn last_line(err: &regex::Error) -> String {
    err.to_string()
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .trim_start_matches("error: ")
        .to_string()
}

/// The concrete fields `field` stands for, in reading order (what a person said, the tool,
/// thought, action, observation, then the raw response): the order hits are reported in.
pub fn fields_of(field: Field) -> impl Iterator<Item = Field> {
    const READING_ORDER: [Field; 6] = [
        Field::User,
        Field::Tool,
        Field::Thought,
        Field::Action,
        Field::Observation,
        Field::Response,
    ];
    READING_ORDER.into_iter().filter(move |f| field.covers(*f))
}

/// The text of `field` of `step` as it is shown and searched: terminal escapes removed.
pub fn shown_text(field: Field, step: &Step) -> Cow<'_, str> {
    match field.text(step) {
        Cow::Borrowed(text) => sanitise(text),
        Cow::Owned(text) => Cow::Owned(sanitise(&text).into_owned()),
    }
}

/// Whether the raw response only repeats the step's thought and action (SWE-agent keeps
/// both, joined): searching all fields skips it then, or every match would count twice.
fn response_repeats(step: &Step) -> bool {
    let (thought, action) = (step.thought.trim(), step.action.trim());
    (!thought.is_empty() || !action.is_empty())
        && step.response.contains(thought)
        && step.response.contains(action)
}

/// A match of a query in one field of one step. Offsets are bytes in the field's shown
/// text ([`shown_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    /// 1-based step.
    pub step: usize,
    pub field: Field,
    /// 0-based line of the match's start within the field.
    pub line: usize,
    /// Where that line starts and ends.
    pub line_start: usize,
    pub line_end: usize,
    pub start: usize,
    pub end: usize,
}

/// Calls `found` with every match of `query` in the fields `field` stands for of `step`, in
/// reading order, then by position; stops when `found` breaks.
pub fn each_match(
    step: &Step,
    query: &Query,
    field: Field,
    mut found: impl FnMut(Match, &str) -> ControlFlow<()>,
) -> ControlFlow<()> {
    for concrete in fields_of(field) {
        if field == Field::Any && concrete == Field::Response && response_repeats(step) {
            continue;
        }
        let text = shown_text(concrete, step);
        let mut line = 0;
        let mut counted_to = 0;
        for m in query.regex.find_iter(&text) {
            if m.start() == m.end() {
                continue;
            }
            line += memchr::memchr_iter(b'\n', &text.as_bytes()[counted_to..m.start()]).count();
            counted_to = m.start();
            let line_start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[m.start()..]
                .find('\n')
                .map_or(text.len(), |i| m.start() + i);
            let at = Match {
                step: step.index,
                field: concrete,
                line,
                line_start,
                line_end,
                start: m.start(),
                end: m.end(),
            };
            found(at, &text)?;
        }
    }
    ControlFlow::Continue(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_with_a_literal_fallback_and_smart_case() {
        let q = Query::new("syntaxerror").unwrap();
        assert!(!q.literal);
        assert!(q.regex.is_match("SyntaxError"));
        let q = Query::new("SyntaxError").unwrap();
        assert!(!q.regex.is_match("syntaxerror"));
        let q = Query::new("x = (").unwrap();
        assert!(q.literal, "an unbalanced paren is searched for as text");
        assert!(q.regex.is_match("    x = ("));
        assert_eq!(Query::new("").unwrap_err(), SearchError::Empty);
        assert_eq!(Query::new("x?").unwrap_err(), SearchError::MatchesEmpty);
        assert!(matches!(
            Query::with("(", Case::Smart, true),
            Err(SearchError::Regex(_))
        ));
        assert!(
            Query::with("error", Case::Exact, false)
                .unwrap()
                .regex
                .is_match("error")
        );
        assert!(
            !Query::with("error", Case::Exact, false)
                .unwrap()
                .regex
                .is_match("Error")
        );
        assert!(
            Query::with("Error", Case::Ignore, false)
                .unwrap()
                .regex
                .is_match("ERROR")
        );
    }

    #[test]
    fn a_response_that_repeats_thought_and_action_is_searched_only_by_name() {
        let step = Step {
            index: 1,
            thought: "Look at the files".into(),
            action: "ls".into(),
            response: "Look at the files\n```\nls\n```".into(),
            ..Step::default()
        };
        let q = Query::new("files").unwrap();
        let mut any = Vec::new();
        let _ = each_match(&step, &q, Field::Any, |m, _| {
            any.push(m.field);
            ControlFlow::Continue(())
        });
        assert_eq!(any, [Field::Thought]);
        let mut response = Vec::new();
        let _ = each_match(&step, &q, Field::Response, |m, _| {
            response.push(m.field);
            ControlFlow::Continue(())
        });
        assert_eq!(response, [Field::Response]);
        let own = Step {
            response: "the files are listed".into(),
            ..step
        };
        let mut fields = Vec::new();
        let _ = each_match(&own, &q, Field::Any, |m, _| {
            fields.push(m.field);
            ControlFlow::Continue(())
        });
        assert_eq!(fields, [Field::Thought, Field::Response]);
    }
}
