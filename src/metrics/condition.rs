//! Conditions on one step: the building block of a rule's `when` and of classifiers
//! ([`super::classifier`]). A condition tests a field's text (contains, prefix, suffix,
//! regex, empty), optionally case-insensitive, trimmed, on a window (the first or last N
//! characters, the first line) and with a minimum number of occurrences; or the step itself
//! (the log flagged it as failed, the tools it called); and combines tests with `all`, `any`
//! and `not`. Read from TOML by [`parse`]; evaluated with [`Condition::holds`].
//!
//! The order of the text pipeline is fixed and documented (docs/metrics.md): case folding,
//! then trimming, then the window, then the test. It is the order in which published
//! classifiers written in Python (`text.lower()[:200]`, `s.rstrip().split("\n")[0]`) compute,
//! so such a classifier translates without changing its meaning.

mod parse;

pub use parse::parse;

use super::field::{Field, tool_calls_of};
use super::rule::ToolCondition;
use crate::model::Step;
use regex::Regex;
use serde::{Serialize, Serializer};
use std::borrow::Cow;

/// A condition on one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// Every condition holds (an empty list holds).
    All(Vec<Condition>),
    /// At least one condition holds.
    Any(Vec<Condition>),
    Not(Box<Condition>),
    Text(TextTest),
    /// The log itself flagged the step as failed (Claude Code's `is_error`, an exit code).
    Failed(bool),
    /// The step called one of these tools.
    Tool(ToolCondition),
}

/// A test on the text of one field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextTest {
    /// The field; `any` holds when the test holds on one of the concrete fields.
    pub field: Field,
    pub op: TextOp,
    /// Compare lowercased text: the field and the strings are lowercased (Unicode, like
    /// Python's `str.lower`) before trimming and the window. For `regex`: the regex's
    /// case-insensitive flag, on the text as written.
    pub ignore_case: bool,
    pub trim: Option<Trim>,
    pub window: Option<Window>,
    /// With `contains` or `regex`: at least this many non-overlapping occurrences (1).
    pub at_least: usize,
}

/// What a text test looks for. Lists hold when one of their strings does.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TextOp {
    Contains(Vec<String>),
    Prefix(Vec<String>),
    Suffix(Vec<String>),
    Regex(Pattern),
    /// The (trimmed, windowed) text is empty (`true`) or not (`false`).
    Empty(bool),
}

/// Which whitespace to strip before the window: Unicode `White_Space` and the separator
/// controls U+001C..U+001F, the characters Python's `str.strip` strips (so that a
/// classifier written with `lstrip()` keeps its meaning).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trim {
    Start,
    End,
    Both,
}

/// The part of the text a test looks at. Lengths are in characters (Unicode scalar values,
/// as Python counts a `str`), never bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Window {
    First(usize),
    Last(usize),
    /// Up to the first newline (the whole text when there is none).
    FirstLine,
}

/// A compiled regex, compared and serialised by its source.
#[derive(Debug, Clone)]
pub struct Pattern(pub Regex);

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.as_str())
    }
}

/// One step's texts, lowercased at most once per field however many tests ask for it.
pub struct StepTexts<'s> {
    step: &'s Step,
    lowered: Vec<(Field, String)>,
}

impl<'s> StepTexts<'s> {
    pub fn new(step: &'s Step) -> StepTexts<'s> {
        StepTexts {
            step,
            lowered: Vec::new(),
        }
    }

    pub fn step(&self) -> &'s Step {
        self.step
    }

    fn lowered(&mut self, field: Field) -> &str {
        let at = match self.lowered.iter().position(|(f, _)| *f == field) {
            Some(at) => at,
            None => {
                let text = field.text(self.step).to_lowercase();
                self.lowered.push((field, text));
                self.lowered.len() - 1
            }
        };
        &self.lowered[at].1
    }
}

impl Condition {
    /// Whether the condition holds at the step of `texts`.
    pub fn holds(&self, texts: &mut StepTexts<'_>) -> bool {
        match self {
            Condition::All(all) => all.iter().all(|c| c.holds(texts)),
            Condition::Any(any) => any.iter().any(|c| c.holds(texts)),
            Condition::Not(inner) => !inner.holds(texts),
            Condition::Text(test) => test.holds(texts),
            Condition::Failed(wanted) => texts.step().failed == *wanted,
            Condition::Tool(tools) => tool_calls_of(texts.step()).iter().any(|t| tools.accepts(t)),
        }
    }
}

impl TextTest {
    fn holds(&self, texts: &mut StepTexts<'_>) -> bool {
        match self.field {
            Field::Any => Field::CONCRETE.iter().any(|f| self.holds_on(*f, texts)),
            field => self.holds_on(field, texts),
        }
    }

    fn holds_on(&self, field: Field, texts: &mut StepTexts<'_>) -> bool {
        let lower = self.ignore_case && !matches!(self.op, TextOp::Regex(_));
        let text: Cow<'_, str> = if lower {
            Cow::Borrowed(texts.lowered(field))
        } else {
            field.text(texts.step())
        };
        self.test(self.view(&text))
    }

    /// The text after trimming and the window.
    fn view<'t>(&self, text: &'t str) -> &'t str {
        let text = match self.trim {
            None => text,
            Some(Trim::Start) => text.trim_start_matches(is_space),
            Some(Trim::End) => text.trim_end_matches(is_space),
            Some(Trim::Both) => text.trim_matches(is_space),
        };
        match self.window {
            None => text,
            Some(Window::First(n)) => text
                .char_indices()
                .nth(n)
                .map_or(text, |(at, _)| &text[..at]),
            Some(Window::Last(n)) => match n.checked_sub(1) {
                None => "",
                Some(back) => text
                    .char_indices()
                    .rev()
                    .nth(back)
                    .map_or(text, |(at, _)| &text[at..]),
            },
            Some(Window::FirstLine) => text.split('\n').next().unwrap_or(""),
        }
    }

    fn test(&self, text: &str) -> bool {
        match &self.op {
            TextOp::Contains(needles) => needles.iter().any(|n| {
                let n = self.folded(n);
                if self.at_least <= 1 {
                    memchr::memmem::find(text.as_bytes(), n.as_bytes()).is_some()
                } else {
                    memchr::memmem::find_iter(text.as_bytes(), n.as_bytes())
                        .scan(0, |next, at| {
                            // Non-overlapping, like `str.count` and `str::matches`.
                            let keep = at >= *next;
                            if keep {
                                *next = at + n.len();
                            }
                            Some(keep)
                        })
                        .filter(|kept| *kept)
                        .nth(self.at_least - 1)
                        .is_some()
                }
            }),
            TextOp::Prefix(prefixes) => prefixes.iter().any(|p| text.starts_with(&*self.folded(p))),
            TextOp::Suffix(suffixes) => suffixes.iter().any(|s| text.ends_with(&*self.folded(s))),
            TextOp::Regex(Pattern(regex)) => {
                if self.at_least <= 1 {
                    regex.is_match(text)
                } else {
                    regex.find_iter(text).nth(self.at_least - 1).is_some()
                }
            }
            TextOp::Empty(wanted) => text.is_empty() == *wanted,
        }
    }

    /// A string of the test as compared: lowercased when the text is.
    fn folded<'a>(&self, s: &'a str) -> Cow<'a, str> {
        if self.ignore_case {
            Cow::Owned(s.to_lowercase())
        } else {
            Cow::Borrowed(s)
        }
    }
}

/// Whitespace as `trim` strips it (Python's `str.isspace`).
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(action: &str, observation: &str) -> Step {
        Step {
            action: action.into(),
            observation: observation.into(),
            ..Step::default()
        }
    }

    fn text(field: Field, op: TextOp) -> TextTest {
        TextTest {
            field,
            op,
            ignore_case: false,
            trim: None,
            window: None,
            at_least: 1,
        }
    }

    fn holds(test: TextTest, s: &Step) -> bool {
        Condition::Text(test).holds(&mut StepTexts::new(s))
    }

    #[test]
    fn windows_count_characters_and_trim_comes_first() {
        let s = step("  bash -lc \"ls\"}  \nmore", "ééé\nabc tail");
        let mut t = text(Field::Observation, TextOp::Contains(vec!["é".into()]));
        t.window = Some(Window::Last(9));
        assert!(
            !holds(t.clone(), &s),
            "the last 9 characters are `\\nabc tail`"
        );
        t.window = Some(Window::Last(10));
        assert!(holds(t.clone(), &s));
        t.window = Some(Window::First(1));
        assert!(
            holds(t.clone(), &s),
            "a window of one character holds a 2-byte é"
        );
        let mut brace = text(Field::Action, TextOp::Suffix(vec!["}".into()]));
        brace.window = Some(Window::FirstLine);
        assert!(!holds(brace.clone(), &s), "the first line ends in spaces");
        brace.trim = Some(Trim::End);
        assert!(
            !holds(brace.clone(), &s),
            "trimming the end leaves `more` last"
        );
        let one_line = step("  bash -lc \"ls\"}  \n \u{1c}", "");
        assert!(
            holds(brace, &one_line),
            "U+001C is whitespace to Python's strip"
        );
    }

    #[test]
    fn ignore_case_lowercases_before_the_window() {
        // `İ` lowercases to two characters, so the window of the lowercased text differs
        // from the lowercased window: the lowercased text is the one windowed.
        let s = step("", "İabc");
        let mut t = text(Field::Observation, TextOp::Contains(vec!["ab".into()]));
        t.ignore_case = true;
        t.window = Some(Window::First(3));
        assert!(!holds(t.clone(), &s));
        t.window = Some(Window::First(4));
        assert!(holds(t, &s));
        let mut upper = text(Field::Observation, TextOp::Prefix(vec!["İA".into()]));
        upper.ignore_case = true;
        assert!(holds(upper, &s), "the strings are lowercased too");
    }

    #[test]
    fn at_least_counts_non_overlapping_occurrences() {
        let s = step("", "aaaa: command not found\nx: command not found");
        let mut t = text(Field::Observation, TextOp::Contains(vec!["aa".into()]));
        t.at_least = 2;
        assert!(holds(t.clone(), &s));
        t.at_least = 3;
        assert!(!holds(t, &s), "`aaaa` holds `aa` twice, not three times");
        let mut cnf = text(
            Field::Observation,
            TextOp::Regex(Pattern(Regex::new("(?m)command not found$").unwrap())),
        );
        cnf.at_least = 2;
        assert!(holds(cnf, &s));
    }

    #[test]
    fn combinations_and_step_tests() {
        let mut s = step("python x.py", "");
        let empty = Condition::Text(text(Field::Observation, TextOp::Empty(true)));
        let py = Condition::Text(text(Field::Action, TextOp::Prefix(vec!["python".into()])));
        let both = Condition::All(vec![empty.clone(), py.clone()]);
        assert!(both.holds(&mut StepTexts::new(&s)));
        assert!(!Condition::Not(Box::new(both.clone())).holds(&mut StepTexts::new(&s)));
        assert!(!Condition::Failed(true).holds(&mut StepTexts::new(&s)));
        s.failed = true;
        s.tool = Some("python".into());
        let any = Condition::Any(vec![
            Condition::Failed(false),
            Condition::Tool(ToolCondition::Any),
        ]);
        assert!(any.holds(&mut StepTexts::new(&s)));
        let anywhere = Condition::Text(text(Field::Any, TextOp::Contains(vec!["x.py".into()])));
        assert!(anywhere.holds(&mut StepTexts::new(&s)));
    }
}
