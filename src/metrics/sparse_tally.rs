//! The uncached tally at the speed of reading the bytes: a SWE-agent file is tallied without
//! decoding its `history` nor, mostly, the long texts of its steps (observation, thought,
//! response). Each such text is searched once, on its raw, still escaped bytes, with one
//! automaton per field of the escaped forms of every string the rules need there: the literal
//! rules' patterns (counted there), the strings that gate regexes (each regex then runs on
//! the decoded lines holding one) and `unless` patterns, and for observations the error
//! markers of `Step::is_error` ([`super::raw_count`] says why the counts are the decoded
//! text's). The text is left empty in the step and its counts are added to the step's row.
//!
//! What the raw bytes cannot decide is decoded and tallied the exact way: every text of a
//! field that a `when` condition or a classifier reads (they test emptiness, prefixes,
//! windows, counts), or that a regex or `unless` pattern without a gate string searches; a
//! text where an `unless` gate string occurs; a text that writes a character of the searched
//! strings as `\uXXXX`. The observations a `same_observation` sequence compares are
//! compared on their raw bytes where those decide it ([`SparseFacts`]). Files it cannot read
//! exactly fall back one by one ([`crate::formats::read_sparse`]); so does every file when the
//! caller needs summaries (the run cache): their warnings come from `history`.

use super::Matcher;
use super::classifier::{Case, Then};
use super::condition::Condition;
use super::field::Field;
use super::gate::gate;
use super::matcher::pattern_regex;
use super::raw_count::{Counted, Found, RawField, RawGated, RawTarget};
use super::sequence::{self, Facts};
use super::tally::TrajectoryTally;
use crate::formats::{
    Detail, LAZY_ABOVE, LoadError, Loaded, LongText, Look, MiniSparse, Skipped, Wanted,
    load_bytes_with, load_file_with, read_mini_sparse, read_sparse, with_file_bytes,
};
use crate::model::Trajectory;
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
    /// Count on the raw bytes, decoding only where that cannot.
    Raw(Box<RawField>),
}

impl SparsePlan {
    /// The plan for `matcher`'s rules; `None` when an automaton cannot be built.
    pub(crate) fn new(matcher: &Matcher) -> Option<SparsePlan> {
        // For benchmarks and bisecting: the exact path alone, in the same binary.
        if std::env::var_os(EXACT_ENV).is_some() {
            return None;
        }
        let rules = matcher.rules();
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
        let needs = |field: Field, markers: bool| -> Option<FieldNeeds> {
            if read_whole.iter().any(|f| f.covers(field)) {
                return Some(FieldNeeds::Everything);
            }
            let mut strings: Vec<(String, RawTarget)> = Vec::new();
            let mut gated = Vec::new();
            match matcher.literal_parts(field) {
                None => {}
                Some(None) => return Some(FieldNeeds::Everything),
                Some(Some((patterns, regexes))) => {
                    for (pattern, target) in patterns {
                        let target = match target {
                            Ok(rule) => RawTarget::Count(rule),
                            Err(g) => RawTarget::Gate(g),
                        };
                        strings.push((pattern.to_string(), target));
                    }
                    gated = regexes
                        .into_iter()
                        .map(|(rule, regex, per_line)| RawGated {
                            rule,
                            regex: regex.clone(),
                            per_line,
                        })
                        .collect();
                }
            }
            // `unless` reads the rule's fields once a pattern counted, maybe elsewhere: a
            // text where its pattern may match is decoded.
            for rule in rules.iter().filter(|r| r.field.covers(field)) {
                if let Some(u) = &rule.unless {
                    match gate(&pattern_regex(u)) {
                        Some(g) => {
                            strings.extend(g.literals.into_iter().map(|l| (l, RawTarget::Unless)))
                        }
                        None => return Some(FieldNeeds::Everything),
                    }
                }
            }
            if markers {
                strings.extend(
                    crate::model::ERROR_MARKERS
                        .iter()
                        .map(|m| (m.to_string(), RawTarget::Marker)),
                );
                strings.push((
                    crate::model::NOT_AN_ERROR.to_string(),
                    RawTarget::NotAMarker,
                ));
            }
            if strings.is_empty() {
                return Some(FieldNeeds::Nothing);
            }
            Some(FieldNeeds::Raw(Box::new(RawField::new(strings, gated)?)))
        };
        Some(SparsePlan {
            observation: needs(Field::Observation, true)?,
            thought: needs(Field::Thought, false)?,
            response: needs(Field::Response, false)?,
            repeated_observations: rules.iter().any(|r| r.is_sequence() && r.same_observation),
        })
    }

    /// What to do with the text of `field` whose raw bytes (between the quotes) are `raw`;
    /// `None` when the file must be read the exact way.
    fn look(&self, field: LongText, raw: &[u8]) -> Option<Look<Counted>> {
        let needs = match field {
            LongText::Observation => &self.observation,
            LongText::Thought => &self.thought,
            LongText::Response => &self.response,
        };
        match needs {
            FieldNeeds::Nothing => Some(Look::Skip(Counted::default())),
            FieldNeeds::Everything => Some(Look::Decode),
            FieldNeeds::Raw(scan) => match scan.count(raw) {
                Found::Counted(counted) => Some(Look::Skip(counted)),
                Found::Decode => Some(Look::Decode),
                Found::Broken => None,
            },
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
    let read = with_file_bytes(path, |bytes| {
        match tally_bytes(path, bytes, matcher, plan) {
            Some(tallies) => Read::Tallied(tallies),
            None => Read::Loaded(load_bytes_with(path, bytes, Detail::Steps)),
        }
    });
    read.unwrap_or_else(|err| Read::Loaded(Err(err)))
}

fn tally_bytes(
    path: &Path,
    bytes: &[u8],
    matcher: &Matcher,
    plan: &SparsePlan,
) -> Option<Vec<TrajectoryTally>> {
    let look = |field: LongText, raw: &[u8]| plan.look(field, raw);
    let wanted = Wanted {
        look: &look,
        repeated_observations: plan.repeated_observations,
    };
    let (trajectory, skipped) = match read_mini_sparse(path, bytes, &wanted) {
        MiniSparse::Read(trajectory, skipped) => (*trajectory, skipped),
        MiniSparse::Whole => return None,
        MiniSparse::Other => read_sparse(path, bytes, &wanted)?,
    };
    let error_at = |i: usize| {
        skipped
            .get(i)
            .and_then(|s| s.observation.as_ref())
            .is_some_and(|c| c.error)
    };
    let mut counted = |i: usize, row: &mut [u32]| {
        let Some(s) = skipped.get(i) else {
            return;
        };
        for made in [&s.observation, &s.thought, &s.response]
            .into_iter()
            .flatten()
        {
            for &(rule, n) in &made.counts {
                if let Some(cell) = row.get_mut(rule) {
                    *cell = cell.saturating_add(n);
                }
            }
        }
    };
    let facts = SparseFacts {
        trajectory: &trajectory,
        skipped: &skipped,
    };
    Some(vec![TrajectoryTally::of_parts(
        matcher,
        &trajectory,
        &facts,
        &error_at,
        &mut counted,
    )])
}

/// What the sequence conditions read of a trajectory whose observations may be left empty:
/// whether an observation repeats the previous one comes from the raw bytes.
struct SparseFacts<'a> {
    trajectory: &'a Trajectory,
    skipped: &'a [Skipped<Counted>],
}

impl Facts for SparseFacts<'_> {
    fn streaks(&self, same_observation: bool) -> Vec<usize> {
        sequence::streaks_by(self.trajectory, same_observation, &|i| {
            self.skipped.get(i).is_some_and(|s| s.same_observation)
        })
    }

    fn costs_so_far(&self) -> Vec<f64> {
        self.trajectory.costs_so_far()
    }
}

/// The tallies of `path` by the raw-byte path, or `None` when the rules or the file take the
/// exact one (for tests and benchmarks that compare the two).
pub fn sparse_tally_file(path: &Path, matcher: &Matcher) -> Option<Vec<TrajectoryTally>> {
    let plan = matcher.sparse_plan()?;
    let bytes = std::fs::read(path).ok()?;
    tally_bytes(path, &bytes, matcher, plan)
}
