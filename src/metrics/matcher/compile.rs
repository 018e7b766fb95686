//! Compiling rules into a [`Matcher`]: the regexes (in parallel), the checks that leave a
//! rule out with an error (invalid or empty-matching patterns, duplicate names, references
//! to missing or sequence rules), and each field's scanner.

use super::Matcher;
use super::literals::FieldScanner;
use crate::metrics::field::Field;
use crate::metrics::rule::{Pattern, Rule, RuleId};
use crate::metrics::rule_error::RuleError;
use crate::metrics::rule_regex::RuleRegex;
use crate::metrics::sequence;
use crate::metrics::step_conditions::StepConditions;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A regex as compiled, or why it did not.
type Compiled = Result<RuleRegex, regex::Error>;

/// The regex a rule's pattern compiles to: line-anchored like rg, case-insensitive on
/// request; `None` for case-sensitive literals (those go to Aho-Corasick).
fn regex_source(rule: &Rule) -> Option<String> {
    let pattern = rule.pattern.as_ref()?;
    if !pattern.regex && !pattern.ignore_case {
        return None;
    }
    Some(pattern_regex(pattern))
}

/// A pattern as a regex source, literal or not.
pub(crate) fn pattern_regex(pattern: &Pattern) -> String {
    let flags = if pattern.ignore_case { "(?mi)" } else { "(?m)" };
    if pattern.regex {
        format!("{flags}{}", pattern.text)
    } else {
        format!("{flags}{}", regex::escape(&pattern.text))
    }
}

impl Matcher {
    /// Compiles `rules`. A rule that cannot run (an invalid regex, a pattern that matches the
    /// empty string, a reference to a missing or sequence rule, a second rule of the same
    /// name) is left out and reported; the others run.
    pub fn new(rules: Vec<Rule>) -> (Matcher, Vec<RuleError>) {
        let mut errors = Vec::new();
        let error = |rule: &Rule, message: String| RuleError {
            rule: Some(rule.name.clone()),
            file: rule.origin.file.clone(),
            line: rule.origin.line,
            message,
        };

        // Compiling the regexes is most of the cost of a small run's tally (13 ms for the
        // defaults on one core), so they compile in parallel, kept in their rules' order.
        let compiled: Vec<(Option<Compiled>, Option<Compiled>)> = rules
            .par_iter()
            .map(|rule| {
                let regex = regex_source(rule).map(|source| RuleRegex::new(&source));
                let unless = rule
                    .unless
                    .as_ref()
                    .map(|p| RuleRegex::new(&pattern_regex(p)));
                (regex, unless)
            })
            .collect();
        let mut kept: Vec<(Rule, Option<RuleRegex>)> = Vec::new();
        let mut unless: HashMap<String, RuleRegex> = HashMap::new();
        for (rule, (regex, unless_regex)) in rules.into_iter().zip(compiled) {
            if kept.iter().any(|(r, _)| r.name == rule.name) {
                errors.push(error(
                    &rule,
                    "a rule of this name is already defined".into(),
                ));
                continue;
            }
            let regex = match regex {
                None => None,
                Some(Ok(regex)) if can_match_empty(&regex) => {
                    errors.push(error(
                        &rule,
                        "the pattern matches the empty string, so it would match everywhere".into(),
                    ));
                    continue;
                }
                Some(Ok(regex)) => Some(regex),
                Some(Err(err)) => {
                    errors.push(error(&rule, format!("invalid regex: {}", one_line(&err))));
                    continue;
                }
            };
            if let Some(compiled) = unless_regex {
                match compiled {
                    Ok(r) if can_match_empty(&r) => {
                        errors.push(error(
                            &rule,
                            "`unless` matches the empty string, so the rule would never count"
                                .into(),
                        ));
                        continue;
                    }
                    Ok(r) => {
                        unless.insert(rule.name.clone(), r);
                    }
                    Err(err) => {
                        errors.push(error(
                            &rule,
                            format!("invalid regex in `unless`: {}", one_line(&err)),
                        ));
                        continue;
                    }
                }
            }
            kept.push((rule, regex));
        }

        // References may only name rules that are decided step by step, so that one pass
        // over the steps settles them before the sequence rules read them.
        let plain: HashMap<&str, bool> = kept
            .iter()
            .map(|(r, _)| (r.name.as_str(), r.is_sequence()))
            .collect();
        let mut bad_reference = Vec::new();
        for (rule, _) in &kept {
            for name in rule.references() {
                let problem = match plain.get(name) {
                    None => Some(format!("refers to `{name}`, which is not a defined rule")),
                    Some(_) if name == rule.name => Some("refers to itself".to_string()),
                    Some(true) => Some(format!(
                        "refers to `{name}`, which has sequence conditions itself; refer to a rule decided by its own step"
                    )),
                    Some(false) => None,
                };
                if let Some(problem) = problem {
                    errors.push(error(rule, problem));
                    bad_reference.push(rule.name.clone());
                    break;
                }
            }
        }
        kept.retain(|(r, _)| !bad_reference.contains(&r.name));

        let ids: HashMap<String, RuleId> = kept
            .iter()
            .enumerate()
            .map(|(id, (r, _))| (r.name.clone(), id))
            .collect();
        let scanners: Vec<FieldScanner> = Field::CONCRETE
            .into_par_iter()
            .filter_map(|field| FieldScanner::new(field, &kept))
            .collect();
        let patternless = kept
            .iter()
            .enumerate()
            .filter(|(_, (r, _))| r.pattern.is_none() && r.classifier.is_none())
            .map(|(id, _)| id)
            .collect();
        let conditional = kept
            .iter()
            .enumerate()
            .filter(|(_, (r, _))| r.pattern.is_some() && (r.tool.is_some() || r.after_tool_call))
            .map(|(id, _)| id)
            .collect();
        let excluding = kept
            .iter()
            .enumerate()
            .filter_map(|(id, (r, _))| unless.remove(&r.name).map(|regex| (id, regex)))
            .collect();
        let sequences = kept
            .iter()
            .enumerate()
            .filter_map(|(id, (r, _))| sequence::Plan::new(id, r, &ids))
            .collect();
        let rules: Vec<Rule> = kept.into_iter().map(|(r, _)| r).collect();
        let step_conditions = StepConditions::new(&rules);
        (
            Matcher {
                rules,
                ids,
                scanners,
                patternless,
                conditional,
                excluding,
                step_conditions,
                sequences,
                sparse: OnceLock::new(),
            },
            errors,
        )
    }
}

/// Whether a compiled regex can match the empty string somewhere (`a*`, `^`, `\b`): it
/// would count a match at every position.
fn can_match_empty(regex: &RuleRegex) -> bool {
    regex.hir().properties().minimum_len() == Some(0)
}

/// The first line of an error that `regex` renders over several lines with a caret.
fn one_line(err: &regex::Error) -> String {
    let text = err.to_string();
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    last.trim().trim_start_matches("error: ").to_string()
}
