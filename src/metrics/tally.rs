//! Tallies: what the rules found in one trajectory ([`TrajectoryTally`], small, the steps
//! themselves dropped) and across a run ([`Tally`]), with counts per rule and tool split by
//! resolved / unresolved / unknown, the hits behind every count for drill-down, and the
//! hand-made labels counted like rules.
//!
//! A tally grows one trajectory at a time: adding a trajectory (or a new version of one, as
//! a live-watched file grows) scans that trajectory only. Run-wide counts are summed on
//! request from the per-trajectory hits, which is cheap next to scanning.

use super::exit_kind::ExitKind;
use super::field::tool_calls_of;
use super::folded_tally::{FoldedTally, add_rule_counts, add_tools};
use super::labels::LabelSet;
use super::matcher::Matcher;
use super::overview::Overview;
use super::rule::RuleId;
use super::sequence::Facts;
use super::step_matches::StepHit;
pub use crate::model::TrajectoryKey;
use crate::model::{
    JoinTarget, Step, Trajectory, TrajectoryHeader, Usage, count_patch_lines, patch_files,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// Whether a trajectory solved its task, as far as the eval results say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Resolved,
    Unresolved,
    Unknown,
}

impl Outcome {
    pub fn of(resolved: Option<bool>) -> Outcome {
        match resolved {
            Some(true) => Outcome::Resolved,
            Some(false) => Outcome::Unresolved,
            None => Outcome::Unknown,
        }
    }
}

/// One tool's use in one trajectory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolUse {
    pub name: String,
    pub calls: u32,
    pub steps: u32,
}

/// What the rules found in one trajectory, and what the run statistics need of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrajectoryTally {
    #[serde(flatten)]
    pub header: TrajectoryHeader,
    /// SWE-agent's forced exit, when the last step is one (`exit_cost`, `exit_context`, …):
    /// such runs are autosubmitted and some logs then say just `submitted`.
    pub forced_exit: Option<String>,
    /// Steps whose observation reads like an error; `None` in tallies cached before it was
    /// kept.
    #[serde(default)]
    pub error_steps: Option<usize>,
    pub steps: usize,
    pub usage: Usage,
    /// Non-blank lines of the submitted patch; 0 is an empty patch.
    pub patch_lines: usize,
    /// The files the submitted patch touches (for localization against a gold patch).
    #[serde(default)]
    pub patch_files: Vec<String>,
    /// Every (step, rule) that matched, by step then rule.
    pub hits: Vec<StepHit>,
    /// Tools by first use.
    pub tools: Vec<ToolUse>,
}

/// Counts `step`'s tool calls into `tools` (tools by first use).
pub(crate) fn count_tools(tools: &mut Vec<ToolUse>, step: &Step) {
    let mut seen_here: Vec<&str> = Vec::new();
    for name in tool_calls_of(step) {
        let index = match tools.iter().position(|t| t.name == name) {
            Some(i) => i,
            None => {
                tools.push(ToolUse {
                    name: name.to_string(),
                    calls: 0,
                    steps: 0,
                });
                tools.len() - 1
            }
        };
        tools[index].calls += 1;
        if !seen_here.contains(&name) {
            seen_here.push(name);
            tools[index].steps += 1;
        }
    }
}

impl TrajectoryTally {
    /// Scans `trajectory` with `matcher`.
    pub fn of(matcher: &Matcher, trajectory: &Trajectory) -> TrajectoryTally {
        TrajectoryTally::of_parts(matcher, trajectory, trajectory, &|_| false, &mut |_, _| {})
    }

    /// [`TrajectoryTally::of`] for a trajectory some of whose texts were counted on their raw
    /// bytes and left empty (`metrics::sparse_tally`): `facts` tells the sequence conditions
    /// which observations repeat, `error_at(i)` says step `i`'s observation held an error
    /// marker, `counted(i, row)` adds its counts.
    pub(crate) fn of_parts(
        matcher: &Matcher,
        trajectory: &Trajectory,
        facts: &dyn Facts,
        error_at: &dyn Fn(usize) -> bool,
        counted: &mut dyn FnMut(usize, &mut [u32]),
    ) -> TrajectoryTally {
        let mut tools: Vec<ToolUse> = Vec::new();
        for step in &trajectory.steps {
            count_tools(&mut tools, step);
        }
        // A run keeps one tally per trajectory until its end (100,000 rows of a dataset):
        // the vectors' spare capacity from growing would be kept with it.
        tools.shrink_to_fit();
        let mut hits = matcher.scan_with(trajectory, facts, counted).hits();
        hits.shrink_to_fit();
        let mut patch_files = trajectory
            .submission
            .as_deref()
            .map_or_else(Vec::new, patch_files);
        patch_files.shrink_to_fit();
        TrajectoryTally {
            header: trajectory.header.listed(),
            forced_exit: crate::model::forced_exit(trajectory),
            error_steps: Some(
                (trajectory.steps.iter().enumerate())
                    .filter(|(i, s)| error_at(*i) || s.is_error())
                    .count(),
            ),
            steps: trajectory.steps.len(),
            usage: trajectory.total_usage(),
            patch_lines: trajectory.patch_lines(),
            patch_files,
            hits,
            tools,
        }
    }

    pub fn outcome(&self) -> Outcome {
        Outcome::of(self.resolved)
    }

    /// How the run ended: the forced exit when there was one, else the exit status.
    pub fn exit_kind(&self) -> ExitKind {
        match &self.forced_exit {
            Some(forced) => ExitKind::of(Some(forced)),
            None => ExitKind::of(self.exit_status.as_deref()),
        }
    }

    /// The exit status as listings show it (`submitted (exit_cost)`).
    pub fn exit_shown(&self) -> Option<String> {
        crate::model::exit_shown(self.exit_status.as_deref(), self.forced_exit.as_deref())
    }

    /// Whether the rule named `name` (of `rules`, the matcher's) matched at any step.
    pub fn matched(&self, rules: &[super::Rule], name: &str) -> bool {
        self.hits
            .iter()
            .any(|h| rules.get(h.rule).is_some_and(|r| r.name == name))
    }

    /// The rules that matched at 1-based `step`.
    pub fn rules_at(&self, step: usize) -> impl Iterator<Item = RuleId> + '_ {
        let start = self.hits.partition_point(|h| (h.step as usize) < step);
        self.hits[start..]
            .iter()
            .take_while(move |h| h.step as usize == step)
            .map(|h| h.rule)
    }
}

crate::model::derefs_to_header!(TrajectoryTally);

impl JoinTarget for TrajectoryTally {
    fn take_patch(&mut self, patch: &str) {
        if self.patch_lines == 0 {
            self.patch_lines = count_patch_lines(patch);
            self.patch_files = patch_files(patch);
        }
    }
}

/// Matches, steps with a match, and trajectories with a match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub matches: u64,
    pub steps: u64,
    pub trajectories: u64,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.matches += other.matches;
        self.steps += other.steps;
        self.trajectories += other.trajectories;
    }
}

/// Counts overall and by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Split {
    pub all: Counts,
    pub resolved: Counts,
    pub unresolved: Counts,
    pub unknown: Counts,
}

impl Split {
    pub(super) fn add(&mut self, outcome: Outcome, counts: Counts) {
        self.all.add(counts);
        match outcome {
            Outcome::Resolved => self.resolved.add(counts),
            Outcome::Unresolved => self.unresolved.add(counts),
            Outcome::Unknown => self.unknown.add(counts),
        }
    }

    pub(super) fn add_split(&mut self, other: &Split) {
        self.all.add(other.all);
        self.resolved.add(other.resolved);
        self.unresolved.add(other.unresolved);
        self.unknown.add(other.unknown);
    }

    pub fn get(&self, outcome: Option<Outcome>) -> Counts {
        match outcome {
            None => self.all,
            Some(Outcome::Resolved) => self.resolved,
            Some(Outcome::Unresolved) => self.unresolved,
            Some(Outcome::Unknown) => self.unknown,
        }
    }
}

/// What a row of the tally counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "id")]
pub enum RowKind {
    Rule(RuleId),
    Label,
}

/// One row of the tally table: a rule or a label, with its counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    pub name: String,
    pub kind: RowKind,
    pub counts: Split,
}

/// One tool's use across the run; `matches` counts calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolRow {
    pub name: String,
    pub counts: Split,
}

/// A step behind a count: the trajectory (an index into [`Tally::trajectories`]) and step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Hit {
    pub trajectory: usize,
    pub step: u32,
    pub matches: u32,
}

/// A label placed on a step of a tallied trajectory.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PlacedLabel {
    key: TrajectoryKey,
    step: u32,
    label: String,
}

/// The tally of a run.
#[derive(Debug, Clone)]
pub struct Tally {
    matcher: Arc<Matcher>,
    trajectories: Vec<TrajectoryTally>,
    index: HashMap<TrajectoryKey, usize>,
    labels: Vec<PlacedLabel>,
    /// Trajectories counted and no longer kept ([`Tally::fold`]): in the counts, the
    /// overview and [`Tally::len`], not in [`Tally::trajectories`] nor any drill-down.
    folded: Option<FoldedTally>,
}

impl Tally {
    pub fn new(matcher: Arc<Matcher>) -> Tally {
        Tally {
            matcher,
            trajectories: Vec::new(),
            index: HashMap::new(),
            labels: Vec::new(),
            folded: None,
        }
    }

    /// Tallies every trajectory of a loaded run.
    pub fn of_trajectories(matcher: Arc<Matcher>, trajectories: &[Trajectory]) -> Tally {
        use rayon::prelude::*;
        let tallies: Vec<TrajectoryTally> = trajectories
            .par_iter()
            .map(|t| TrajectoryTally::of(&matcher, t))
            .collect();
        let mut tally = Tally::new(matcher);
        for t in tallies {
            tally.insert(t);
        }
        tally
    }

    pub fn matcher(&self) -> &Arc<Matcher> {
        &self.matcher
    }

    pub fn trajectories(&self) -> &[TrajectoryTally] {
        &self.trajectories
    }

    pub fn trajectory(&self, index: usize) -> Option<&TrajectoryTally> {
        self.trajectories.get(index)
    }

    pub fn trajectories_mut(&mut self) -> &mut [TrajectoryTally] {
        &mut self.trajectories
    }

    /// The index of a trajectory in [`Tally::trajectories`].
    pub fn find(&self, key: &TrajectoryKey) -> Option<usize> {
        self.index.get(key).copied()
    }

    /// Trajectories counted, folded ones included.
    pub fn len(&self) -> usize {
        self.trajectories.len() + self.folded.as_ref().map_or(0, FoldedTally::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds the counts of trajectories that are not kept (after those folded before): a run
    /// summed up as it is read. Their verdicts must be final, and labels cannot be placed on
    /// them.
    pub fn fold(&mut self, later: FoldedTally) {
        match &mut self.folded {
            Some(folded) => folded.append(later),
            None => self.folded = Some(later),
        }
    }

    /// The run at a glance: [`Overview::of`] the trajectories, folded ones included.
    pub fn overview(&self) -> Overview {
        let mut parts = self
            .folded
            .as_ref()
            .map(|f| f.overview().clone())
            .unwrap_or_default();
        for t in &self.trajectories {
            parts.add(t);
        }
        parts.finish()
    }

    /// Scans `trajectory` and adds it, replacing an earlier version of the same trajectory
    /// (same file and index): the live-watch path. Returns its index.
    pub fn add(&mut self, trajectory: &Trajectory) -> usize {
        self.insert(TrajectoryTally::of(&self.matcher, trajectory))
    }

    /// Adds a trajectory tallied elsewhere (on another thread), replacing an earlier
    /// version of it. Returns its index.
    pub fn insert(&mut self, tallied: TrajectoryTally) -> usize {
        match self.index.get(&tallied.key()) {
            Some(&i) => {
                self.trajectories[i] = tallied;
                i
            }
            None => {
                self.index
                    .insert(tallied.key().clone(), self.trajectories.len());
                self.trajectories.push(tallied);
                self.trajectories.len() - 1
            }
        }
    }

    /// Removes a trajectory (its file is gone). Indices after it shift down by one.
    pub fn remove(&mut self, key: &TrajectoryKey) -> Option<TrajectoryTally> {
        let i = self.index.remove(key)?;
        let removed = self.trajectories.remove(i);
        for (j, t) in self.trajectories.iter().enumerate().skip(i) {
            self.index.insert(t.key().clone(), j);
        }
        Some(removed)
    }

    /// Takes the labels of the run folders' label sets (replacing those taken before) to
    /// count them as rows. A label is matched to a trajectory by its path relative to its
    /// run folder, however the run was opened; labels on trajectories not (yet) tallied
    /// count as unknown.
    pub fn set_labels(&mut self, sets: &[LabelSet]) {
        let mut placed = Vec::new();
        for labels in sets {
            let by_relative: HashMap<(String, Option<usize>), TrajectoryKey> = self
                .trajectories
                .iter()
                .filter_map(|t| {
                    let relative = labels.key_of(&t.path)?;
                    Some(((relative, t.source_index), t.key()))
                })
                .collect();
            placed.extend(labels.labels().iter().map(|l| {
                PlacedLabel {
                    key: by_relative
                        .get(&(l.trajectory.clone(), l.source_index))
                        .map(|k| (*k).clone())
                        .unwrap_or_else(|| TrajectoryKey {
                            path: labels.root().join(&l.trajectory),
                            source_index: l.source_index,
                        }),
                    step: u32::try_from(l.step).unwrap_or(u32::MAX),
                    label: l.label.clone(),
                }
            }));
        }
        self.labels = placed;
    }

    /// Trajectories by outcome: (resolved, unresolved, unknown).
    pub fn outcomes(&self) -> (usize, usize, usize) {
        let mut counts = self
            .folded
            .as_ref()
            .map_or((0, 0, 0), |f| f.overview().outcomes());
        for t in &self.trajectories {
            match t.outcome() {
                Outcome::Resolved => counts.0 += 1,
                Outcome::Unresolved => counts.1 += 1,
                Outcome::Unknown => counts.2 += 1,
            }
        }
        counts
    }

    /// The counts of every rule (by id, hidden ones included).
    pub fn rule_counts(&self) -> Vec<Split> {
        let rules = self.matcher.rules().len();
        let mut splits = vec![Split::default(); rules];
        if let Some(folded) = &self.folded {
            for (split, other) in splits.iter_mut().zip(folded.rules()) {
                split.add_split(other);
            }
        }
        let mut per_trajectory = vec![Counts::default(); rules];
        for t in &self.trajectories {
            add_rule_counts(&mut splits, &mut per_trajectory, t);
        }
        splits
    }

    /// The rows of the tally table: the visible rules in order, then the labels by name.
    pub fn rows(&self) -> Vec<Row> {
        let mut rows: Vec<Row> = self
            .matcher
            .rules()
            .iter()
            .zip(self.rule_counts())
            .enumerate()
            .filter(|(_, (rule, _))| !rule.hidden)
            .map(|(id, (rule, counts))| Row {
                name: rule.name.clone(),
                kind: RowKind::Rule(id),
                counts,
            })
            .collect();
        rows.extend(self.label_rows());
        rows
    }

    fn label_rows(&self) -> Vec<Row> {
        let mut by_label: BTreeMap<&str, Vec<&PlacedLabel>> = BTreeMap::new();
        for label in &self.labels {
            by_label.entry(&label.label).or_default().push(label);
        }
        by_label
            .into_iter()
            .map(|(name, placed)| {
                let mut counts = Split::default();
                let mut steps: BTreeMap<&TrajectoryKey, HashSet<u32>> = BTreeMap::new();
                for p in placed {
                    steps.entry(&p.key).or_default().insert(p.step);
                }
                for (key, steps) in steps {
                    // A label on a trajectory the tally does not hold (yet) counts as unknown.
                    let outcome = self
                        .find(key)
                        .map_or(Outcome::Unknown, |i| self.trajectories[i].outcome());
                    let n = steps.len() as u64;
                    counts.add(
                        outcome,
                        Counts {
                            matches: n,
                            steps: n,
                            trajectories: 1,
                        },
                    );
                }
                Row {
                    name: name.to_string(),
                    kind: RowKind::Label,
                    counts,
                }
            })
            .collect()
    }

    /// Tool use across the run, most calls first.
    pub fn tools(&self) -> Vec<ToolRow> {
        let mut rows: HashMap<String, Split> = self
            .folded
            .as_ref()
            .map(|f| f.tools().clone())
            .unwrap_or_default();
        for t in &self.trajectories {
            add_tools(&mut rows, t);
        }
        let mut rows: Vec<ToolRow> = rows
            .into_iter()
            .map(|(name, counts)| ToolRow { name, counts })
            .collect();
        rows.sort_by(|a, b| {
            b.counts
                .all
                .matches
                .cmp(&a.counts.all.matches)
                .then_with(|| a.name.cmp(&b.name))
        });
        rows
    }

    /// The steps behind a rule's count, by trajectory then step.
    pub fn hits(&self, rule: RuleId) -> Vec<Hit> {
        self.trajectories
            .iter()
            .enumerate()
            .flat_map(|(i, t)| {
                t.hits
                    .iter()
                    .filter(move |h| h.rule == rule)
                    .map(move |h| Hit {
                        trajectory: i,
                        step: h.step,
                        matches: h.matches,
                    })
            })
            .collect()
    }

    /// The labelled steps behind a label's count, for trajectories the tally holds.
    pub fn label_hits(&self, label: &str) -> Vec<Hit> {
        let mut hits: Vec<Hit> = self
            .labels
            .iter()
            .filter(|l| l.label == label)
            .filter_map(|l| {
                self.find(&l.key).map(|i| Hit {
                    trajectory: i,
                    step: l.step,
                    matches: 1,
                })
            })
            .collect();
        hits.sort_by_key(|h| (h.trajectory, h.step));
        hits.dedup();
        hits
    }

    /// The names of the visible rules that matched at `step` of trajectory `index`: what the
    /// trajectory view shows beside a step.
    pub fn rules_at(&self, index: usize, step: usize) -> Vec<&str> {
        let Some(t) = self.trajectories.get(index) else {
            return Vec::new();
        };
        t.rules_at(step)
            .filter_map(|id| self.matcher.rule(id))
            .filter(|r| !r.hidden)
            .map(|r| r.name.as_str())
            .collect()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::metrics::field::Field;
    use crate::metrics::rule::{Pattern, Rule};
    use crate::model::{Format, Prediction, Step, ToolCall};
    use std::path::Path;
    fn matcher() -> Arc<Matcher> {
        let mut hidden = Rule::new("hidden", Pattern::literal("Error"), Field::Observation);
        hidden.hidden = true;
        let (m, errors) = Matcher::new(vec![
            Rule::new("error", Pattern::literal("Error"), Field::Observation),
            Rule::new("ls", Pattern::literal("ls"), Field::Action),
            hidden,
        ]);
        assert!(errors.is_empty());
        Arc::new(m)
    }

    /// A SWE-agent trajectory `run/{name}.traj` whose steps each run `ls -la` and see one of
    /// `observations`; the other tally tests of `metrics` build theirs with it too.
    pub(crate) fn trajectory(
        name: &str,
        resolved: Option<bool>,
        observations: &[&str],
    ) -> Trajectory {
        let mut t = Trajectory::new(format!("run/{name}.traj"), Format::SweAgent);
        t.resolved = resolved;
        t.steps = observations
            .iter()
            .map(|o| Step {
                action: "ls -la".into(),
                tool: Some("bash".into()),
                observation: o.to_string(),
                ..Step::default()
            })
            .collect();
        t.number_steps();
        t
    }

    #[test]
    fn counts_split_by_outcome_and_drill_down() {
        let mut tally = Tally::new(matcher());
        tally.add(&trajectory("a", Some(true), &["Error Error", "fine"]));
        tally.add(&trajectory("b", Some(false), &["Error", "Error", "ok"]));
        tally.add(&trajectory("c", None, &["ok"]));
        let rows = tally.rows();
        assert_eq!(
            rows.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
            vec!["error", "ls"],
            "hidden rules are left out of the rows"
        );
        let error = rows[0].counts;
        assert_eq!(
            error.all,
            Counts {
                matches: 4,
                steps: 3,
                trajectories: 2
            }
        );
        assert_eq!(error.resolved.steps, 1);
        assert_eq!(error.resolved.matches, 2);
        assert_eq!(error.unresolved.trajectories, 1);
        assert_eq!(error.unknown, Counts::default());
        assert_eq!(rows[1].counts.all.steps, 6);
        assert_eq!(tally.outcomes(), (1, 1, 1));

        let hits = tally.hits(0);
        let places: Vec<(usize, u32, u32)> = hits
            .iter()
            .map(|h| (h.trajectory, h.step, h.matches))
            .collect();
        assert_eq!(places, vec![(0, 1, 2), (1, 1, 1), (1, 2, 1)]);
        assert_eq!(tally.rules_at(0, 1), vec!["error", "ls"]);
        assert_eq!(tally.rules_at(0, 2), vec!["ls"]);
        assert!(tally.rules_at(9, 1).is_empty());
    }

    #[test]
    fn adding_a_new_version_replaces_the_old_one_and_removal_reindexes() {
        let mut tally = Tally::new(matcher());
        tally.add(&trajectory("a", None, &["ok"]));
        tally.add(&trajectory("b", None, &["ok"]));
        // The file of `a` grew: re-adding it replaces its tally in place.
        let i = tally.add(&trajectory("a", None, &["ok", "Error"]));
        assert_eq!(i, 0);
        assert_eq!(tally.len(), 2);
        assert_eq!(tally.rows()[0].counts.all.steps, 1);
        let key_a = tally.trajectories()[0].key().clone();
        let key_b = tally.trajectories()[1].key().clone();
        assert!(tally.remove(&key_a).is_some());
        assert_eq!(tally.find(&key_b), Some(0));
        assert_eq!(tally.rows()[0].counts.all.steps, 0);
        assert!(tally.remove(&key_a).is_none());
    }

    #[test]
    fn tools_count_calls_and_steps() {
        let mut t = trajectory("a", Some(true), &["ok", "ok", ""]);
        t.steps[1].tool_calls = vec![ToolCall::new("edit", "{}"), ToolCall::new("edit", "{}")];
        t.steps[2].action = String::new();
        let mut tally = Tally::new(matcher());
        tally.add(&t);
        let tools = tally.tools();
        let summary: Vec<(&str, u64, u64)> = tools
            .iter()
            .map(|t| (t.name.as_str(), t.counts.all.matches, t.counts.all.steps))
            .collect();
        assert_eq!(summary, vec![("edit", 2, 1), ("bash", 1, 1)]);
        assert_eq!(tools[0].counts.resolved.trajectories, 1);
    }

    #[test]
    fn labels_count_like_rules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut a = trajectory("a", Some(true), &["ok", "ok"]);
        a.path = root.join("a.traj");
        let mut b = trajectory("b", Some(false), &["ok"]);
        b.path = root.join("b.traj");
        let mut labels = LabelSet::empty(root);
        labels.add(&a, 1, "wrong file").unwrap();
        labels.add(&a, 2, "wrong file").unwrap();
        labels.add(&b, 1, "wrong file").unwrap();
        labels.add(&b, 1, "gave up").unwrap();
        let mut tally = Tally::new(matcher());
        tally.add(&a);
        tally.add(&b);
        tally.set_labels(&[labels]);
        let rows = tally.rows();
        let labelled: Vec<(&str, Counts, Counts)> = rows
            .iter()
            .filter(|r| r.kind == RowKind::Label)
            .map(|r| (r.name.as_str(), r.counts.all, r.counts.resolved))
            .collect();
        assert_eq!(labelled.len(), 2);
        assert_eq!(labelled[0].0, "gave up");
        assert_eq!(labelled[1].0, "wrong file");
        assert_eq!(
            labelled[1].1,
            Counts {
                matches: 3,
                steps: 3,
                trajectories: 2
            }
        );
        assert_eq!(labelled[1].2.steps, 2);
        let hits: Vec<(usize, u32)> = tally
            .label_hits("wrong file")
            .iter()
            .map(|h| (h.trajectory, h.step))
            .collect();
        assert_eq!(hits, vec![(0, 1), (0, 2), (1, 1)]);
    }

    #[test]
    fn forced_exits_and_joined_results() {
        let mut t = trajectory("a", None, &["ok"]);
        t.steps[0].action = "exit_cost".into();
        t.exit_status = Some("submitted".into());
        let mut tallied = TrajectoryTally::of(&matcher(), &t);
        assert_eq!(tallied.exit_kind(), ExitKind::Limit);
        tallied.join(
            Some((true, Path::new("results.json"))),
            Some(&Prediction {
                patch: Some("diff\n+x\n".into()),
                exit_status: None,
                model: Some("m".into()),
            }),
        );
        assert_eq!(tallied.resolved, Some(true));
        assert_eq!(tallied.patch_lines, 2);
        assert_eq!(tallied.model.as_deref(), Some("m"));
    }
}
