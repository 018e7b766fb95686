//! The uncached tally at the speed of reading the bytes: a SWE-agent file is tallied without
//! decoding the long texts of its steps (observation, thought, response) that cannot hold
//! anything the rules look for, nor its `history`. Whether a text can is decided on its raw,
//! still escaped bytes, with one automaton per field of the escaped forms of every string the
//! rules need there: the literal rules' patterns, the strings that gate regex and `unless`
//! patterns ([`super::gate`]), and for observations the error markers of `Step::is_error`.
//! A text without any of them is left empty, which gives the same counts, since every pattern
//! needs one of them and none matches the empty string.
//!
//! Why that is exact: a JSON writer escapes `"`, `\` and control characters in one way each,
//! and may write any character as `\uXXXX` (`/` also as `\/`). A decoded text holding a string
//! holds its escaped form in the raw bytes, unless one of its characters was written as
//! `\uXXXX` or `\/`: a text with such an escape of a character that a needed string contains
//! is decoded whatever the automaton says.
//!
//! What the automaton cannot decide is decoded: every text of a field that a `when`
//! condition or a classifier reads (they test emptiness, prefixes, windows, counts), or
//! that a regex or `unless` pattern without a gate string searches. Files it cannot read exactly fall back one by one
//! ([`crate::formats::read_sparse`]); so does every file when the caller needs summaries
//! (the run cache): their warnings come from `history`.

use super::Matcher;
use super::classifier::{Case, Then};
use super::condition::Condition;
use super::field::Field;
use super::gate::gate;
use super::matcher::pattern_regex;
use super::rule::Rule;
use super::tally::TrajectoryTally;
use crate::formats::{
    Detail, LAZY_ABOVE, LoadError, Loaded, LongText, Wanted, check_fits, load_bytes_with,
    load_file_with, read_sparse,
};
use aho_corasick::AhoCorasick;
use std::path::Path;

/// Set (to anything) to tally every file by the exact path.
pub const EXACT_ENV: &str = "TRAJSCOPE_EXACT_TALLY";

/// What the rules need to see of each long text, compiled once per matcher.
#[derive(Debug, Clone)]
pub struct SparsePlan {
    observation: FieldNeeds,
    thought: FieldNeeds,
    response: FieldNeeds,
    /// A sequence rule compares the observations of repeated actions.
    repeated_observations: bool,
}

#[derive(Debug, Clone)]
enum FieldNeeds {
    /// No rule reads the field.
    Nothing,
    /// A rule reads it in a way only the decoded text tells: always decode.
    Everything,
    /// Decode where one of these strings may occur.
    Strings {
        /// The escaped forms, as they stand in the raw bytes.
        escaped: AhoCorasick,
        /// Every character of the strings: a `\uXXXX` of one of them forces decoding.
        chars: Vec<char>,
    },
}

impl SparsePlan {
    /// The plan for `rules` (a matcher's, valid ones only); `None` when an automaton cannot
    /// be built.
    pub(crate) fn new(rules: &[Rule]) -> Option<SparsePlan> {
        // For benchmarks and bisecting: the exact path alone, in the same binary.
        if std::env::var_os(EXACT_ENV).is_some() {
            return None;
        }
        // Conditions test emptiness, prefixes, windows, counts: the fields they read are
        // always decoded.
        let mut read_whole: Vec<Field> = Vec::new();
        for rule in rules {
            if let Some(when) = &rule.when {
                condition_fields(when, &mut read_whole);
            }
            if let Some(shared) = &rule.classifier {
                let classifier = &shared.0;
                if let Some(when) = &classifier.when {
                    condition_fields(when, &mut read_whole);
                }
                case_fields(&classifier.cases, &mut read_whole);
            }
        }
        let needs = |field: Field, extra: &[&str]| -> Option<FieldNeeds> {
            if read_whole.iter().any(|f| f.covers(field)) {
                return Some(FieldNeeds::Everything);
            }
            let mut strings: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
            for rule in rules.iter().filter(|r| r.field.covers(field)) {
                if let Some(p) = &rule.pattern {
                    if !p.regex && !p.ignore_case {
                        strings.push(p.text.clone());
                    } else {
                        match gate(&pattern_regex(p)) {
                            Some(g) => strings.extend(g.literals),
                            None => return Some(FieldNeeds::Everything),
                        }
                    }
                }
                // `unless` reads the rule's fields once a pattern counted, maybe elsewhere.
                if let Some(u) = &rule.unless {
                    match gate(&pattern_regex(u)) {
                        Some(g) => strings.extend(g.literals),
                        None => return Some(FieldNeeds::Everything),
                    }
                }
            }
            if strings.is_empty() {
                return Some(FieldNeeds::Nothing);
            }
            strings.sort();
            strings.dedup();
            let escaped: Vec<String> = strings.iter().map(|s| escape(s)).collect();
            let mut chars: Vec<char> = strings.iter().flat_map(|s| s.chars()).collect();
            chars.sort_unstable();
            chars.dedup();
            Some(FieldNeeds::Strings {
                escaped: AhoCorasick::new(&escaped).ok()?,
                chars,
            })
        };
        Some(SparsePlan {
            observation: needs(Field::Observation, crate::model::ERROR_MARKERS)?,
            thought: needs(Field::Thought, &[])?,
            response: needs(Field::Response, &[])?,
            repeated_observations: rules.iter().any(|r| r.is_sequence() && r.same_observation),
        })
    }

    /// Whether the text of `field` whose raw bytes (between the quotes) are `raw` must be
    /// decoded.
    fn keep(&self, field: LongText, raw: &[u8]) -> bool {
        let needs = match field {
            LongText::Observation => &self.observation,
            LongText::Thought => &self.thought,
            LongText::Response => &self.response,
        };
        match needs {
            FieldNeeds::Nothing => false,
            FieldNeeds::Everything => true,
            FieldNeeds::Strings { escaped, chars } => {
                escaped.is_match(raw) || escapes_one_of(raw, chars)
            }
        }
    }
}

/// The fields a condition reads the text of.
fn condition_fields(condition: &Condition, out: &mut Vec<Field>) {
    match condition {
        Condition::All(list) | Condition::Any(list) => {
            for c in list {
                condition_fields(c, out);
            }
        }
        Condition::Not(c) => condition_fields(c, out),
        Condition::Text(test) => out.push(test.field),
        Condition::Failed(_) | Condition::Tool(_) => {}
    }
}

fn case_fields(cases: &[Case], out: &mut Vec<Field>) {
    for case in cases {
        if let Some(when) = &case.when {
            condition_fields(when, out);
        }
        if let Then::Branch(inner) = &case.then {
            case_fields(inner, out);
        }
    }
}

/// How a JSON writer that escapes only what it must writes `text` (serde and Python alike:
/// `"`, `\`, `\n`, `\t`, … ; other control characters as `\u00XX`, which [`escapes_one_of`]
/// catches).
fn escape(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(&quoted)
        .to_string()
}

/// Whether `raw` writes one of `chars` in a form [`escape`] does not give: `\uXXXX` (a
/// surrogate pair counts as any character outside the basic plane) or `\/`.
fn escapes_one_of(raw: &[u8], chars: &[char]) -> bool {
    memchr::memchr_iter(b'\\', raw).any(|at| {
        // An escaped backslash's second half is never a `\u`: worst case it counts as one,
        // which only decodes a text that did not need it.
        match raw.get(at + 1) {
            Some(b'/') => chars.contains(&'/'),
            Some(b'u') => {
                let hex = raw
                    .get(at + 2..at + 6)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                match hex {
                    Some(0xD800..=0xDFFF) => chars.iter().any(|c| u32::from(*c) > 0xFFFF),
                    Some(code) => char::from_u32(code).is_none_or(|c| chars.contains(&c)),
                    None => true,
                }
            }
            _ => false,
        }
    })
}

/// How one file was read: tallied from its raw bytes, or loaded for the exact path.
pub(crate) enum Read {
    Tallied(Vec<TrajectoryTally>),
    Loaded(Result<Loaded, LoadError>),
}

/// Reads `path` once: tallied by the raw-byte path when `sparse` (the caller needs no
/// summaries), the rules and the file allow it, else loaded at [`Detail::Steps`] as
/// `load_file_with` does.
pub(crate) fn read(path: &Path, matcher: &Matcher, sparse: bool) -> Read {
    let plan = matcher.sparse_plan().filter(|_| sparse);
    let small = std::fs::metadata(path).is_ok_and(|m| m.len() < LAZY_ABOVE);
    let Some(plan) = plan.filter(|_| small) else {
        return Read::Loaded(load_file_with(path, Detail::Steps));
    };
    let bytes = match std::fs::metadata(path)
        .map_err(|err| LoadError::io(path, err))
        .and_then(|m| check_fits(path, m.len()))
        .and_then(|()| std::fs::read(path).map_err(|err| LoadError::io(path, err)))
    {
        Ok(bytes) => bytes,
        Err(err) => return Read::Loaded(Err(err)),
    };
    match tally_bytes(path, &bytes, matcher, plan) {
        Some(tallies) => Read::Tallied(tallies),
        None => Read::Loaded(load_bytes_with(path, &bytes, Detail::Steps)),
    }
}

fn tally_bytes(
    path: &Path,
    bytes: &[u8],
    matcher: &Matcher,
    plan: &SparsePlan,
) -> Option<Vec<TrajectoryTally>> {
    let keep = |field: LongText, raw: &[u8]| plan.keep(field, raw);
    let wanted = Wanted {
        keep: &keep,
        repeated_observations: plan.repeated_observations,
    };
    let trajectory = read_sparse(path, bytes, &wanted)?;
    Some(vec![TrajectoryTally::of(matcher, &trajectory)])
}

/// The tallies of `path` by the raw-byte path, or `None` when the rules or the file take the
/// exact one (for tests and benchmarks that compare the two).
pub fn sparse_tally_file(path: &Path, matcher: &Matcher) -> Option<Vec<TrajectoryTally>> {
    let plan = matcher.sparse_plan()?;
    let bytes = std::fs::read(path).ok()?;
    tally_bytes(path, &bytes, matcher, plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_forms_and_unicode_escapes() {
        assert_eq!(escape("a\"b\\c\nd"), r#"a\"b\\c\nd"#);
        let chars: Vec<char> = "Error/".chars().collect();
        assert!(
            escapes_one_of(br"x \u0045rror", &chars),
            "E written as \\u0045"
        );
        assert!(
            !escapes_one_of(br"caf\u00e9 \n", &chars),
            "é is in no string"
        );
        assert!(escapes_one_of(br"a\/b", &chars));
        assert!(!escapes_one_of(br"a\/b", &['E']));
        assert!(escapes_one_of(br"\u12", &['E']), "a cut escape decodes");
        assert!(escapes_one_of(br"\ud83d\ude00", &['\u{1F600}']));
        assert!(!escapes_one_of(br"\ud83d\ude00", &['E']));
    }
}
