//! The literal pass of one field: one Aho-Corasick automaton for the field's literal rules
//! and the gate strings of its gated regex rules ([`crate::metrics::gate`]), the gated
//! regexes (run only on the lines where a gate string occurred), one `RegexSet` for the
//! regex rules without a gate; and what of it the raw-byte tally takes over
//! ([`Matcher::literal_parts`]).

use super::Matcher;
use crate::metrics::field::Field;
use crate::metrics::gate::gate_of;
use crate::metrics::rule::{Rule, RuleId};
use crate::metrics::rule_regex::RuleRegex;
use crate::model::Step;
use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::RegexSet;

#[derive(Debug, Clone)]
pub(super) struct FieldScanner {
    field: Field,
    /// Literal rules and the gate strings of gated regex rules, in one automaton.
    literals: Option<Literals>,
    /// Regex rules without a gate, run over every text.
    regexes: Option<Regexes>,
    gated: Vec<Gated>,
}

#[derive(Debug, Clone)]
struct Literals {
    /// Reports every occurrence of every pattern (overlapping), run on candidate lines.
    automaton: AhoCorasick,
    /// Leftmost-first, which its prefilter makes several times faster than an overlapping
    /// search: finds the lines worth the overlapping pass. `None` when a pattern spans lines.
    lines: Option<AhoCorasick>,
    /// Pattern index → what an occurrence means.
    targets: Vec<Target>,
    /// The patterns themselves, for the raw-byte tally's own automaton.
    patterns: Vec<String>,
}

#[derive(Debug, Clone, Copy)]
enum Target {
    /// A literal rule's own pattern: counts.
    Count(RuleId),
    /// A gate string of `gated[i]`.
    Gate(usize),
}

#[derive(Debug, Clone)]
struct Regexes {
    set: RegexSet,
    /// Set index → rule and its own regex, to count the matches the set found.
    each: Vec<(RuleId, RuleRegex)>,
}

/// A regex rule run only where one of its gate strings occurs.
#[derive(Debug, Clone)]
struct Gated {
    rule: RuleId,
    regex: RuleRegex,
    per_line: bool,
}

/// Reused between texts: where the literal pass found what.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    last_end: Vec<usize>,
    /// Per gated rule: positions of gate strings (per-line rules) or whether one occurred.
    gate_hits: Vec<Vec<usize>>,
    gate_seen: Vec<bool>,
}

impl Matcher {
    /// What the literal pass searches in `field`, for the raw-byte tally: each pattern with
    /// the rule it counts for (`Ok`) or the index of the gated regex it gates (`Err`), and
    /// the gated regexes (rule, regex, per line). `None` when the field has no literal pass;
    /// `Some(None)` when the field also runs ungated regexes (or its automata did not build),
    /// which only the decoded text can serve.
    #[allow(clippy::type_complexity)]
    pub(crate) fn literal_parts(
        &self,
        field: Field,
    ) -> Option<
        Option<(
            Vec<(&str, Result<RuleId, usize>)>,
            Vec<(RuleId, &RuleRegex, bool)>,
        )>,
    > {
        let scanner = self.scanners.iter().find(|s| s.field == field)?;
        if scanner.regexes.is_some() {
            return Some(None);
        }
        let Some(literals) = &scanner.literals else {
            return Some(None);
        };
        let patterns = literals
            .patterns
            .iter()
            .zip(&literals.targets)
            .map(|(p, t)| {
                let target = match t {
                    Target::Count(id) => Ok(*id),
                    Target::Gate(g) => Err(*g),
                };
                (p.as_str(), target)
            })
            .collect();
        let gated = scanner
            .gated
            .iter()
            .map(|g| (g.rule, &g.regex, g.per_line))
            .collect();
        Some(Some((patterns, gated)))
    }
}

impl FieldScanner {
    pub(super) fn new(field: Field, rules: &[(Rule, Option<RuleRegex>)]) -> Option<FieldScanner> {
        let covered = rules
            .iter()
            .enumerate()
            .filter(|(_, (r, _))| r.pattern.is_some() && r.field.covers(field));
        let mut patterns: Vec<String> = Vec::new();
        let mut targets: Vec<Target> = Vec::new();
        let mut regex_sources = Vec::new();
        let mut each = Vec::new();
        let mut gated = Vec::new();
        for (id, (rule, regex)) in covered {
            match (regex, &rule.pattern) {
                (Some(regex), _) => match gate_of(regex.hir()) {
                    Some(g) => {
                        for literal in g.literals {
                            patterns.push(literal);
                            targets.push(Target::Gate(gated.len()));
                        }
                        gated.push(Gated {
                            rule: id,
                            regex: regex.clone(),
                            per_line: g.per_line,
                        });
                    }
                    None => {
                        regex_sources.push(regex.as_str().to_string());
                        each.push((id, regex.clone()));
                    }
                },
                (None, Some(pattern)) => {
                    patterns.push(pattern.text.clone());
                    targets.push(Target::Count(id));
                }
                (None, None) => {}
            }
        }
        // Both builds only fail past size limits that sources checked one by one cannot reach
        // together in practice; a failure drops the field's fast path, never the program.
        let literals = (!patterns.is_empty())
            .then(|| {
                // The overlapping automaton runs on the lines the leftmost-first one found
                // (on whole texts only when a pattern spans lines), so it is a contiguous
                // NFA: a DFA searches faster but takes longer to build than a small run
                // spends searching those lines. Measured: no slower on a run of 5,000.
                let (automaton, lines) = rayon::join(
                    || {
                        AhoCorasick::builder()
                            .kind(Some(AhoCorasickKind::ContiguousNFA))
                            .build(&patterns)
                            .ok()
                    },
                    || {
                        (!patterns.iter().any(|p| p.contains('\n')))
                            .then(|| {
                                // Contiguous too: it runs where the prefilter stops.
                                AhoCorasick::builder()
                                    .kind(Some(AhoCorasickKind::ContiguousNFA))
                                    .match_kind(MatchKind::LeftmostFirst)
                                    .build(&patterns)
                                    .ok()
                            })
                            .flatten()
                    },
                );
                Some(Literals {
                    automaton: automaton?,
                    lines,
                    targets,
                    patterns: patterns.clone(),
                })
            })
            .flatten();
        let regexes = (!regex_sources.is_empty())
            .then(|| RegexSet::new(&regex_sources).ok())
            .flatten()
            .map(|set| Regexes { set, each });
        (literals.is_some() || regexes.is_some()).then_some(FieldScanner {
            field,
            literals,
            regexes,
            gated,
        })
    }

    /// Every occurrence of the literal patterns in `text[start..end]`: counts literal rules
    /// and notes gate strings.
    fn occurrences(
        &self,
        literals: &Literals,
        text: &str,
        start: usize,
        end: usize,
        row: &mut [u32],
        scratch: &mut Scratch,
    ) {
        // Overlapping search reports every occurrence of every pattern; keeping, per
        // pattern, only those that start at or after the end of the last one kept gives the
        // non-overlapping count of each pattern on its own.
        let input = aho_corasick::Input::new(text).span(start..end);
        let Ok(found) = literals.automaton.try_find_overlapping_iter(input) else {
            return;
        };
        for m in found {
            let p = m.pattern().as_usize();
            match literals.targets[p] {
                Target::Count(id) => {
                    if m.start() >= scratch.last_end[p] {
                        scratch.last_end[p] = m.end();
                        row[id] += 1;
                    }
                }
                Target::Gate(g) => {
                    scratch.gate_seen[g] = true;
                    if self.gated[g].per_line {
                        scratch.gate_hits[g].push(m.start());
                    }
                }
            }
        }
    }

    /// Adds this field's matches in `step` to `row`.
    pub(super) fn count(&self, step: &Step, row: &mut [u32], scratch: &mut Scratch) {
        let text = self.field.text(step);
        if text.is_empty() {
            return;
        }
        let add = |row: &mut [u32], id: RuleId, n: usize| {
            row[id] = row[id].saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        };
        if let Some(literals) = &self.literals {
            scratch.last_end.clear();
            scratch.last_end.resize(literals.targets.len(), 0);
            scratch.gate_hits.resize(self.gated.len(), Vec::new());
            scratch.gate_hits.iter_mut().for_each(Vec::clear);
            scratch.gate_seen.clear();
            scratch.gate_seen.resize(self.gated.len(), false);
            match &literals.lines {
                Some(finder) => {
                    // Every line holding an occurrence of a pattern holds the start of a
                    // leftmost-first match (patterns do not span lines), so the exact
                    // overlapping pass over those lines alone sees every occurrence.
                    let bytes = text.as_bytes();
                    let mut done_to = 0;
                    for m in finder.find_iter(text.as_ref()) {
                        if m.start() < done_to {
                            continue;
                        }
                        let start =
                            memchr::memrchr(b'\n', &bytes[..m.start()]).map_or(0, |i| i + 1);
                        let end = memchr::memchr(b'\n', &bytes[m.start()..])
                            .map_or(bytes.len(), |i| m.start() + i);
                        self.occurrences(literals, &text, start, end, row, scratch);
                        done_to = end + 1;
                    }
                }
                None => self.occurrences(literals, &text, 0, text.len(), row, scratch),
            }
            for (g, gated) in self.gated.iter().enumerate() {
                if !scratch.gate_seen[g] {
                    continue;
                }
                let n = if gated.per_line {
                    count_in_lines(&gated.regex, &text, &mut scratch.gate_hits[g])
                } else {
                    gated.regex.count(&text)
                };
                add(row, gated.rule, n);
            }
        }
        if let Some(regexes) = &self.regexes {
            for i in regexes.set.matches(&text).iter() {
                let (id, regex) = &regexes.each[i];
                add(row, *id, regex.count(&text));
            }
        }
    }
}

/// Matches of `regex` in the lines of `text` that hold one of `positions`. Sound for
/// regexes that cannot match across lines nor anchor to the text (see `gate`).
fn count_in_lines(regex: &RuleRegex, text: &str, positions: &mut [usize]) -> usize {
    positions.sort_unstable();
    let bytes = text.as_bytes();
    let mut total = 0;
    let mut done_to = 0;
    for &position in positions.iter() {
        if position < done_to {
            continue;
        }
        let start = memchr::memrchr(b'\n', &bytes[..position]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &bytes[position..]).map_or(bytes.len(), |i| position + i);
        total += regex.count(&text[start..end]);
        done_to = end + 1;
    }
    total
}
