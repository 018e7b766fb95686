//! Run filter expressions: which trajectories of a run to show or count.
//!
//! Terms are separated by spaces and must all hold (AND); a leading `-` negates a term.
//! `resolved:yes|no|unknown`, `exit:TEXT` (substring of the exit status), `format:NAME`,
//! `model:TEXT` (substring), `steps`/`cost`/`tokens`/`errors` compared with `>`, `<`, `>=`,
//! `<=` or `=` to a number, `rule:NAME` (the trajectory matched that rule at least once);
//! any other word is looked for in the row's label and path. Text matches ignore case. A
//! row without the value (no cost logged) never matches a comparison; a negated term
//! matches exactly the rows its term does not. The app's filter field, `ls --filter` and
//! `stats --filter` all parse and evaluate with this one module.

use crate::model::TrajectorySummary;

/// A term that could not be read, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{term}`: {message}")]
pub struct FilterError {
    pub term: String,
    pub message: String,
}

/// A parsed expression; the empty expression matches every row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFilter {
    terms: Vec<Term>,
}

#[derive(Debug, Clone, PartialEq)]
struct Term {
    negated: bool,
    test: Test,
}

#[derive(Debug, Clone, PartialEq)]
enum Test {
    Resolved(Option<bool>),
    Exit(String),
    Format(String),
    Model(String),
    Compare(Column, Op, f64),
    Rule(String),
    Word(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Steps,
    Cost,
    Tokens,
    Errors,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Gt,
    Lt,
    Ge,
    Le,
    Eq,
}

/// What a filter reads of one row. Numbers are `None` when the log does not give them.
#[derive(Default)]
pub struct FilterRow<'a> {
    pub label: &'a str,
    pub path: &'a str,
    pub resolved: Option<bool>,
    /// The exit status as shown (`submitted (exit_cost)`).
    pub exit: Option<&'a str>,
    pub format: &'a str,
    pub model: Option<&'a str>,
    pub steps: Option<f64>,
    pub cost: Option<f64>,
    pub tokens: Option<f64>,
    pub errors: Option<f64>,
    /// Whether the row matched the rule of that name; `None` when rules were not run.
    pub rule: Option<&'a dyn Fn(&str) -> bool>,
}

impl<'a> FilterRow<'a> {
    /// A listed trajectory, under its label, its path written out in `path`.
    pub fn of_summary(s: &'a TrajectorySummary, label: &'a str, path: &'a str) -> FilterRow<'a> {
        let tokens = match (s.usage.tokens_in, s.usage.tokens_out) {
            (None, None) => None,
            (i, o) => Some((i.unwrap_or(0) + o.unwrap_or(0)) as f64),
        };
        FilterRow {
            label,
            path,
            resolved: s.resolved,
            exit: s.exit_status.as_deref(),
            format: s.format.name(),
            model: s.model.as_deref(),
            steps: Some(s.steps as f64),
            cost: s.usage.cost,
            tokens,
            errors: Some(s.error_steps as f64),
            rule: None,
        }
    }
}

impl RunFilter {
    /// Parses `text`. `rules`, when given, are the rule names `rule:` may name.
    pub fn parse(text: &str, rules: Option<&[&str]>) -> Result<RunFilter, FilterError> {
        let terms = text
            .split_whitespace()
            .map(|word| Term::parse(word, rules))
            .collect::<Result<_, _>>()?;
        Ok(RunFilter { terms })
    }

    /// Like [`RunFilter::parse`], keeping the terms that parse: the app filters by them
    /// while the user fixes the first term that does not (returned with it).
    pub fn parse_lenient(text: &str, rules: Option<&[&str]>) -> (RunFilter, Option<FilterError>) {
        let mut terms = Vec::new();
        let mut first_error = None;
        for word in text.split_whitespace() {
            match Term::parse(word, rules) {
                Ok(term) => terms.push(term),
                Err(err) => {
                    first_error.get_or_insert(err);
                }
            }
        }
        (RunFilter { terms }, first_error)
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether a term needs the rules' matches (`rule:NAME`).
    pub fn uses_rules(&self) -> bool {
        self.terms.iter().any(|t| matches!(t.test, Test::Rule(_)))
    }

    pub fn matches(&self, row: &FilterRow<'_>) -> bool {
        self.terms.iter().all(|t| t.test.holds(row) != t.negated)
    }
}

impl Term {
    fn parse(word: &str, rules: Option<&[&str]>) -> Result<Term, FilterError> {
        let bad = |message: String| FilterError {
            term: word.to_string(),
            message,
        };
        let (negated, body) = match word.strip_prefix('-') {
            Some(rest) if !rest.is_empty() => (true, rest),
            _ => (false, word),
        };
        if let Some((field, op, value)) = split_comparison(body) {
            let field = match field.to_ascii_lowercase().as_str() {
                "steps" => Column::Steps,
                "cost" => Column::Cost,
                "tokens" => Column::Tokens,
                "errors" => Column::Errors,
                other => {
                    return Err(bad(format!(
                        "cannot compare `{other}` (steps, cost, tokens, errors)"
                    )));
                }
            };
            let value: f64 = value
                .trim_start_matches('$')
                .parse()
                .map_err(|_| bad(format!("`{value}` is not a number")))?;
            return Ok(Term {
                negated,
                test: Test::Compare(field, op, value),
            });
        }
        let test = match body.split_once(':') {
            Some((key, value)) => {
                let value_lower = value.to_lowercase();
                if value.is_empty() {
                    return Err(bad(format!("`{key}:` needs a value")));
                }
                match key.to_ascii_lowercase().as_str() {
                    "resolved" => Test::Resolved(match value_lower.as_str() {
                        "yes" | "true" => Some(true),
                        "no" | "false" => Some(false),
                        "unknown" => None,
                        _ => return Err(bad("resolved: is yes, no or unknown".into())),
                    }),
                    "exit" => Test::Exit(value_lower),
                    "format" => Test::Format(value_lower),
                    "model" => Test::Model(value_lower),
                    "rule" => {
                        if let Some(known) = rules
                            && !known.contains(&value)
                        {
                            return Err(bad(format!("no rule named `{value}`")));
                        }
                        Test::Rule(value.to_string())
                    }
                    _ => {
                        return Err(bad(format!(
                            "unknown term `{key}:` (resolved, exit, format, model, rule)"
                        )));
                    }
                }
            }
            None => Test::Word(body.to_lowercase()),
        };
        Ok(Term { negated, test })
    }
}

/// `steps>=3` → (`steps`, `>=`, `3`).
fn split_comparison(body: &str) -> Option<(&str, Op, &str)> {
    let at = body.find(['<', '>', '='])?;
    let (field, rest) = body.split_at(at);
    let (op, len) = match rest.as_bytes() {
        [b'>', b'=', ..] => (Op::Ge, 2),
        [b'<', b'=', ..] => (Op::Le, 2),
        [b'>', ..] => (Op::Gt, 1),
        [b'<', ..] => (Op::Lt, 1),
        _ => (Op::Eq, 1),
    };
    Some((field, op, &rest[len..]))
}

impl Test {
    fn holds(&self, row: &FilterRow<'_>) -> bool {
        let has = |text: Option<&str>, needle: &str| {
            text.is_some_and(|t| t.to_lowercase().contains(needle))
        };
        match self {
            Test::Resolved(want) => row.resolved == *want,
            Test::Exit(text) => has(row.exit, text),
            Test::Format(name) => row.format.eq_ignore_ascii_case(name),
            Test::Model(text) => has(row.model, text),
            Test::Rule(name) => row.rule.is_some_and(|matched| matched(name)),
            Test::Word(word) => has(Some(row.label), word) || has(Some(row.path), word),
            Test::Compare(field, op, value) => {
                let actual = match field {
                    Column::Steps => row.steps,
                    Column::Cost => row.cost,
                    Column::Tokens => row.tokens,
                    Column::Errors => row.errors,
                };
                actual.is_some_and(|a| op.holds(a, *value))
            }
        }
    }
}

impl Op {
    fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Op::Gt => a > b,
            Op::Lt => a < b,
            Op::Ge => a >= b,
            Op::Le => a <= b,
            Op::Eq => (a - b).abs() < 1e-9,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<'a>(resolved: Option<bool>, cost: Option<f64>) -> FilterRow<'a> {
        FilterRow {
            label: "django__django-1 · …/runA",
            path: "runs/runA/trajs/django__django-1.traj",
            resolved,
            exit: Some("submitted (exit_cost)"),
            format: "swe-agent",
            model: Some("gpt-4o"),
            steps: Some(30.0),
            cost,
            tokens: Some(1000.0),
            errors: Some(2.0),
            rule: None,
        }
    }

    fn pass(expr: &str, row: &FilterRow<'_>) -> bool {
        RunFilter::parse(expr, None).unwrap().matches(row)
    }

    #[test]
    fn resolved_terms_select_exactly_their_rows() {
        let (yes, no, unknown) = (
            row(Some(true), None),
            row(Some(false), None),
            row(None, None),
        );
        assert!(pass("resolved:yes", &yes));
        assert!(!pass("resolved:yes", &no));
        assert!(!pass("resolved:yes", &unknown));
        assert!(pass("-resolved:yes", &no) && pass("-resolved:yes", &unknown));
        assert!(pass("resolved:unknown", &unknown));
        // A bare word looks in the label and path, not in the verdict.
        assert!(!pass("resolved", &yes));
    }

    #[test]
    fn comparisons_and_missing_values() {
        let r = row(None, None);
        assert!(pass("steps>29 steps<=30 errors=2 tokens>=1000", &r));
        assert!(!pass("steps>30", &r));
        // No cost logged: no comparison matches, its negation does.
        assert!(!pass("cost>0", &r) && !pass("cost<1", &r));
        assert!(pass("-cost>0", &r));
        assert!(pass("cost>0.5", &row(None, Some(0.75))));
    }

    #[test]
    fn text_terms_ignore_case() {
        let r = row(None, None);
        assert!(pass("exit:EXIT_COST format:SWE-agent model:gpt runA", &r));
        assert!(!pass("format:swe", &r));
        assert!(!pass("-exit:submitted", &r));
    }

    #[test]
    fn rule_terms_need_the_rules() {
        let hit = |name: &str| name == "syntax-error";
        let mut r = row(None, None);
        assert!(!pass("rule:syntax-error", &r));
        r.rule = Some(&hit);
        assert!(pass("rule:syntax-error -rule:timeout", &r));
        let err = RunFilter::parse("rule:nope", Some(&["syntax-error"])).unwrap_err();
        assert!(err.to_string().contains("nope"), "{err}");
    }

    #[test]
    fn a_lenient_parse_keeps_the_good_terms() {
        let (filter, error) = RunFilter::parse_lenient("resolved:no steps>x", None);
        assert_eq!(error.unwrap().term, "steps>x");
        assert!(filter.matches(&row(Some(false), None)));
        assert!(!filter.matches(&row(Some(true), None)));
    }

    #[test]
    fn bad_terms_are_errors_naming_the_term() {
        for bad in ["resolved:maybe", "steps>x", "color:red", "size>3", "exit:"] {
            let err = RunFilter::parse(&format!("a {bad}"), None).unwrap_err();
            assert_eq!(err.term, bad);
        }
    }
}
