//! Rule files: TOML with one `[[rule]]` table per rule, `[[classifier]]` tables (ordered
//! decision lists whose modes are rules, [`super::classifier`]) and, in a built-in pack, one
//! `[pack]` table ([`super::pack`]). Each table is checked on its own, so
//! one bad rule (an unknown key, a wrong type, an invalid field) is reported with its name,
//! file and line while the others are kept. Regular expressions are checked when compiled,
//! by [`super::Matcher`]; references between rules when rule sets are merged, by
//! [`super::RuleSet`].

use super::classifier::{self, Classifier, Shared};
use super::condition;
use super::field::Field;
use super::rule::{Origin, Pattern, Rule, ToolCondition};
use super::rule_error::RuleError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use toml::Spanned;

/// The rules built into trajscope (`rules/default.toml`, documented in `docs/metrics.md`).
pub const DEFAULT_RULES: &str = include_str!("../../rules/default.toml");

/// The origin name of the built-in rules.
pub const DEFAULT_RULES_NAME: &str = "default rules";

/// The keys a `[[rule]]` table may hold.
const KEYS: &[&str] = &[
    "name",
    "pattern",
    "regex",
    "ignore_case",
    "field",
    "unless",
    "description",
    "tool",
    "after_tool_call",
    "matches",
    "after",
    "repeat",
    "same_observation",
    "not_followed_by",
    "before",
    "hidden",
    "enabled",
    "in_a_row",
    "cost_above",
    "alert",
    "when",
    "classifier",
];

/// The keys a mode of a classifier may hold besides `classifier`: what it counts is decided
/// by the classifier alone.
const MODE_KEYS: &[&str] = &[
    "name",
    "description",
    "classifier",
    "hidden",
    "alert",
    "enabled",
];

/// One entry of a rule file: a rule, or `enabled = false` switching off a rule of the same
/// name defined earlier (a default, say).
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Rule(Box<Rule>),
    Disable { name: String, origin: Origin },
}

impl Entry {
    pub fn name(&self) -> &str {
        match self {
            Entry::Rule(rule) => &rule.name,
            Entry::Disable { name, .. } => name,
        }
    }
}

type RawTable = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

#[derive(Deserialize)]
struct RawFile {
    #[serde(default)]
    rule: Vec<Spanned<RawTable>>,
    #[serde(default)]
    classifier: Vec<Spanned<toml::Table>>,
    /// A built-in pack's name, source and version ([`super::pack`]); ignored elsewhere.
    #[serde(default)]
    #[allow(dead_code)]
    pack: Option<toml::Table>,
    #[serde(flatten)]
    other: BTreeMap<String, toml::Value>,
}

/// Reads the rule file at `path`. A file that cannot be read or parsed is one error.
pub fn read(path: &Path) -> (Vec<Entry>, Vec<RuleError>) {
    let file = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&text, &file),
        Err(err) => (
            Vec::new(),
            vec![RuleError {
                rule: None,
                file,
                line: None,
                message: format!("cannot read rule file: {err}"),
            }],
        ),
    }
}

/// Parses rule-file `text`; `file` names it in origins and errors.
pub fn parse(text: &str, file: &str) -> (Vec<Entry>, Vec<RuleError>) {
    let lines = LineIndex::new(text);
    let raw: RawFile = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(err) => {
            return (
                Vec::new(),
                vec![RuleError {
                    rule: None,
                    file: file.into(),
                    line: err.span().map(|s| lines.line(s.start)),
                    message: format!("not a valid rule file: {}", err.message().trim()),
                }],
            );
        }
    };
    let mut errors: Vec<RuleError> = raw
        .other
        .keys()
        .map(|key| RuleError {
            rule: None,
            file: file.into(),
            line: None,
            message: format!(
                "unknown top-level key `{key}`: rules are `[[rule]]` tables, classifiers `[[classifier]]`"
            ),
        })
        .collect();
    let mut classifiers: Vec<Arc<Classifier>> = Vec::new();
    for table in &raw.classifier {
        let line = Some(lines.line(table.span().start));
        let origin = Origin {
            file: file.into(),
            line,
        };
        match classifier::parse(table.get_ref(), origin) {
            Ok(c) if classifiers.iter().any(|d| d.name == c.name) => errors.push(RuleError {
                rule: Some(c.name.clone()),
                file: file.into(),
                line,
                message: "classifier defined twice in this file; the first one is kept".into(),
            }),
            Ok(c) => classifiers.push(Arc::new(c)),
            Err((name, message)) => errors.push(RuleError {
                rule: name,
                file: file.into(),
                line,
                message: format!("classifier: {message}"),
            }),
        }
    }
    let mut entries: Vec<Entry> = Vec::new();
    for table in &raw.rule {
        let origin = Origin {
            file: file.into(),
            line: Some(lines.line(table.span().start)),
        };
        match entry(table.get_ref(), origin, &lines, &classifiers) {
            Ok(entry) => {
                if entries.iter().any(|e| e.name() == entry.name()) {
                    errors.push(RuleError {
                        rule: Some(entry.name().into()),
                        file: file.into(),
                        line: Some(lines.line(table.span().start)),
                        message: "defined twice in this file; the first one is kept".into(),
                    });
                } else {
                    entries.push(entry);
                }
            }
            Err(err) => errors.push(err),
        }
    }
    errors.extend(unruled_modes(&classifiers, &entries));
    (entries, errors)
}

/// A mode a classifier gives that no rule of the file counts: its steps would count nowhere.
fn unruled_modes(classifiers: &[Arc<Classifier>], entries: &[Entry]) -> Vec<RuleError> {
    let mut errors = Vec::new();
    for c in classifiers {
        for mode in c.modes() {
            let ruled = entries.iter().any(|e| match e {
                Entry::Rule(r) => r.name == mode && r.classifier_name() == Some(c.name.as_str()),
                Entry::Disable { .. } => false,
            });
            if !ruled {
                errors.push(RuleError {
                    rule: Some(c.name.clone()),
                    file: c.origin.file.clone(),
                    line: c.origin.line,
                    message: format!(
                        "classifier: mode `{mode}` has no `[[rule]]` with `classifier = \"{}\"`; its steps count under no rule",
                        c.name
                    ),
                });
            }
        }
    }
    errors
}

/// Reads one `[[rule]]` table.
fn entry(
    table: &RawTable,
    origin: Origin,
    lines: &LineIndex,
    classifiers: &[Arc<Classifier>],
) -> Result<Entry, RuleError> {
    let get = |key: &str| {
        table
            .iter()
            .find(|(k, _)| k.get_ref() == key)
            .map(|(_, v)| v)
    };
    let name = match get("name").map(|v| v.get_ref()) {
        Some(toml::Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        _ => {
            return Err(RuleError {
                rule: None,
                file: origin.file.clone(),
                line: origin.line,
                message: "a rule needs a `name` (a non-empty string)".into(),
            });
        }
    };
    let fail = |line: Option<usize>, message: String| RuleError {
        rule: Some(name.clone()),
        file: origin.file.clone(),
        line: line.or(origin.line),
        message,
    };
    if let Some((key, _)) = table
        .iter()
        .find(|(k, _)| !KEYS.contains(&k.get_ref().as_str()))
    {
        return Err(fail(
            Some(lines.line(key.span().start)),
            format!(
                "unknown key `{}` (known: {})",
                key.get_ref(),
                KEYS.join(", ")
            ),
        ));
    }
    let line_of = |key: &str| get(key).map(|v| lines.line(v.span().start));
    let string = |key: &str| -> Result<Option<String>, RuleError> {
        match get(key).map(|v| v.get_ref()) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(fail(
                line_of(key),
                format!("`{key}` must be a string, not {}", other.type_str()),
            )),
        }
    };
    let boolean = |key: &str| -> Result<bool, RuleError> {
        match get(key).map(|v| v.get_ref()) {
            None => Ok(false),
            Some(toml::Value::Boolean(b)) => Ok(*b),
            Some(other) => Err(fail(
                line_of(key),
                format!("`{key}` must be true or false, not {}", other.type_str()),
            )),
        }
    };

    if let Some(toml::Value::Boolean(false)) = get("enabled").map(|v| v.get_ref()) {
        return Ok(Entry::Disable { name, origin });
    }
    let classifier = match string("classifier")? {
        None => None,
        Some(wanted) => {
            let Some(c) = classifiers.iter().find(|c| c.name == wanted) else {
                return Err(fail(
                    line_of("classifier"),
                    format!("no `[[classifier]]` named `{wanted}` in this file"),
                ));
            };
            if !c.modes().contains(&name.as_str()) {
                return Err(fail(
                    line_of("classifier"),
                    format!("classifier `{wanted}` never gives the mode `{name}`"),
                ));
            }
            if let Some((key, _)) = table
                .iter()
                .find(|(k, _)| !MODE_KEYS.contains(&k.get_ref().as_str()))
            {
                return Err(fail(
                    Some(lines.line(key.span().start)),
                    format!(
                        "`{}` does not apply to a mode of a classifier: the classifier decides what it counts (a mode holds {})",
                        key.get_ref(),
                        MODE_KEYS.join(", ")
                    ),
                ));
            }
            Some(Shared(Arc::clone(c)))
        }
    };
    let when = match get("when") {
        None => None,
        Some(value) => Some(
            condition::parse(value.get_ref(), "when")
                .map_err(|message| fail(line_of("when"), message))?,
        ),
    };
    if let Some(value) = get("enabled").map(|v| v.get_ref())
        && !matches!(value, toml::Value::Boolean(_))
    {
        return Err(fail(
            line_of("enabled"),
            format!("`enabled` must be true or false, not {}", value.type_str()),
        ));
    }

    let field = match string("field")? {
        None => Field::Any,
        Some(name) => Field::from_name(&name).ok_or_else(|| {
            fail(
                line_of("field"),
                format!(
                    "unknown field `{name}` (one of observation, action, thought, response, tool, user, any)"
                ),
            )
        })?,
    };
    let (regex, ignore_case) = (boolean("regex")?, boolean("ignore_case")?);
    let pattern_of = |key: &str| -> Result<Option<Pattern>, RuleError> {
        match string(key)? {
            Some(text) if text.is_empty() => Err(fail(line_of(key), format!("`{key}` is empty"))),
            Some(text) => Ok(Some(Pattern {
                text,
                regex,
                ignore_case,
            })),
            None => Ok(None),
        }
    };
    let pattern = pattern_of("pattern")?;
    let unless = pattern_of("unless")?;
    let tool = match get("tool").map(|v| v.get_ref()) {
        None => None,
        Some(toml::Value::String(s)) if s == "*" => Some(ToolCondition::Any),
        Some(toml::Value::String(s)) if !s.is_empty() => {
            Some(ToolCondition::Named(vec![s.clone()]))
        }
        Some(toml::Value::Array(items)) if !items.is_empty() => {
            let names: Option<Vec<String>> = items
                .iter()
                .map(|i| i.as_str().filter(|s| !s.is_empty()).map(String::from))
                .collect();
            match names {
                Some(names) if names.iter().any(|n| n == "*") => Some(ToolCondition::Any),
                Some(names) => Some(ToolCondition::Named(names)),
                None => {
                    return Err(fail(
                        line_of("tool"),
                        "`tool` must list tool names as non-empty strings".into(),
                    ));
                }
            }
        }
        Some(_) => {
            return Err(fail(
                line_of("tool"),
                "`tool` must be a tool name, a list of names, or \"*\"".into(),
            ));
        }
    };
    let repeat = match get("repeat").map(|v| v.get_ref()) {
        None => None,
        Some(toml::Value::Integer(n)) if *n >= 2 => usize::try_from(*n).ok(),
        Some(_) => {
            return Err(fail(
                line_of("repeat"),
                "`repeat` must be a whole number of 2 or more".into(),
            ));
        }
    };
    let in_a_row = match get("in_a_row").map(|v| v.get_ref()) {
        None => None,
        Some(toml::Value::Integer(n)) if *n >= 2 => usize::try_from(*n).ok(),
        Some(_) => {
            return Err(fail(
                line_of("in_a_row"),
                "`in_a_row` must be a whole number of 2 or more".into(),
            ));
        }
    };
    let cost_above = match get("cost_above").map(|v| v.get_ref()) {
        None => None,
        Some(toml::Value::Integer(n)) if *n >= 0 => Some(*n as f64),
        Some(toml::Value::Float(x)) if x.is_finite() && *x >= 0.0 => Some(*x),
        Some(_) => {
            return Err(fail(
                line_of("cost_above"),
                "`cost_above` must be a number of dollars, 0 or more".into(),
            ));
        }
    };
    let rule = Rule {
        in_a_row,
        cost_above,
        alert: boolean("alert")?,
        description: string("description")?.unwrap_or_default(),
        pattern,
        field,
        unless,
        tool,
        after_tool_call: boolean("after_tool_call")?,
        matches: string("matches")?,
        after: string("after")?,
        repeat,
        same_observation: boolean("same_observation")?,
        not_followed_by: string("not_followed_by")?,
        before: string("before")?,
        hidden: boolean("hidden")?,
        when,
        classifier,
        origin: origin.clone(),
        name: name.clone(),
    };
    if rule.before.is_some() && rule.not_followed_by.is_none() {
        return Err(fail(
            line_of("before"),
            "`before` only works with `not_followed_by`".into(),
        ));
    }
    if rule.same_observation && rule.repeat.is_none() {
        return Err(fail(
            line_of("same_observation"),
            "`same_observation` only works with `repeat`".into(),
        ));
    }
    if rule.pattern.is_none()
        && rule.tool.is_none()
        && rule.repeat.is_none()
        && rule.matches.is_none()
        && rule.cost_above.is_none()
        && rule.when.is_none()
        && rule.classifier.is_none()
    {
        return Err(fail(
            None,
            "a rule needs a `pattern`, a `tool`, `repeat`, `matches`, `cost_above`, `when` or `classifier` to say what it counts"
                .into(),
        ));
    }
    Ok(Entry::Rule(Box::new(rule)))
}

/// Byte offset → 1-based line number.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        LineIndex { starts }
    }

    fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(entries: &[Entry]) -> Vec<&Rule> {
        entries
            .iter()
            .filter_map(|e| match e {
                Entry::Rule(r) => Some(r.as_ref()),
                Entry::Disable { .. } => None,
            })
            .collect()
    }

    #[test]
    fn the_issue_example_parses_with_defaults() {
        let (entries, errors) = parse(
            "[[rule]]\nname = \"file_not_found\"\npattern = \"No such file or directory\"\nfield = \"observation\"\n",
            "x.toml",
        );
        assert!(errors.is_empty(), "{errors:?}");
        let rule = rules(&entries)[0];
        assert_eq!(rule.name, "file_not_found");
        assert_eq!(rule.field, Field::Observation);
        let pattern = rule.pattern.as_ref().unwrap();
        assert!(!pattern.regex && !pattern.ignore_case);
        assert_eq!(rule.origin.line, Some(1));
        let (entries, _) = parse("[[rule]]\nname = \"a\"\npattern = \"x\"\n", "x.toml");
        assert_eq!(
            rules(&entries)[0].field,
            Field::Any,
            "field defaults to any"
        );
    }

    #[test]
    fn bad_rules_are_reported_with_name_file_and_line_and_the_rest_kept() {
        let text = "\
[[rule]]
name = \"good\"
pattern = \"x\"

[[rule]]
name = \"bad_field\"
pattern = \"x\"
field = \"observations\"

[[rule]]
name = \"unknown_key\"
pattern = \"x\"
colour = \"red\"

[[rule]]
name = \"wrong_type\"
pattern = \"x\"
regex = \"yes\"

[[rule]]
pattern = \"nameless\"

[[rule]]
name = \"nothing_to_count\"
field = \"observation\"
";
        let (entries, errors) = parse(text, "my.toml");
        assert_eq!(
            rules(&entries)
                .iter()
                .map(|r| r.name.as_str())
                .collect::<Vec<_>>(),
            vec!["good"]
        );
        let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errors.len(), 5, "{shown:#?}");
        assert!(
            shown[0].starts_with("my.toml:8: rule `bad_field`: unknown field `observations`"),
            "{}",
            shown[0]
        );
        assert!(
            shown[1].starts_with("my.toml:13: rule `unknown_key`: unknown key `colour`"),
            "{}",
            shown[1]
        );
        assert!(
            shown[2].starts_with("my.toml:18: rule `wrong_type`: `regex` must be true or false"),
            "{}",
            shown[2]
        );
        assert_eq!(errors[3].rule, None);
        assert_eq!(errors[3].line, Some(20));
        assert!(shown[4].contains("`nothing_to_count`") && shown[4].contains("needs a `pattern`"));
    }

    #[test]
    fn a_syntax_error_names_the_line() {
        let (entries, errors) = parse("[[rule]]\nname = \"a\npattern = \"x\"\n", "broken.toml");
        assert!(entries.is_empty());
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].line, Some(2));
        assert!(
            errors[0]
                .to_string()
                .starts_with("broken.toml:2: not a valid rule file")
        );
    }

    #[test]
    fn conditions_and_switches() {
        let text = "\
[[rule]]
name = \"edits\"
tool = [\"edit\", \"str_replace_editor\"]

[[rule]]
name = \"calls\"
tool = \"*\"

[[rule]]
name = \"loop\"
repeat = 3

[[rule]]
name = \"untested\"
tool = \"edit\"
not_followed_by = \"tests\"
before = \"submit\"

[[rule]]
name = \"syntax_error\"
enabled = false

[[rule]]
name = \"bad_repeat\"
repeat = 1

[[rule]]
name = \"lonely_before\"
pattern = \"x\"
before = \"submit\"

[[rule]]
name = \"edits\"
pattern = \"again\"
";
        let (entries, errors) = parse(text, "c.toml");
        let rs = rules(&entries);
        assert_eq!(
            rs[0].tool,
            Some(ToolCondition::Named(vec![
                "edit".into(),
                "str_replace_editor".into()
            ]))
        );
        assert_eq!(rs[1].tool, Some(ToolCondition::Any));
        assert_eq!(rs[2].repeat, Some(3));
        assert!(rs[2].is_sequence());
        assert_eq!(
            rs[3].references().collect::<Vec<_>>(),
            vec!["tests", "submit"]
        );
        assert!(matches!(&entries[4], Entry::Disable { name, .. } if name == "syntax_error"));
        let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errors.len(), 3, "{shown:#?}");
        assert!(shown[0].contains("`bad_repeat`") && shown[0].contains("2 or more"));
        assert!(shown[1].contains("`before` only works with `not_followed_by`"));
        assert!(shown[2].contains("`edits`: defined twice"));
    }

    #[test]
    fn unknown_top_level_keys_and_missing_files() {
        let (_, errors) = parse("rules = 1\n", "t.toml");
        assert!(errors[0].message.contains("unknown top-level key `rules`"));
        let (entries, errors) = read(Path::new("/no/such/rules.toml"));
        assert!(entries.is_empty());
        assert!(
            errors[0]
                .to_string()
                .starts_with("/no/such/rules.toml: cannot read rule file")
        );
    }

    #[test]
    fn the_default_rules_parse_cleanly() {
        let (entries, errors) = parse(DEFAULT_RULES, DEFAULT_RULES_NAME);
        assert!(errors.is_empty(), "{errors:#?}");
        let rs = rules(&entries);
        assert!(rs.len() >= 12);
        assert!(
            rs.iter().all(|r| !r.description.is_empty()),
            "every default is described"
        );
    }
}
