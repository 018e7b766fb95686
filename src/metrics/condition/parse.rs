//! Conditions from TOML. A condition is a table holding one test or one combination:
//!
//! ```toml
//! when = { field = "observation", contains = "command not found", at_least = 2, ignore_case = true }
//! when = { all = [ { field = "action", trim = "start", prefix = "bash -lc", ignore_case = true },
//!                  { not = { failed = true } } ] }
//! ```
//!
//! A list is short for `all`. Errors are one line, naming the key and where in the nesting
//! it is (`any[2].contains`), for the caller to prefix with the file, line and rule.

use super::{Condition, Pattern, TextOp, TextTest, Trim, Window};
use crate::metrics::field::Field;
use crate::metrics::rule::ToolCondition;
use regex::Regex;
use toml::Value;

/// The keys of a text test.
const TEXT_KEYS: &[&str] = &[
    "field",
    "contains",
    "prefix",
    "suffix",
    "regex",
    "empty",
    "ignore_case",
    "trim",
    "first",
    "last",
    "first_line",
    "at_least",
];

const OPS: &[&str] = &["contains", "prefix", "suffix", "regex", "empty"];

/// Reads a condition; `at` names its place in messages (`when`, `case 2.when`).
pub fn parse(value: &Value, at: &str) -> Result<Condition, String> {
    match value {
        Value::Array(items) => Ok(Condition::All(list(items, at)?)),
        Value::Table(table) => table_condition(table, at),
        other => Err(format!(
            "`{at}` must be a table (a test or all/any/not) or a list, not {}",
            other.type_str()
        )),
    }
}

fn list(items: &[Value], at: &str) -> Result<Vec<Condition>, String> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| parse(item, &format!("{at}[{}]", i + 1)))
        .collect()
}

fn table_condition(table: &toml::Table, at: &str) -> Result<Condition, String> {
    for combinator in ["all", "any", "not", "failed", "tool"] {
        let Some(value) = table.get(combinator) else {
            continue;
        };
        if table.len() > 1 {
            return Err(format!(
                "`{at}`: `{combinator}` stands alone in its table (combine tests with `all`)"
            ));
        }
        let here = format!("{at}.{combinator}");
        return match (combinator, value) {
            ("all", Value::Array(items)) => Ok(Condition::All(list(items, &here)?)),
            ("any", Value::Array(items)) => Ok(Condition::Any(list(items, &here)?)),
            ("not", inner) => Ok(Condition::Not(Box::new(parse(inner, &here)?))),
            ("failed", Value::Boolean(b)) => Ok(Condition::Failed(*b)),
            ("tool", value) => tool(value, &here).map(Condition::Tool),
            (_, other) => Err(format!(
                "`{here}` must be {}, not {}",
                if combinator == "failed" {
                    "true or false"
                } else {
                    "a list of conditions"
                },
                other.type_str()
            )),
        };
    }
    text_test(table, at).map(Condition::Text)
}

fn tool(value: &Value, at: &str) -> Result<ToolCondition, String> {
    let names: Option<Vec<String>> = match value {
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(items) => items.iter().map(|i| i.as_str().map(String::from)).collect(),
        _ => None,
    };
    match names {
        Some(names) if !names.is_empty() && names.iter().all(|n| !n.is_empty()) => {
            if names.iter().any(|n| n == "*") {
                Ok(ToolCondition::Any)
            } else {
                Ok(ToolCondition::Named(names))
            }
        }
        _ => Err(format!(
            "`{at}` must be a tool name, a list of names, or \"*\""
        )),
    }
}

fn text_test(table: &toml::Table, at: &str) -> Result<TextTest, String> {
    if let Some(key) = table.keys().find(|k| !TEXT_KEYS.contains(&k.as_str())) {
        return Err(format!(
            "`{at}`: unknown key `{key}` (a test has field, one of {}, and ignore_case, trim, first, last, first_line, at_least; or use all, any, not, failed, tool)",
            OPS.join(", ")
        ));
    }
    let field = match table.get("field") {
        Some(Value::String(name)) => Field::from_name(name).ok_or_else(|| {
            let known: Vec<&str> = Field::CONCRETE
                .iter()
                .chain([Field::Any].iter())
                .map(|f| f.name())
                .collect();
            format!(
                "`{at}.field`: unknown field `{name}` (one of {})",
                known.join(", ")
            )
        })?,
        Some(other) => {
            return Err(format!(
                "`{at}.field` must be a string, not {}",
                other.type_str()
            ));
        }
        None => return Err(format!("`{at}`: a test needs a `field`")),
    };
    let flag = |key: &str| -> Result<bool, String> {
        match table.get(key) {
            None => Ok(false),
            Some(Value::Boolean(b)) => Ok(*b),
            Some(other) => Err(format!(
                "`{at}.{key}` must be true or false, not {}",
                other.type_str()
            )),
        }
    };
    let count = |key: &str| -> Result<Option<usize>, String> {
        match table.get(key) {
            None => Ok(None),
            Some(Value::Integer(n)) if *n >= 1 => Ok(usize::try_from(*n).ok()),
            Some(_) => Err(format!("`{at}.{key}` must be a whole number of 1 or more")),
        }
    };
    let ignore_case = flag("ignore_case")?;
    let ops: Vec<&str> = OPS
        .iter()
        .copied()
        .filter(|k| table.contains_key(*k))
        .collect();
    let op = match ops.as_slice() {
        [one] => *one,
        [] => {
            return Err(format!("`{at}`: a test needs one of {}", OPS.join(", ")));
        }
        many => {
            return Err(format!(
                "`{at}`: one test per table, not {} (combine tests with `all` or `any`)",
                many.join(" and ")
            ));
        }
    };
    let here = format!("{at}.{op}");
    let Some(value) = table.get(op) else {
        return Err(format!("`{here}` is missing"));
    };
    let op = match op {
        "empty" => match value {
            Value::Boolean(b) => TextOp::Empty(*b),
            other => {
                return Err(format!(
                    "`{here}` must be true or false, not {}",
                    other.type_str()
                ));
            }
        },
        "regex" => match value {
            Value::String(source) => {
                let flags = if ignore_case { "(?mi)" } else { "(?m)" };
                let regex = Regex::new(&format!("{flags}{source}")).map_err(|err| {
                    let last = err.to_string();
                    let last = last
                        .lines()
                        .rev()
                        .find(|l| !l.trim().is_empty())
                        .unwrap_or("");
                    format!(
                        "`{here}`: invalid regex: {}",
                        last.trim().trim_start_matches("error: ")
                    )
                })?;
                TextOp::Regex(Pattern(regex))
            }
            other => {
                return Err(format!(
                    "`{here}` must be a string, not {}",
                    other.type_str()
                ));
            }
        },
        kind => {
            let strings: Option<Vec<String>> = match value {
                Value::String(s) => Some(vec![s.clone()]),
                Value::Array(items) => items.iter().map(|i| i.as_str().map(String::from)).collect(),
                _ => None,
            };
            let strings = match strings {
                Some(s) if !s.is_empty() && s.iter().all(|s| !s.is_empty()) => s,
                _ => {
                    return Err(format!(
                        "`{here}` must be a non-empty string or a list of them"
                    ));
                }
            };
            match kind {
                "contains" => TextOp::Contains(strings),
                "prefix" => TextOp::Prefix(strings),
                _ => TextOp::Suffix(strings),
            }
        }
    };
    let at_least = count("at_least")?;
    if at_least.is_some() && !matches!(op, TextOp::Contains(_) | TextOp::Regex(_)) {
        return Err(format!(
            "`{at}.at_least` only works with `contains` or `regex`"
        ));
    }
    let trim = match table.get("trim") {
        None => None,
        Some(Value::String(s)) if s == "start" => Some(Trim::Start),
        Some(Value::String(s)) if s == "end" => Some(Trim::End),
        Some(Value::String(s)) if s == "both" => Some(Trim::Both),
        Some(Value::Boolean(true)) => Some(Trim::Both),
        Some(_) => {
            return Err(format!(
                "`{at}.trim` must be \"start\", \"end\" or \"both\""
            ));
        }
    };
    let windows = [
        count("first")?.map(Window::First),
        count("last")?.map(Window::Last),
        flag("first_line")?.then_some(Window::FirstLine),
    ];
    let mut windows = windows.into_iter().flatten();
    let window = windows.next();
    if windows.next().is_some() {
        return Err(format!(
            "`{at}`: one window per test (first, last or first_line)"
        ));
    }
    Ok(TextTest {
        field,
        op,
        ignore_case,
        trim,
        window,
        at_least: at_least.unwrap_or(1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Condition, String> {
        let table: toml::Table = toml::from_str(text).unwrap();
        parse(&table["when"], "when")
    }

    #[test]
    fn tests_combinations_and_shorthands() {
        let c = read(
            "when = { any = [ { field = \"action\", trim = \"start\", prefix = [\"applypatch\", \"apply_patch\"], ignore_case = true },\n { not = { failed = true } } ] }",
        )
        .unwrap();
        let Condition::Any(items) = c else {
            panic!("not any")
        };
        assert_eq!(items.len(), 2);
        let Condition::Text(t) = &items[0] else {
            panic!()
        };
        assert_eq!(t.field, Field::Action);
        assert_eq!(t.trim, Some(Trim::Start));
        assert!(t.ignore_case);
        assert_eq!(
            t.op,
            TextOp::Prefix(vec!["applypatch".into(), "apply_patch".into()])
        );
        assert_eq!(items[1], Condition::Not(Box::new(Condition::Failed(true))));
        let list = read("when = [ { tool = \"*\" }, { field = \"observation\", last = 1500, regex = '^Traceback' } ]").unwrap();
        let Condition::All(items) = list else {
            panic!()
        };
        assert_eq!(items[0], Condition::Tool(ToolCondition::Any));
        let Condition::Text(t) = &items[1] else {
            panic!()
        };
        assert_eq!(t.window, Some(Window::Last(1500)));
    }

    #[test]
    fn mistakes_say_where() {
        let cases = [
            (
                "when = { field = \"stdout\", contains = \"x\" }",
                "`when.field`: unknown field `stdout`",
            ),
            (
                "when = { field = \"action\" }",
                "`when`: a test needs one of contains",
            ),
            (
                "when = { field = \"action\", contains = \"x\", prefix = \"y\" }",
                "one test per table, not contains and prefix",
            ),
            (
                "when = { any = [ { field = \"action\", contans = \"x\" } ] }",
                "`when.any[1]`: unknown key `contans`",
            ),
            (
                "when = { field = \"action\", regex = \"(\" }",
                "`when.regex`: invalid regex",
            ),
            (
                "when = { field = \"action\", prefix = \"x\", at_least = 2 }",
                "only works with `contains` or `regex`",
            ),
            (
                "when = { field = \"action\", contains = \"x\", first = 2, last = 3 }",
                "one window per test",
            ),
            (
                "when = { failed = true, field = \"action\" }",
                "`failed` stands alone",
            ),
            (
                "when = { field = \"action\", contains = \"\" }",
                "non-empty string",
            ),
            ("when = \"x\"", "must be a table"),
        ];
        for (text, wanted) in cases {
            let err = read(text).unwrap_err();
            assert!(err.contains(wanted), "{text}: {err}");
        }
    }
}
