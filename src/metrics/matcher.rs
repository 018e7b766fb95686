//! Compiled rules: per field, one Aho-Corasick automaton for all literal rules and the gate
//! strings of regex rules ([`super::gate`]), the gated regexes (run only where a gate string
//! occurred), one `RegexSet` for the regex rules without a gate, and the conditions. `scan`
//! runs them over every step of a trajectory and gives the matches per step and rule.
//!
//! Counting follows `str::matches`: non-overlapping occurrences, leftmost first. A rule on
//! `any` searches each field on its own and adds the counts up.

use super::field::{Field, made_tool_call, tool_calls_of};
use super::gate::gate;
use super::rule::{Pattern, Rule, RuleId};
use super::rule_error::RuleError;
use super::sequence;
use super::sparse_tally::SparsePlan;
use super::step_conditions::StepConditions;
use super::step_matches::StepMatches;
use crate::model::{Step, Trajectory};
use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use rayon::prelude::*;
use regex::{Regex, RegexSet};
use std::collections::HashMap;
use std::sync::OnceLock;

/// Rules compiled for scanning. Build once, share (it is `Send + Sync`), scan many
/// trajectories in parallel.
#[derive(Debug, Clone)]
pub struct Matcher {
    rules: Vec<Rule>,
    ids: HashMap<String, RuleId>,
    scanners: Vec<FieldScanner>,
    /// Rules without a pattern: counted by their conditions alone.
    patternless: Vec<RuleId>,
    /// Rules with a condition on the step itself (tool, after a tool call).
    conditional: Vec<RuleId>,
    /// Rules with an `unless` pattern, and it compiled.
    excluding: Vec<(RuleId, Regex)>,
    /// `when` conditions and classifiers.
    step_conditions: StepConditions,
    sequences: Vec<sequence::Plan>,
    /// What the raw-byte tally needs of these rules, built on first use.
    sparse: OnceLock<Option<SparsePlan>>,
}

#[derive(Debug, Clone)]
struct FieldScanner {
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
    each: Vec<(RuleId, Regex)>,
}

/// A regex rule run only where one of its gate strings occurs.
#[derive(Debug, Clone)]
struct Gated {
    rule: RuleId,
    regex: Regex,
    per_line: bool,
}

/// A regex as compiled, or why it did not.
type Compiled = Result<Regex, regex::Error>;

/// Reused between texts: where the literal pass found what.
#[derive(Debug, Default)]
struct Scratch {
    last_end: Vec<usize>,
    /// Per gated rule: positions of gate strings (per-line rules) or whether one occurred.
    gate_hits: Vec<Vec<usize>>,
    gate_seen: Vec<bool>,
}

/// Counts steps one at a time with a [`Matcher`] ([`Matcher::step_scanner`]).
pub(crate) struct StepScanner<'m> {
    matcher: &'m Matcher,
    scratch: Scratch,
}

impl StepScanner<'_> {
    /// What `step` matches on its own: one count per rule.
    pub(crate) fn row(&mut self, step: &Step) -> Vec<u32> {
        let mut row = vec![0; self.matcher.rules.len()];
        self.matcher.count_step(step, &mut row, &mut self.scratch);
        row
    }
}

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
                let regex = regex_source(rule).map(|source| Regex::new(&source));
                let unless = rule.unless.as_ref().map(|p| Regex::new(&pattern_regex(p)));
                (regex, unless)
            })
            .collect();
        let mut kept: Vec<(Rule, Option<Regex>)> = Vec::new();
        let mut unless: HashMap<String, Regex> = HashMap::new();
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
                Some(Ok(regex)) if can_match_empty(regex.as_str()) => {
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
                    Ok(r) if can_match_empty(r.as_str()) => {
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

    /// The rules that run, in order: a [`RuleId`] indexes this slice.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    pub fn rule(&self, id: RuleId) -> Option<&Rule> {
        self.rules.get(id)
    }

    /// What the raw-byte tally ([`super::sparse_tally`]) needs of these rules; `None` when
    /// they read the steps in ways it cannot follow.
    pub(crate) fn sparse_plan(&self) -> Option<&SparsePlan> {
        self.sparse.get_or_init(|| SparsePlan::new(self)).as_ref()
    }

    /// The id of the rule named `name`.
    pub fn id(&self, name: &str) -> Option<RuleId> {
        self.ids.get(name).copied()
    }

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
            Vec<(RuleId, &Regex, bool)>,
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

    /// Every rule's matches at every step of `trajectory`.
    pub fn scan(&self, trajectory: &Trajectory) -> StepMatches {
        self.scan_with(trajectory, &mut |_, _| {})
    }

    /// [`Matcher::scan`], with `counted(i, row)` adding to step `i`'s row what was counted
    /// elsewhere (the raw-byte tally's counts of texts it left empty) before the conditions
    /// on the step and the sequences apply.
    pub(crate) fn scan_with(
        &self,
        trajectory: &Trajectory,
        counted: &mut dyn FnMut(usize, &mut [u32]),
    ) -> StepMatches {
        let rules = self.rules.len();
        let mut matches = StepMatches::new(trajectory.steps.len(), rules);
        let mut scratch = Scratch::default();
        for (i, step) in trajectory.steps.iter().enumerate() {
            let row = matches.row_mut(i + 1);
            self.count_fields(step, row, &mut scratch);
            counted(i, row);
            self.qualify(step, row);
        }
        self.apply_sequences(trajectory, &mut matches);
        matches
    }

    /// The sequence conditions, over the step-local counts of every step.
    pub(crate) fn apply_sequences(&self, facts: &dyn sequence::Facts, matches: &mut StepMatches) {
        for plan in &self.sequences {
            plan.apply(facts, matches);
        }
    }

    /// A scanner of steps one at a time: each step's counts of the rules that look at that
    /// step alone ([`Matcher::apply_sequences`] does the rest).
    pub(crate) fn step_scanner(&self) -> StepScanner<'_> {
        StepScanner {
            matcher: self,
            scratch: Scratch::default(),
        }
    }

    /// Counts into `row` (one count per rule) what `step` matches on its own.
    fn count_step(&self, step: &Step, row: &mut [u32], scratch: &mut Scratch) {
        self.count_fields(step, row, scratch);
        self.qualify(step, row);
    }

    /// What each field's patterns find in `step`, before the step's conditions.
    fn count_fields(&self, step: &Step, row: &mut [u32], scratch: &mut Scratch) {
        for scanner in &self.scanners {
            scanner.count(step, row, scratch);
        }
    }

    /// The conditions on `step` applied to its counts: tool, after a tool call, exclusions,
    /// rules without a pattern.
    fn qualify(&self, step: &Step, row: &mut [u32]) {
        for &id in &self.conditional {
            if !self.step_qualifies(&self.rules[id], step) {
                row[id] = 0;
            }
        }
        for &id in &self.patternless {
            row[id] = self.patternless_count(&self.rules[id], step);
        }
        for (id, regex) in &self.excluding {
            if row[*id] > 0 && excluded(self.rules[*id].field, regex, step) {
                row[*id] = 0;
            }
        }
        if !self.step_conditions.is_empty() {
            self.step_conditions.apply(step, row);
        }
    }

    /// The step-local conditions: the tool called, and that a tool was called at all.
    fn step_qualifies(&self, rule: &Rule, step: &Step) -> bool {
        if rule.after_tool_call && !made_tool_call(step) {
            return false;
        }
        match &rule.tool {
            None => true,
            Some(condition) => tool_calls_of(step).iter().any(|t| condition.accepts(t)),
        }
    }

    /// A rule without a pattern counts each qualifying tool call, or the step once.
    fn patternless_count(&self, rule: &Rule, step: &Step) -> u32 {
        if rule.after_tool_call && !made_tool_call(step) {
            return 0;
        }
        match &rule.tool {
            None => 1,
            Some(condition) => {
                let calls = tool_calls_of(step)
                    .into_iter()
                    .filter(|t| condition.accepts(t))
                    .count();
                u32::try_from(calls).unwrap_or(u32::MAX)
            }
        }
    }
}

impl FieldScanner {
    fn new(field: Field, rules: &[(Rule, Option<Regex>)]) -> Option<FieldScanner> {
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
                (Some(regex), _) => match gate(regex.as_str()) {
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
                                AhoCorasick::builder()
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
    fn count(&self, step: &Step, row: &mut [u32], scratch: &mut Scratch) {
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
                    gated.regex.find_iter(&text).count()
                };
                add(row, gated.rule, n);
            }
        }
        if let Some(regexes) = &self.regexes {
            for i in regexes.set.matches(&text).iter() {
                let (id, regex) = &regexes.each[i];
                add(row, *id, regex.find_iter(&text).count());
            }
        }
    }
}

/// Matches of `regex` in the lines of `text` that hold one of `positions`. Sound for
/// regexes that cannot match across lines nor anchor to the text (see `gate`).
fn count_in_lines(regex: &Regex, text: &str, positions: &mut [usize]) -> usize {
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
        total += regex.find_iter(&text[start..end]).count();
        done_to = end + 1;
    }
    total
}

/// Whether a compiled regex can match the empty string somewhere (`a*`, `^`, `\b`): it
/// would count a match at every position.
fn can_match_empty(source: &str) -> bool {
    regex_syntax::parse(source).map_or(true, |hir| hir.properties().minimum_len() == Some(0))
}

/// Whether `regex` matches in any of the fields `field` covers.
fn excluded(field: Field, regex: &Regex, step: &Step) -> bool {
    Field::CONCRETE
        .into_iter()
        .filter(|f| field.covers(*f))
        .any(|f| regex.is_match(&f.text(step)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::rule::ToolCondition;
    use crate::model::{Format, ToolCall};

    fn trajectory(steps: Vec<Step>) -> Trajectory {
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        t.steps = steps;
        t.number_steps();
        t
    }

    fn step(action: &str, observation: &str) -> Step {
        Step {
            action: action.into(),
            tool: action.split_whitespace().next().map(String::from),
            observation: observation.into(),
            ..Step::default()
        }
    }

    fn matcher(rules: Vec<Rule>) -> Matcher {
        let (m, errors) = Matcher::new(rules);
        assert!(errors.is_empty(), "{errors:?}");
        m
    }

    #[test]
    fn literals_count_like_str_matches_per_field() {
        let m = matcher(vec![
            Rule::new("aa", Pattern::literal("aa"), Field::Observation),
            Rule::new("a", Pattern::literal("a"), Field::Observation),
            Rule::new("any_x", Pattern::literal("x"), Field::Any),
            Rule::new("same_text", Pattern::literal("aa"), Field::Observation),
        ]);
        let t = trajectory(vec![step("x", "aaaaa x"), step("ls", "none")]);
        let found = m.scan(&t);
        assert_eq!(found.get(1, 0), "aaaaa x".matches("aa").count() as u32);
        assert_eq!(found.get(1, 1), 5);
        assert_eq!(
            found.get(1, 3),
            2,
            "two rules with the same literal both count"
        );
        // `x` is in the action, the observation and the tool name (the action's first word).
        assert_eq!(found.get(1, 2), 3);
        assert_eq!(found.get(2, 0), 0);
        assert_eq!(found.rules_at(1).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!(found.rules_at(2).count(), 0);
    }

    #[test]
    fn overlapping_patterns_on_many_lines_count_like_str_matches() {
        let text = "x SyntaxError\nno\nError Error: rror\n\nTraceback (most recent call last):\nErrorError";
        let literals = ["SyntaxError", "Error", "rror", "Error:", "or\nno"];
        let build = |with_newline: bool| {
            let mut rules: Vec<Rule> = literals
                .iter()
                .filter(|l| with_newline || !l.contains('\n'))
                .map(|l| Rule::new(*l, Pattern::literal(*l), Field::Observation))
                .collect();
            rules.push(Rule::new(
                "line_start",
                Pattern::regex(r"^Error\b"),
                Field::Observation,
            ));
            rules.push(Rule::new(
                "traceback",
                Pattern::regex(r"^Traceback \("),
                Field::Observation,
            ));
            matcher(rules)
        };
        for with_newline in [false, true] {
            let m = build(with_newline);
            let found = m.scan(&trajectory(vec![step("x", text)]));
            for (id, rule) in m.rules().iter().enumerate() {
                let want = match &rule.pattern {
                    Some(p) if !p.regex => text.matches(p.text.as_str()).count(),
                    _ => Regex::new(&format!("(?m){}", rule.pattern.as_ref().unwrap().text))
                        .unwrap()
                        .find_iter(text)
                        .count(),
                };
                assert_eq!(
                    found.get(1, id) as usize,
                    want,
                    "{} (newline pattern: {with_newline})",
                    rule.name
                );
            }
        }
    }

    #[test]
    fn regexes_are_line_anchored_and_case_options_work() {
        let m = matcher(vec![
            Rule::new("tb", Pattern::regex(r"^Traceback"), Field::Observation),
            Rule::new(
                "ci",
                Pattern {
                    text: "error".into(),
                    regex: false,
                    ignore_case: true,
                },
                Field::Observation,
            ),
        ]);
        let t = trajectory(vec![step(
            "python x.py",
            "out\nTraceback (most\n  Traceback nested\nValueError: ERROR and Error",
        )]);
        let found = m.scan(&t);
        assert_eq!(found.get(1, 0), 1, "only at a line start");
        assert_eq!(found.get(1, 1), 3);
    }

    #[test]
    fn tool_and_after_tool_call_conditions() {
        let mut tools = Rule::new("edits", Pattern::literal("ok"), Field::Observation);
        tools.tool = Some(ToolCondition::Named(vec!["edit".into()]));
        let mut calls = Rule::new("calls", Pattern::literal("unused"), Field::Observation);
        calls.pattern = None;
        calls.tool = Some(ToolCondition::Any);
        let mut after_call = Rule::new("err", Pattern::literal("Error"), Field::Observation);
        after_call.after_tool_call = true;
        let m = matcher(vec![tools, calls, after_call]);
        let mut parallel = step("", "ok Error");
        parallel.tool_calls = vec![ToolCall::new("edit", "{}"), ToolCall::new("open", "{}")];
        let rejected = Step {
            tool: Some("(FormatError)".into()),
            observation: "Error: no tool call".into(),
            ..Step::default()
        };
        let t = trajectory(vec![
            step("edit 1:2", "ok"),
            step("open x", "ok"),
            parallel,
            rejected,
        ]);
        let found = m.scan(&t);
        assert_eq!(
            (found.get(1, 0), found.get(2, 0), found.get(3, 0)),
            (1, 0, 1)
        );
        assert_eq!(
            (found.get(1, 1), found.get(3, 1), found.get(4, 1)),
            (1, 2, 0)
        );
        assert_eq!((found.get(3, 2), found.get(4, 2)), (1, 0));
    }

    #[test]
    fn unless_drops_the_step() {
        let mut runs = Rule::new("runs", Pattern::regex(r"python -"), Field::Action);
        runs.unless = Some(Pattern::regex(r"write_text\("));
        let mut bad = Rule::new("bad", Pattern::literal("x"), Field::Any);
        bad.unless = Some(Pattern::regex("("));
        let (m, errors) = Matcher::new(vec![runs, bad]);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].to_string().contains("invalid regex in `unless`"));
        let t = trajectory(vec![
            step("python - <<EOF\nprint(1)\nEOF", ""),
            step("python - <<EOF\np.write_text(s)\nEOF", ""),
        ]);
        let found = m.scan(&t);
        assert_eq!((found.get(1, 0), found.get(2, 0)), (1, 0));
    }

    #[test]
    fn bad_rules_are_dropped_and_reported_the_rest_run() {
        let mut refers = Rule::new("after_missing", Pattern::literal("x"), Field::Any);
        refers.after = Some("nope".into());
        let mut looped = Rule::new("loop", Pattern::literal("x"), Field::Any);
        looped.repeat = Some(2);
        let mut refers_to_sequence = Rule::new("after_loop", Pattern::literal("x"), Field::Any);
        refers_to_sequence.after = Some("loop".into());
        let (m, errors) = Matcher::new(vec![
            Rule::new("bad", Pattern::regex("(unclosed"), Field::Any),
            Rule::new("empty", Pattern::regex("a*"), Field::Any),
            Rule::new("good", Pattern::literal("x"), Field::Any),
            Rule::new("good", Pattern::literal("y"), Field::Any),
            refers,
            looped,
            refers_to_sequence,
        ]);
        let names: Vec<&str> = m.rules().iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, vec!["good", "loop"]);
        let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errors.len(), 5, "{shown:#?}");
        assert!(shown[0].contains("`bad`: invalid regex"), "{}", shown[0]);
        assert!(!shown[0].contains('\n'));
        assert!(shown[1].contains("`empty`") && shown[1].contains("empty string"));
        assert!(shown[2].contains("already defined"));
        assert!(shown[3].contains("`nope`, which is not a defined rule"));
        assert!(shown[4].contains("sequence conditions itself"));
        assert_eq!(m.id("loop"), Some(1));
    }
}
