//! Ordered classifiers: a decision list that gives each step at most one mode, so the
//! counts of a classifier's rules partition the steps it classifies. A classifier is a list
//! of cases tried in order; the first case whose condition holds decides: it names the
//! step's mode, or it is a branch that hands the step to its own ordered list of cases
//! (which may end with no mode: the step then has none, later cases are not tried), or it
//! ends the decision with no mode. The modes are ordinary rules (`[[rule]]` with
//! `classifier = NAME`) counting the steps the classifier gives them.
//!
//! ```toml
//! [[classifier]]
//! name = "failure_mode"
//! when = { field = "observation", empty = false }      # the steps it classifies
//!
//! [[classifier.case]]                                   # a branch
//! when = { field = "action", trim = "start", prefix = "applypatch", ignore_case = true }
//!   [[classifier.case.case]]
//!   when = { field = "observation", contains = "command not found", ignore_case = true }
//!   mode = "apply_patch_cmd_not_found"
//!
//! [[classifier.case]]
//! when = { field = "observation", contains = "event not found", ignore_case = true }
//! mode = "bash_history_expansion"
//! ```

use super::condition::{self, Condition, StepTexts};
use super::rule::Origin;
use serde::{Serialize, Serializer};
use std::sync::Arc;

/// A classifier as read from a rule file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Classifier {
    pub name: String,
    pub description: String,
    /// Only steps where this holds are classified; others have no mode.
    pub when: Option<Condition>,
    pub cases: Vec<Case>,
    pub origin: Origin,
}

/// One entry of an ordered list: when its condition holds (always, without one), it decides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    pub when: Option<Condition>,
    pub then: Then,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Then {
    /// The step's mode: the name of a rule of this classifier.
    Mode(String),
    /// The step goes down this list; when no case there holds, it has no mode.
    Branch(Vec<Case>),
    /// The step has no mode.
    Stop,
}

/// A classifier shared by the rules that are its modes; compared and serialised whole (the
/// tally cache key is the serialised rules, so a changed classifier is a changed rule set).
#[derive(Debug, Clone)]
pub struct Shared(pub Arc<Classifier>);

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Serialize for Shared {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl Classifier {
    /// The mode of the step of `texts`, if any.
    pub fn classify(&self, texts: &mut StepTexts<'_>) -> Option<&str> {
        if let Some(when) = &self.when
            && !when.holds(texts)
        {
            return None;
        }
        decide(&self.cases, texts)
    }

    /// Every mode name the cases can give, in order of first appearance.
    pub fn modes(&self) -> Vec<&str> {
        let mut modes = Vec::new();
        collect_modes(&self.cases, &mut modes);
        modes
    }
}

fn decide<'c>(cases: &'c [Case], texts: &mut StepTexts<'_>) -> Option<&'c str> {
    for case in cases {
        if case.when.as_ref().is_none_or(|c| c.holds(texts)) {
            return match &case.then {
                Then::Mode(mode) => Some(mode.as_str()),
                Then::Branch(inner) => decide(inner, texts),
                Then::Stop => None,
            };
        }
    }
    None
}

fn collect_modes<'c>(cases: &'c [Case], modes: &mut Vec<&'c str>) {
    for case in cases {
        match &case.then {
            Then::Mode(m) if !modes.contains(&m.as_str()) => modes.push(m),
            Then::Branch(inner) => collect_modes(inner, modes),
            _ => {}
        }
    }
}

/// The keys of a `[[classifier]]` table and of its cases.
const KEYS: &[&str] = &["name", "description", "when", "case"];
const CASE_KEYS: &[&str] = &["when", "mode", "case"];

/// Reads one `[[classifier]]` table; errors are one line, for the caller to place.
pub fn parse(table: &toml::Table, origin: Origin) -> Result<Classifier, (Option<String>, String)> {
    let name = match table.get("name") {
        Some(toml::Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        _ => {
            return Err((
                None,
                "a classifier needs a `name` (a non-empty string)".into(),
            ));
        }
    };
    let fail = |message: String| (Some(name.clone()), message);
    if let Some(key) = table.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(fail(format!(
            "unknown key `{key}` in a classifier (known: {})",
            KEYS.join(", ")
        )));
    }
    let description = match table.get("description") {
        None => String::new(),
        Some(toml::Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(fail(format!(
                "`description` must be a string, not {}",
                other.type_str()
            )));
        }
    };
    let when = table
        .get("when")
        .map(|w| condition::parse(w, "when"))
        .transpose()
        .map_err(fail)?;
    let cases = cases(table.get("case"), "case").map_err(fail)?;
    if cases.is_empty() {
        return Err(fail(
            "a classifier needs `[[classifier.case]]` tables, tried in order".into(),
        ));
    }
    Ok(Classifier {
        name: name.clone(),
        description,
        when,
        cases,
        origin,
    })
}

fn cases(value: Option<&toml::Value>, at: &str) -> Result<Vec<Case>, String> {
    let items = match value {
        None => return Ok(Vec::new()),
        Some(toml::Value::Array(items)) => items,
        Some(other) => {
            return Err(format!(
                "`{at}` must be a list of tables (`[[…case]]`), not {}",
                other.type_str()
            ));
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let here = format!("{at} {}", i + 1);
            let toml::Value::Table(table) = item else {
                return Err(format!("`{here}` must be a table"));
            };
            if let Some(key) = table.keys().find(|k| !CASE_KEYS.contains(&k.as_str())) {
                return Err(format!(
                    "{here}: unknown key `{key}` (known: {})",
                    CASE_KEYS.join(", ")
                ));
            }
            let when = table
                .get("when")
                .map(|w| condition::parse(w, &format!("{here}.when")))
                .transpose()?;
            let then = match (table.get("mode"), table.get("case")) {
                (Some(_), Some(_)) => {
                    return Err(format!(
                        "{here}: a case names a `mode` or holds `case`s (a branch), not both"
                    ));
                }
                (Some(toml::Value::String(mode)), None) if !mode.trim().is_empty() => {
                    Then::Mode(mode.trim().to_string())
                }
                (Some(_), None) => {
                    return Err(format!("{here}: `mode` must be a rule name"));
                }
                (None, Some(inner)) => Then::Branch(cases(Some(inner), &format!("{here}.case"))?),
                (None, None) => Then::Stop,
            };
            Ok(Case { when, then })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Step;

    fn classifier(text: &str) -> Result<Classifier, (Option<String>, String)> {
        let table: toml::Table = toml::from_str(text).unwrap();
        let toml::Value::Array(list) = &table["classifier"] else {
            panic!()
        };
        let toml::Value::Table(first) = &list[0] else {
            panic!()
        };
        parse(
            first,
            Origin {
                file: "t.toml".into(),
                line: Some(1),
            },
        )
    }

    const BRANCHY: &str = r#"
[[classifier]]
name = "c"
when = { field = "observation", empty = false }

[[classifier.case]]
when = { field = "action", prefix = "patch" }
  [[classifier.case.case]]
  when = { field = "observation", contains = "not found" }
  mode = "patch_missing"

[[classifier.case]]
when = { field = "observation", contains = "stop" }

[[classifier.case]]
when = { field = "observation", contains = "not found" }
mode = "not_found"

[[classifier.case]]
mode = "other"
"#;

    fn mode<'c>(c: &'c Classifier, action: &str, observation: &str) -> Option<&'c str> {
        let step = Step {
            action: action.into(),
            observation: observation.into(),
            ..Step::default()
        };
        c.classify(&mut StepTexts::new(&step))
    }

    #[test]
    fn first_case_decides_and_branches_never_fall_through() {
        let c = classifier(BRANCHY).unwrap();
        assert_eq!(c.modes(), vec!["patch_missing", "not_found", "other"]);
        assert_eq!(mode(&c, "patch x", "x: not found"), Some("patch_missing"));
        assert_eq!(
            mode(&c, "patch x", "ok"),
            None,
            "a branch with no matching case ends with no mode"
        );
        assert_eq!(mode(&c, "ls", "x: not found"), Some("not_found"));
        assert_eq!(
            mode(&c, "ls", "stop: not found"),
            None,
            "a case without a mode stops"
        );
        assert_eq!(
            mode(&c, "ls", "fine"),
            Some("other"),
            "a case without `when` always holds"
        );
        assert_eq!(mode(&c, "ls", ""), None, "outside the classifier's `when`");
    }

    #[test]
    fn mistakes_are_named() {
        let no_cases = classifier("[[classifier]]\nname = \"c\"\n").unwrap_err();
        assert!(no_cases.1.contains("needs `[[classifier.case]]`"));
        let both = classifier(
            "[[classifier]]\nname = \"c\"\n[[classifier.case]]\nmode = \"m\"\n[[classifier.case.case]]\nmode = \"n\"\n",
        )
        .unwrap_err();
        assert!(
            both.1.contains("case 1: a case names a `mode` or holds"),
            "{}",
            both.1
        );
        let deep = classifier(
            "[[classifier]]\nname = \"c\"\n[[classifier.case]]\n[[classifier.case.case]]\nwhen = { field = \"x\", contains = \"y\" }\nmode = \"n\"\n",
        )
        .unwrap_err();
        assert!(
            deep.1
                .contains("`case 1.case 1.when.field`: unknown field `x`"),
            "{}",
            deep.1
        );
        assert_eq!(deep.0.as_deref(), Some("c"));
    }
}
