//! `trajscope stats RUN --dataset FILE`: localization against a SWE-bench dataset's gold
//! patches, tallied like a rule: how many trajectories submitted a patch that edits a file
//! the gold patch edits (and every such file), split by outcome, with mean recall and
//! precision over files. Trajectories whose instance the dataset lacks are counted apart.

use super::share::share;
use crate::cli::table::Table;
use anyhow::{Context as _, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};
use trajscope::diff::{GoldPatches, Localization, localize};
use trajscope::metrics::{Outcome, Tally};
use trajscope::model::patch_files;

/// Reads the dataset's gold patches, naming the file in any error.
pub fn load(path: &Path) -> Result<GoldPatches> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read the dataset", path.display()))?;
    GoldPatches::parse(&text).with_context(|| format!("{}", path.display()))
}

/// Trajectories in one measure, overall and by outcome.
#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize)]
pub struct Split {
    pub trajectories: usize,
    pub resolved: usize,
    pub unresolved: usize,
    pub unknown: usize,
}

impl Split {
    pub(super) fn add(&mut self, outcome: Outcome) {
        self.trajectories += 1;
        match outcome {
            Outcome::Resolved => self.resolved += 1,
            Outcome::Unresolved => self.unresolved += 1,
            Outcome::Unknown => self.unknown += 1,
        }
    }
}

/// One trajectory's localization, for `--by-trajectory`.
#[derive(Debug, Serialize)]
pub struct TrajectoryLocalization {
    pub instance_id: String,
    pub path: PathBuf,
    #[serde(flatten)]
    pub localization: Localization,
}

/// The run's localization, as `stats --json` prints it under `localization`.
#[derive(Debug, Serialize)]
pub struct Report {
    pub dataset: PathBuf,
    /// Trajectories whose instance has a gold patch, by outcome.
    pub with_gold: Split,
    /// Trajectories whose instance the dataset does not have.
    pub without_gold: usize,
    /// Their patch edits at least one gold file.
    pub any: Split,
    /// Their patch edits every gold file.
    pub all: Split,
    /// Mean share of the gold files edited.
    pub mean_recall: Option<f64>,
    /// Mean share of the edited files that are gold files.
    pub mean_precision: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_trajectory: Option<Vec<TrajectoryLocalization>>,
    /// Step by step against the gold change: reached it, and lost it again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gold_change: Option<super::gold::GoldChange>,
}

pub fn report(tally: &Tally, gold: &GoldPatches, dataset: &Path, by_trajectory: bool) -> Report {
    let mut report = Report {
        dataset: dataset.to_path_buf(),
        with_gold: Split::default(),
        without_gold: 0,
        any: Split::default(),
        all: Split::default(),
        mean_recall: None,
        mean_precision: None,
        by_trajectory: by_trajectory.then(Vec::new),
        gold_change: None,
    };
    let (mut recall, mut precision) = (0.0, 0.0);
    for t in tally.trajectories() {
        let Some(gold_patch) = gold.get(&t.instance_id) else {
            report.without_gold += 1;
            continue;
        };
        let l = localize(t.patch_files.clone(), patch_files(gold_patch));
        let outcome = t.outcome();
        report.with_gold.add(outcome);
        if l.any {
            report.any.add(outcome);
        }
        if l.all {
            report.all.add(outcome);
        }
        recall += l.recall;
        precision += l.precision;
        if let Some(rows) = report.by_trajectory.as_mut() {
            rows.push(TrajectoryLocalization {
                instance_id: t.instance_id.clone(),
                path: t.path.clone(),
                localization: l,
            });
        }
    }
    let n = report.with_gold.trajectories;
    if n > 0 {
        report.mean_recall = Some(recall / n as f64);
        report.mean_precision = Some(precision / n as f64);
    }
    report
}

/// The heading of the section in text and Markdown.
pub fn heading(report: &Report) -> String {
    format!(
        "Localization (gold patches of {}: {} trajectories have one, {} do not)",
        report.dataset.display(),
        report.with_gold.trajectories,
        report.without_gold
    )
}

/// The measures as a table: trajectories and each outcome's share of its trajectories with a
/// gold patch, like the rule table.
pub fn table(report: &Report) -> Table {
    let mut table = Table::new(["MEASURE", "TRAJS", "RESOLVED", "UNRESOLVED", "UNKNOWN"]);
    let mut measure = |name: &str, split: Split, totals: Split| {
        table.row([
            name.to_string(),
            share(split.trajectories as u64, totals.trajectories),
            share(split.resolved as u64, totals.resolved),
            share(split.unresolved as u64, totals.unresolved),
            share(split.unknown as u64, totals.unknown),
        ]);
    };
    measure("patch edits a gold file", report.any, report.with_gold);
    measure("patch edits every gold file", report.all, report.with_gold);
    if let Some(change) = &report.gold_change {
        measure(
            "a step's tree held every gold hunk",
            change.reached,
            change.compared,
        );
        measure(
            "held it, then lost it (final patch lacks it)",
            change.lost,
            change.compared,
        );
    }
    let mean = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.2}"));
    table.row([
        "mean recall (gold files edited)".to_string(),
        mean(report.mean_recall),
        String::new(),
        String::new(),
        String::new(),
    ]);
    table.row([
        "mean precision (edited files that are gold)".to_string(),
        mean(report.mean_precision),
        String::new(),
        String::new(),
        String::new(),
    ]);
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use trajscope::metrics::{Matcher, Tally};
    use trajscope::model::{Format, Trajectory};

    fn patch(files: &[&str]) -> String {
        files
            .iter()
            .map(|f| format!("diff --git a/{f} b/{f}\n--- a/{f}\n+++ b/{f}\n@@ -1 +1 @@\n-a\n+b\n"))
            .collect()
    }

    #[test]
    fn counts_trajectories_that_edit_the_gold_files_by_outcome() {
        let gold = GoldPatches {
            patches: [
                ("i1".to_string(), patch(&["src/a.py", "src/b.py"])),
                ("i2".to_string(), patch(&["src/c.py"])),
                ("i3".to_string(), patch(&["src/d.py"])),
            ]
            .into(),
        };
        let (matcher, _) = Matcher::new(Vec::new());
        let trajectory = |id: &str, files: &[&str], resolved: Option<bool>| {
            let mut t = Trajectory::new(format!("{id}.traj"), Format::SweAgent);
            t.instance_id = id.into();
            t.submission = Some(patch(files));
            t.resolved = resolved;
            t
        };
        let tally = Tally::of_trajectories(
            std::sync::Arc::new(matcher),
            &[
                // Both gold files: any and all.
                trajectory("i1", &["src/a.py", "src/b.py", "tests/t.py"], Some(true)),
                // Another file only.
                trajectory("i2", &["src/z.py"], Some(false)),
                // Every gold file, and no verdict.
                trajectory("i3", &["src/d.py"], None),
                // Not in the dataset.
                trajectory("i4", &["src/a.py"], Some(false)),
            ],
        );
        let r = report(&tally, &gold, Path::new("data.jsonl"), true);
        assert_eq!(r.without_gold, 1);
        assert_eq!(
            r.with_gold,
            Split {
                trajectories: 3,
                resolved: 1,
                unresolved: 1,
                unknown: 1
            }
        );
        assert_eq!(
            (r.any.trajectories, r.any.resolved, r.any.unknown),
            (2, 1, 1)
        );
        assert_eq!(r.any.unresolved, 0);
        assert_eq!(r.all.trajectories, 2);
        // Recall 1, 0, 1; precision 2/3, 0, 1.
        assert!((r.mean_recall.unwrap() - 2.0 / 3.0).abs() < 1e-9);
        assert!((r.mean_precision.unwrap() - (2.0 / 3.0 + 1.0) / 3.0).abs() < 1e-9);
        let rows = r.by_trajectory.as_ref().unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].localization.hit_files, vec!["src/a.py", "src/b.py"]);
        let text = table(&r).text();
        assert!(text.contains("patch edits a gold file"), "{text}");
        assert!(text.contains("2 (67%)"), "{text}");
    }
}
