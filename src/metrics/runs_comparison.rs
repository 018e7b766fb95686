//! Two or more runs compared on the instances they share (every run has a trajectory for
//! it): each shared instance's verdicts, how many instances exactly k runs solved, McNemar's
//! test for every pair, Cochran's Q across all of them, and per-rule tallies per run. The
//! two-run [`super::Comparison`] stays the richer view of a single pair; this is its
//! generalisation and reuses its pieces (verdict per instance, McNemar).

use super::cochran::{CochranQ, cochran_q};
use super::compare::verdicts;
use super::overview::Overview;
use super::stats::{McNemar, mcnemar};
use super::tally::{Counts, Tally};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::collections::{BTreeSet, HashMap};

/// One shared instance and the verdict of each run on it, in run order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstanceVerdicts {
    pub instance_id: String,
    pub resolved: Vec<Option<bool>>,
}

impl InstanceVerdicts {
    /// Runs that resolved it, when every run has a verdict.
    pub fn solved_by(&self) -> Option<usize> {
        self.resolved
            .iter()
            .try_fold(0, |n, v| v.map(|solved| n + usize::from(solved)))
    }
}

/// Two runs of the comparison, on the shared instances both have a verdict for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairTest {
    /// Run indexes (0-based, argument order), `a < b`.
    pub a: usize,
    pub b: usize,
    pub both: usize,
    pub only_a: usize,
    pub only_b: usize,
    pub neither: usize,
    pub mcnemar: McNemarTest,
}

/// McNemar's test on one pair: the χ² statistic and the exact tests of [`super::stats`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct McNemarTest {
    /// (only_a − only_b)² / (only_a + only_b), without continuity correction; `None` when no
    /// instance flipped.
    pub statistic: Option<f64>,
    pub exact_p: f64,
    pub mid_p: f64,
}

impl From<McNemar> for McNemarTest {
    fn from(test: McNemar) -> McNemarTest {
        let (b, c) = (test.only_a as f64, test.only_b as f64);
        McNemarTest {
            statistic: (b + c > 0.0).then(|| (b - c) * (b - c) / (b + c)),
            exact_p: test.exact_p,
            mid_p: test.mid_p,
        }
    }
}

/// Shared instances by how many runs solved them: index k holds the instances with a verdict
/// in every run that exactly k runs resolved. Serialized as `{"0": n, "1": n, …}` in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SolveCounts(pub Vec<usize>);

impl Serialize for SolveCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, n) in self.0.iter().enumerate() {
            map.serialize_entry(&k.to_string(), n)?;
        }
        map.end()
    }
}

/// One rule's counts in one run, with its share of the run's trajectories.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RuleInRun {
    pub matches: u64,
    pub steps: u64,
    pub trajectories: u64,
    /// Trajectories with a match per trajectory of the run: comparable across run sizes.
    pub share: f64,
}

/// One rule (or label) across every run, in run order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleAcross {
    pub name: String,
    pub runs: Vec<RuleInRun>,
}

/// Every run compared with every other on their shared instances.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunsComparison {
    /// The run labels, in argument order.
    pub runs: Vec<String>,
    /// Trajectories per run (all of them, shared or not).
    pub trajectories: Vec<usize>,
    pub instances: Vec<InstanceVerdicts>,
    pub solve_counts: SolveCounts,
    pub pairs: Vec<PairTest>,
    /// Cochran's Q over the shared instances with a verdict in every run; three runs or more.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cochran_q: Option<CochranQ>,
    pub rules: Vec<RuleAcross>,
    pub warnings: Vec<String>,
}

impl RunsComparison {
    /// Compares `runs` (label, tally) in the order given.
    pub fn of(runs: &[(String, &Tally)]) -> RunsComparison {
        let mut warnings = Vec::new();
        let verdict_maps: Vec<HashMap<&str, Option<bool>>> = runs
            .iter()
            .map(|(label, tally)| {
                let (map, duplicates) = verdicts(tally);
                if duplicates > 0 {
                    warnings.push(format!(
                        "run {label} holds {duplicates} instance(s) more than once; the first trajectory of each is used"
                    ));
                }
                map
            })
            .collect();
        let instances = shared(&verdict_maps);
        let n = runs.len();
        let mut solve_counts = vec![0; n + 1];
        let mut complete = Vec::new();
        for instance in &instances {
            if let Some(k) = instance.solved_by() {
                solve_counts[k] += 1;
                complete.push(instance.resolved.iter().map(|v| *v == Some(true)).collect());
            }
        }
        let pairs = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .map(|(a, b)| pair_test(&instances, a, b))
            .collect();
        if instances.is_empty() && n >= 2 {
            warnings
                .push("the runs share no instance: every comparison below is empty".to_string());
        } else if complete.len() < instances.len() {
            warnings.push(format!(
                "{} of {} shared instance(s) lack a verdict in some run and are left out of the solve counts and Cochran's Q",
                instances.len() - complete.len(),
                instances.len()
            ));
        }
        RunsComparison {
            runs: runs.iter().map(|(label, _)| label.clone()).collect(),
            trajectories: runs.iter().map(|(_, t)| t.len()).collect(),
            instances,
            solve_counts: SolveCounts(solve_counts),
            pairs,
            cochran_q: (n >= 3).then(|| cochran_q(&complete)),
            rules: rules_across(runs),
            warnings,
        }
    }

    /// Each run's overview (resolved rate and the rest), in run order.
    pub fn overviews(runs: &[(String, &Tally)]) -> Vec<Overview> {
        runs.iter()
            .map(|(_, t)| Overview::of(t.trajectories()))
            .collect()
    }
}

/// Instances every run has, sorted by id, with each run's verdict.
fn shared(maps: &[HashMap<&str, Option<bool>>]) -> Vec<InstanceVerdicts> {
    let Some((first, rest)) = maps.split_first() else {
        return Vec::new();
    };
    let ids: BTreeSet<&str> = first
        .keys()
        .copied()
        .filter(|id| rest.iter().all(|m| m.contains_key(id)))
        .collect();
    ids.into_iter()
        .map(|id| InstanceVerdicts {
            instance_id: id.to_string(),
            resolved: maps.iter().map(|m| m.get(id).copied().flatten()).collect(),
        })
        .collect()
}

fn pair_test(instances: &[InstanceVerdicts], a: usize, b: usize) -> PairTest {
    let (mut both, mut only_a, mut only_b, mut neither) = (0, 0, 0, 0);
    for instance in instances {
        match (instance.resolved[a], instance.resolved[b]) {
            (Some(true), Some(true)) => both += 1,
            (Some(true), Some(false)) => only_a += 1,
            (Some(false), Some(true)) => only_b += 1,
            (Some(false), Some(false)) => neither += 1,
            _ => {}
        }
    }
    PairTest {
        a,
        b,
        both,
        only_a,
        only_b,
        neither,
        mcnemar: mcnemar(only_a as u64, only_b as u64).into(),
    }
}

/// Every rule of any run, in the first run's order then new names as they come.
fn rules_across(runs: &[(String, &Tally)]) -> Vec<RuleAcross> {
    let rows: Vec<Vec<super::tally::Row>> = runs.iter().map(|(_, t)| t.rows()).collect();
    let mut names: Vec<&str> = Vec::new();
    for row in rows.iter().flatten() {
        if !names.contains(&row.name.as_str()) {
            names.push(&row.name);
        }
    }
    names
        .into_iter()
        .map(|name| RuleAcross {
            name: name.to_string(),
            runs: rows
                .iter()
                .zip(runs)
                .map(|(rows, (_, tally))| {
                    let counts: Counts = rows
                        .iter()
                        .find(|r| r.name == name)
                        .map(|r| r.counts.all)
                        .unwrap_or_default();
                    RuleInRun {
                        matches: counts.matches,
                        steps: counts.steps,
                        trajectories: counts.trajectories,
                        share: if tally.is_empty() {
                            0.0
                        } else {
                            counts.trajectories as f64 / tally.len() as f64
                        },
                    }
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests;
