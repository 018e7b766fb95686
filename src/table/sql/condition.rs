//! A rule's `when`, a classifier's conditions and a pattern's count as SQL expressions over
//! one row of the steps relation. The text pipeline is the rule language's, step for step:
//! lowercase (the whole text, then trim and window, as `metrics::condition` does), trim
//! Python's whitespace, take a window in characters, then test.

use super::dialect::Dialect;
use super::regex::{EngineRegex, translate};
use crate::metrics::Field;
use crate::metrics::ToolCondition;
use crate::metrics::condition::{Condition, TextOp, TextTest, Trim, Window};

/// What the expressions are for: the dialect, and the rule named in guard errors.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub dialect: Dialect,
    pub rule: &'a str,
}

/// The column holding a concrete field's text (`user` is a keyword to both engines).
pub fn column(field: Field, dialect: Dialect) -> &'static str {
    match (field, dialect) {
        (Field::Observation, _) => "observation",
        (Field::Action, _) => "action",
        (Field::Thought, _) => "thought",
        (Field::Response, _) => "response",
        (Field::Tool, _) => "tool",
        (Field::User, Dialect::DuckDb) => "\"user\"",
        (Field::User, Dialect::Spark) => "`user`",
        (Field::Any, _) => "''",
    }
}

/// The concrete fields `field` searches.
pub fn fields(field: Field) -> Vec<Field> {
    Field::CONCRETE
        .into_iter()
        .filter(|f| field.covers(*f))
        .collect()
}

impl Context<'_> {
    /// Matches of the regex `source` (Rust syntax, flags included) in the column `text`.
    pub fn regex_count(&self, text: &str, source: &str) -> Result<String, String> {
        let regex = translate(source, self.dialect)?;
        let count = self.dialect.regex_count(text, &regex.pattern);
        Ok(self.guarded(text, &regex, count))
    }

    /// Whether the regex `source` matches in `text`.
    pub fn regex_matches(&self, text: &str, source: &str) -> Result<String, String> {
        let regex = translate(source, self.dialect)?;
        let test = self.dialect.regex_matches(text, &regex.pattern);
        Ok(match &regex.boundary_guard {
            None => test,
            Some(_) => format!(
                "({} > 0)",
                self.guarded(text, &regex, format!("CASE WHEN {test} THEN 1 ELSE 0 END"))
            ),
        })
    }

    /// `count`, or an error where RE2's ASCII word boundary could disagree with Rust's.
    fn guarded(&self, text: &str, regex: &EngineRegex, count: String) -> String {
        let Some(guard) = &regex.boundary_guard else {
            return count;
        };
        let d = self.dialect;
        format!(
            "CASE WHEN {} AND {} THEN {} ELSE {count} END",
            d.regex_matches(text, &guard.near),
            d.regex_matches(text, &guard.relaxed),
            d.fail(&format!(
                "trajscope: rule `{}` has a word boundary (\\b) and a text holds a non-ASCII letter or digit next to where it is tested; RE2's \\b is ASCII-only, so DuckDB cannot count it as trajscope does (run the Spark query, or write the boundary as (?-u:\\b))",
                self.rule
            ))
        )
    }

    pub fn condition(&self, condition: &Condition) -> Result<String, String> {
        Ok(match condition {
            Condition::All(all) if all.is_empty() => "TRUE".into(),
            Condition::Any(any) if any.is_empty() => "FALSE".into(),
            Condition::All(all) => self.joined(all, " AND ")?,
            Condition::Any(any) => self.joined(any, " OR ")?,
            Condition::Not(inner) => format!("(NOT {})", self.condition(inner)?),
            Condition::Text(test) => {
                let parts = fields(test.field)
                    .into_iter()
                    .map(|f| self.text_test(test, f))
                    .collect::<Result<Vec<_>, _>>()?;
                format!("({})", parts.join(" OR "))
            }
            Condition::Failed(true) => "failed".into(),
            Condition::Failed(false) => "(NOT failed)".into(),
            Condition::Tool(tools) => format!("({} > 0)", self.tool_calls(tools)),
        })
    }

    fn joined(&self, parts: &[Condition], with: &str) -> Result<String, String> {
        let parts = parts
            .iter()
            .map(|c| self.condition(c))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(format!("({})", parts.join(with)))
    }

    /// The tool calls a `tool` condition accepts.
    pub fn tool_calls(&self, tools: &ToolCondition) -> String {
        match tools {
            ToolCondition::Any => "tool_call_count".into(),
            ToolCondition::Named(names) => self.dialect.tool_calls_named(names),
        }
    }

    fn text_test(&self, test: &TextTest, field: Field) -> Result<String, String> {
        let d = self.dialect;
        let regex = matches!(test.op, TextOp::Regex(_));
        let mut text = column(field, d).to_string();
        if test.ignore_case && !regex {
            text = d.lower(&text, self.rule);
        }
        // Python's `str.isspace`: Unicode White_Space and the separators U+001C..U+001F.
        let space = python_space_class();
        text = match test.trim {
            None => text,
            Some(Trim::Start) => d.regex_strip(&text, &format!(r"\A{space}+")),
            Some(Trim::End) => d.regex_strip(&text, &format!(r"{space}+\z")),
            Some(Trim::Both) => d.regex_strip(
                &d.regex_strip(&text, &format!(r"\A{space}+")),
                &format!(r"{space}+\z"),
            ),
        };
        text = match test.window {
            None => text,
            Some(Window::First(n)) => format!("left({text}, {n})"),
            Some(Window::Last(0)) => "''".into(),
            Some(Window::Last(n)) => format!("right({text}, {n})"),
            Some(Window::FirstLine) => d.first_line(&text),
        };
        let fold = |s: &String| {
            if test.ignore_case {
                s.to_lowercase()
            } else {
                s.clone()
            }
        };
        let any = |parts: Vec<String>| format!("({})", parts.join(" OR "));
        Ok(match &test.op {
            TextOp::Contains(needles) if test.at_least <= 1 => any(needles
                .iter()
                .map(|n| d.contains(&text, &fold(n)))
                .collect()),
            TextOp::Contains(needles) => {
                if needles.iter().any(|n| n.is_empty()) {
                    return Err("`contains` an empty string with `at_least`".into());
                }
                any(needles
                    .iter()
                    .map(|n| format!("{} >= {}", d.literal_count(&text, &fold(n)), test.at_least))
                    .collect())
            }
            TextOp::Prefix(prefixes) => any(prefixes
                .iter()
                .map(|p| d.starts_with(&text, &fold(p)))
                .collect()),
            TextOp::Suffix(suffixes) => any(suffixes
                .iter()
                .map(|s| d.ends_with(&text, &fold(s)))
                .collect()),
            TextOp::Regex(pattern) if test.at_least <= 1 => {
                self.regex_matches(&text, pattern.0.as_str())?
            }
            TextOp::Regex(pattern) => format!(
                "({} >= {})",
                self.regex_count(&text, pattern.0.as_str())?,
                test.at_least
            ),
            TextOp::Empty(true) => format!("({text} = '')"),
            TextOp::Empty(false) => format!("({text} <> '')"),
        })
    }
}

/// A regex class of the characters `trim` strips (the rule language's, Python's).
pub fn python_space_class() -> String {
    space_class(|c| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// A regex class of the characters Rust's `str::trim` strips (Unicode White_Space).
pub fn rust_space_class() -> String {
    space_class(char::is_whitespace)
}

fn space_class(is_space: impl Fn(char) -> bool) -> String {
    let mut out = String::from("[");
    let mut start: Option<u32> = None;
    // White_Space lies below U+3001.
    for c in 0..=0x3001u32 {
        let inside = char::from_u32(c).is_some_and(&is_space);
        match (inside, start) {
            (true, None) => start = Some(c),
            (false, Some(s)) => {
                if c - 1 > s {
                    out.push_str(&format!(r"\x{{{s:X}}}-\x{{{:X}}}", c - 1));
                } else {
                    out.push_str(&format!(r"\x{{{s:X}}}"));
                }
                start = None;
            }
            _ => {}
        }
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_classes_hold_what_trim_strips() {
        let python = python_space_class();
        assert!(
            python.starts_with(r"[\x{9}-\x{D}\x{1C}-\x{20}\x{85}\x{A0}"),
            "{python}"
        );
        assert!(python.ends_with(r"\x{3000}]"), "{python}");
        let rust = rust_space_class();
        assert!(rust.starts_with(r"[\x{9}-\x{D}\x{20}"), "{rust}");
    }
}
