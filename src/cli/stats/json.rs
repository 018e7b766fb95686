//! The `--json` shape of `trajscope stats` (documented in docs/metrics.md). Field names are
//! a contract with scripts: add fields freely, never rename or remove one.

use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::path::PathBuf;
use trajscope::metrics::stats::Rate;
use trajscope::metrics::{
    Comparison, Counts, Overview, Pairing, Phases, RowKind, RuleError, RunsComparison, Split,
    Spread, TalliedRun, Tally, TrajectoryTally,
};

/// Bumped only when a field changes meaning.
pub const VERSION: u32 = 1;

#[derive(Serialize)]
pub struct RunJson<'a> {
    pub version: u32,
    pub paths: Vec<PathBuf>,
    pub trajectories: usize,
    pub outcomes: Outcomes,
    pub resolved_rate: Option<Rate>,
    pub exit_statuses: BTreeMap<String, usize>,
    pub exit_kinds: BTreeMap<String, usize>,
    pub empty_patches: EmptyPatches,
    pub steps: Spread,
    pub cost: Spread,
    pub tokens_in: Spread,
    pub tokens_out: Spread,
    pub rules: Vec<RuleJson>,
    pub tools: Vec<ToolJson>,
    pub unreadable: Vec<Unreadable>,
    pub rule_errors: Vec<RuleError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_trajectory: Option<ByTrajectory<'a>>,
    /// With `--dataset`: localization against the gold patches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub localization: Option<super::localization::Report>,
}

#[derive(Serialize)]
pub struct Outcomes {
    pub resolved: usize,
    pub unresolved: usize,
    pub unknown: usize,
}

#[derive(Serialize)]
pub struct EmptyPatches {
    pub count: usize,
    pub rate: f64,
}

#[derive(Serialize)]
pub struct Unreadable {
    pub path: PathBuf,
    pub message: String,
}

#[derive(Serialize)]
pub struct RuleJson {
    pub name: String,
    /// `rule` or `label`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// `file:line` of the rule's definition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    pub matches: u64,
    pub steps: u64,
    pub trajectories: u64,
    pub resolved: Counts,
    pub unresolved: Counts,
    pub unknown: Counts,
}

#[derive(Serialize)]
pub struct ToolCounts {
    pub calls: u64,
    pub steps: u64,
    pub trajectories: u64,
}

impl From<Counts> for ToolCounts {
    fn from(c: Counts) -> ToolCounts {
        ToolCounts {
            calls: c.matches,
            steps: c.steps,
            trajectories: c.trajectories,
        }
    }
}

#[derive(Serialize)]
pub struct ToolJson {
    pub name: String,
    pub calls: u64,
    pub steps: u64,
    pub trajectories: u64,
    pub resolved: ToolCounts,
    pub unresolved: ToolCounts,
    pub unknown: ToolCounts,
}

#[derive(Serialize)]
pub struct TrajectoryJson {
    pub path: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    pub instance_id: String,
    pub format: String,
    pub resolved: Option<bool>,
    pub exit_status: Option<String>,
    pub steps: usize,
    pub cost: Option<f64>,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    pub patch_lines: usize,
    /// Rule (or label) name → matches and the 1-based steps that matched.
    pub rules: BTreeMap<String, RuleHits>,
    /// Tool name → calls.
    pub tools: BTreeMap<String, u32>,
    /// One character per step: `·` explore, `e` edit, `v` verify (a test run), `s` submit,
    /// a space for a step that executed nothing (docs/metrics.md, phases).
    pub phases: String,
    /// Resolved, and no test ran at or after the last edit.
    pub unverified_pass: bool,
}

#[derive(Serialize)]
pub struct RuleHits {
    pub matches: u64,
    pub steps: Vec<u32>,
}

#[derive(Serialize)]
pub struct CompareJson<'a> {
    pub version: u32,
    pub a: RunJson<'a>,
    pub b: RunJson<'a>,
    pub rules: Vec<RuleDeltaJson>,
    pub paired: Pairing,
    pub mcnemar: McNemarJson,
    pub verdict: trajscope::metrics::Verdict,
    pub message: String,
    pub warnings: Vec<String>,
    /// The N-run comparison of the same two runs (the shape `--runs` prints for any N).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<RunsComparison>,
}

/// `stats --runs` with three runs or more: each run's report and the comparison.
#[derive(Serialize)]
pub struct ManyJson<'a> {
    pub version: u32,
    pub runs: Vec<RunJson<'a>>,
    pub comparison: RunsComparison,
}

#[derive(Serialize)]
pub struct SideJson {
    pub matches: u64,
    pub steps: u64,
    pub trajectories: u64,
    /// Trajectories with a match per trajectory of the run.
    pub share: f64,
}

#[derive(Serialize)]
pub struct DeltaJson {
    pub matches: i64,
    pub steps: i64,
    pub trajectories: i64,
    pub share: f64,
}

#[derive(Serialize)]
pub struct RuleDeltaJson {
    pub name: String,
    pub a: SideJson,
    pub b: SideJson,
    /// B minus A.
    pub delta: DeltaJson,
}

#[derive(Serialize)]
pub struct McNemarJson {
    pub only_a: u64,
    pub only_b: u64,
    pub exact_p: f64,
    pub mid_p: f64,
}

pub fn run_json<'a>(
    run: &'a TalliedRun,
    overview: &Overview,
    rule_errors: &[RuleError],
    by_trajectory: bool,
) -> RunJson<'a> {
    let tally = &run.tally;
    RunJson {
        version: VERSION,
        paths: run.roots.clone(),
        trajectories: overview.trajectories,
        outcomes: Outcomes {
            resolved: overview.resolved,
            unresolved: overview.unresolved,
            unknown: overview.unknown,
        },
        resolved_rate: overview.resolved_rate,
        exit_statuses: overview.exit_statuses.iter().cloned().collect(),
        exit_kinds: overview
            .exit_kinds
            .iter()
            .map(|(k, n)| (k.name().to_string(), *n))
            .collect(),
        empty_patches: EmptyPatches {
            count: overview.empty_patches,
            rate: overview.empty_patch_rate,
        },
        steps: overview.steps,
        cost: overview.cost,
        tokens_in: overview.tokens_in,
        tokens_out: overview.tokens_out,
        rules: rules(tally),
        tools: tally
            .tools()
            .into_iter()
            .map(|t| ToolJson {
                name: t.name,
                calls: t.counts.all.matches,
                steps: t.counts.all.steps,
                trajectories: t.counts.all.trajectories,
                resolved: t.counts.resolved.into(),
                unresolved: t.counts.unresolved.into(),
                unknown: t.counts.unknown.into(),
            })
            .collect(),
        unreadable: run
            .failures
            .iter()
            .map(|f| Unreadable {
                path: f.path.clone(),
                message: f.message.clone(),
            })
            .collect(),
        rule_errors: rule_errors.to_vec(),
        by_trajectory: by_trajectory.then_some(ByTrajectory { tally }),
        localization: None,
    }
}

fn rules(tally: &Tally) -> Vec<RuleJson> {
    tally
        .rows()
        .into_iter()
        .map(|row| {
            let Split {
                all,
                resolved,
                unresolved,
                unknown,
            } = row.counts;
            let rule = match row.kind {
                RowKind::Rule(id) => tally.matcher().rule(id),
                RowKind::Label => None,
            };
            RuleJson {
                name: row.name,
                kind: if rule.is_some() { "rule" } else { "label" },
                description: rule
                    .map(|r| r.description.clone())
                    .filter(|d| !d.is_empty()),
                field: rule.map(|r| r.field.name().to_string()),
                origin: rule.map(|r| r.origin.to_string()),
                matches: all.matches,
                steps: all.steps,
                trajectories: all.trajectories,
                resolved,
                unresolved,
                unknown,
            }
        })
        .collect()
}

/// The per-trajectory array, each trajectory's entry made as it is written: a run of
/// 100,000 rows never holds them all (as a vector, or as the pretty-printed text) beside
/// its tallies.
pub struct ByTrajectory<'a> {
    tally: &'a Tally,
}

impl Serialize for ByTrajectory<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tally = self.tally;
        let mut labels = label_hits(tally);
        serializer.collect_seq(tally.trajectories().iter().enumerate().map(|(i, t)| {
            let mut rules = rule_hits(tally, t);
            rules.extend(labels.remove(&i).unwrap_or_default());
            trajectory_json(tally, t, rules)
        }))
    }
}

/// The labelled steps of each trajectory (by index), by label.
fn label_hits(tally: &Tally) -> BTreeMap<usize, BTreeMap<String, RuleHits>> {
    let mut labels: BTreeMap<usize, BTreeMap<String, RuleHits>> = BTreeMap::new();
    for row in tally.rows() {
        if row.kind == RowKind::Label {
            for hit in tally.label_hits(&row.name) {
                let entry = labels
                    .entry(hit.trajectory)
                    .or_default()
                    .entry(row.name.clone())
                    .or_insert(RuleHits {
                        matches: 0,
                        steps: Vec::new(),
                    });
                entry.matches += 1;
                entry.steps.push(hit.step);
            }
        }
    }
    labels
}

fn trajectory_json(
    tally: &Tally,
    t: &TrajectoryTally,
    rules: BTreeMap<String, RuleHits>,
) -> TrajectoryJson {
    let phases = Phases::of(tally.matcher(), t);
    TrajectoryJson {
        path: t.path.clone(),
        index: t.source_index.map(|i| i + 1),
        instance_id: t.instance_id.clone(),
        format: t.format.name().to_string(),
        resolved: t.resolved,
        exit_status: t.exit_status.clone(),
        steps: t.steps,
        cost: t.usage.cost,
        tokens_in: t.usage.tokens_in,
        tokens_out: t.usage.tokens_out,
        patch_lines: t.patch_lines,
        rules,
        tools: t.tools.iter().map(|u| (u.name.clone(), u.calls)).collect(),
        phases: phases.strip(t.steps),
        unverified_pass: phases.unverified_pass(t.resolved),
    }
}

/// A trajectory's visible rule hits by rule name.
pub fn rule_hits(tally: &Tally, t: &TrajectoryTally) -> BTreeMap<String, RuleHits> {
    let mut out: BTreeMap<String, RuleHits> = BTreeMap::new();
    for hit in &t.hits {
        let Some(rule) = tally.matcher().rule(hit.rule).filter(|r| !r.hidden) else {
            continue;
        };
        let entry = out.entry(rule.name.clone()).or_insert(RuleHits {
            matches: 0,
            steps: Vec::new(),
        });
        entry.matches += u64::from(hit.matches);
        entry.steps.push(hit.step);
    }
    out
}

pub fn compare_json<'a>(
    a: RunJson<'a>,
    b: RunJson<'a>,
    comparison: &Comparison,
) -> CompareJson<'a> {
    let delta = |x: u64, y: u64| {
        i64::try_from(y).unwrap_or(i64::MAX) - i64::try_from(x).unwrap_or(i64::MAX)
    };
    CompareJson {
        version: VERSION,
        a,
        b,
        rules: comparison
            .rules
            .iter()
            .map(|r| RuleDeltaJson {
                name: r.name.clone(),
                a: SideJson {
                    matches: r.a.matches,
                    steps: r.a.steps,
                    trajectories: r.a.trajectories,
                    share: r.a_share,
                },
                b: SideJson {
                    matches: r.b.matches,
                    steps: r.b.steps,
                    trajectories: r.b.trajectories,
                    share: r.b_share,
                },
                delta: DeltaJson {
                    matches: delta(r.a.matches, r.b.matches),
                    steps: delta(r.a.steps, r.b.steps),
                    trajectories: delta(r.a.trajectories, r.b.trajectories),
                    share: r.b_share - r.a_share,
                },
            })
            .collect(),
        paired: comparison.pairing.clone(),
        mcnemar: McNemarJson {
            only_a: comparison.test.only_a,
            only_b: comparison.test.only_b,
            exact_p: comparison.test.exact_p,
            mid_p: comparison.test.mid_p,
        },
        verdict: comparison.verdict,
        message: comparison.message.clone(),
        warnings: comparison.warnings.clone(),
        comparison: None,
    }
}
