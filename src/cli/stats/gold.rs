//! `stats --dataset`: which trajectories reached the gold change (a step's working tree held
//! every gold hunk) and which of them lost it again (the submitted patch, or the final tree,
//! does not). Each trajectory with a gold patch is read again in full for its steps; a file
//! that cannot be read is left out and counted.

use super::localization::Split;
use rayon::prelude::*;
use serde::Serialize;
use std::path::PathBuf;
use trajscope::diff::{GoldPatches, Reconstruction, gold_proximity};
use trajscope::formats::{Loaded, load_file};
use trajscope::metrics::{Tally, TrajectoryTally};

/// A trajectory that reached the gold change and lost it.
#[derive(Debug, Serialize)]
pub struct Lost {
    pub instance_id: String,
    pub path: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    pub resolved: Option<bool>,
    pub reached_at: usize,
    pub steps: usize,
    pub gold_hunks: usize,
    pub final_hunks_present: usize,
    pub strip: String,
}

/// The run against the gold change, by outcome.
#[derive(Debug, Serialize)]
pub struct GoldChange {
    /// Trajectories whose steps were compared (they have a gold patch and were read).
    pub compared: Split,
    /// Some step's tree held every gold hunk.
    pub reached: Split,
    /// Reached it, and the final state does not hold it.
    pub lost: Split,
    pub lost_trajectories: Vec<Lost>,
    /// Trajectories with a gold patch whose file could not be read again.
    pub unreadable: usize,
}

pub fn scan(tally: &Tally, gold: &GoldPatches) -> GoldChange {
    let results: Vec<Option<(&TrajectoryTally, trajscope::diff::GoldProximity)>> = tally
        .trajectories()
        .par_iter()
        .filter_map(|t| {
            let patch = gold.get(&t.instance_id)?;
            Some(read(t).map(|full| {
                let p = gold_proximity(&full, &Reconstruction::of(&full), patch);
                (t, p)
            }))
        })
        .collect();
    let mut out = GoldChange {
        compared: Split::default(),
        reached: Split::default(),
        lost: Split::default(),
        lost_trajectories: Vec::new(),
        unreadable: 0,
    };
    for result in results {
        let Some((t, p)) = result else {
            out.unreadable += 1;
            continue;
        };
        let outcome = t.outcome();
        out.compared.add(outcome);
        if p.reached_at.is_some() {
            out.reached.add(outcome);
        }
        if let (true, Some(reached_at)) = (p.lost, p.reached_at) {
            out.lost.add(outcome);
            out.lost_trajectories.push(Lost {
                instance_id: t.instance_id.clone(),
                path: t.path.clone(),
                index: t.source_index.map(|i| i + 1),
                resolved: t.resolved,
                reached_at,
                steps: p.steps.len(),
                gold_hunks: p.gold_hunks,
                final_hunks_present: p.final_hunks_present,
                strip: p.strip(),
            });
        }
    }
    out.lost_trajectories
        .sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
    out
}

/// The trajectory behind a tally row, read in full.
fn read(t: &TrajectoryTally) -> Option<trajscope::model::Trajectory> {
    let Ok(Loaded::Trajectories(mut all)) = load_file(&t.path) else {
        return None;
    };
    let index = t.source_index.unwrap_or(0);
    (index < all.len()).then(|| all.swap_remove(index))
}
