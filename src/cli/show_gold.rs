//! `trajscope show FILE --dataset DATASET`: the trajectory against its instance's gold patch,
//! step by step (gold files edited, gold hunks in the working tree), as a strip in the text
//! header and as `gold` keys in `--json` (one per step, one for the whole trajectory).

use super::stats::load_dataset;
use anyhow::{Result, bail};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use trajscope::diff::{FinalSource, GoldProximity, Reconstruction, gold_proximity};
use trajscope::model::Trajectory;

/// The whole-trajectory `gold` object of `show --json`.
#[derive(Serialize)]
struct Summary<'a> {
    dataset: &'a Path,
    gold_files: &'a [String],
    gold_hunks: usize,
    reached_at: Option<usize>,
    final_hunks_present: usize,
    final_source: FinalSource,
    lost: bool,
    /// One character per step: `·` no gold file edited, `○` gold file edited, `◐` some
    /// gold hunks, `●` every gold hunk.
    strip: String,
}

/// The proximity of `t` to its gold patch in `dataset`; an error when the dataset lacks it.
pub fn proximity(t: &Trajectory, dataset: &Path) -> Result<GoldProximity> {
    let gold = load_dataset(dataset)?;
    let Some(patch) = gold.get(&t.instance_id) else {
        bail!(
            "{}: no gold patch for instance {}",
            dataset.display(),
            t.instance_id
        );
    };
    Ok(gold_proximity(t, &Reconstruction::of(t), patch))
}

/// The trajectory as `show --json` prints it, with `gold` added to it and to every step.
pub fn json(t: &Trajectory, p: &GoldProximity, dataset: &Path) -> Result<Value> {
    let mut value = serde_json::to_value(t)?;
    if let Some(steps) = value.get_mut("steps").and_then(Value::as_array_mut) {
        for (step, gold) in steps.iter_mut().zip(&p.steps) {
            if let Some(object) = step.as_object_mut() {
                object.insert("gold".into(), serde_json::to_value(gold)?);
            }
        }
    }
    if let Some(object) = value.as_object_mut() {
        object.insert("gold".into(), serde_json::to_value(summary(p, dataset))?);
    }
    Ok(value)
}

fn summary<'a>(p: &'a GoldProximity, dataset: &'a Path) -> Summary<'a> {
    Summary {
        dataset,
        gold_files: &p.gold_files,
        gold_hunks: p.gold_hunks,
        reached_at: p.reached_at,
        final_hunks_present: p.final_hunks_present,
        final_source: p.final_source,
        lost: p.lost,
        strip: p.strip(),
    }
}

/// The lines the text view prints under the header.
pub fn text(p: &GoldProximity) -> String {
    let reached = match p.reached_at {
        Some(k) => format!("every gold hunk in the tree from step {k}"),
        None => "never held every gold hunk".into(),
    };
    let source = match p.final_source {
        FinalSource::Patch => "submitted patch",
        FinalSource::Tree => "final tree",
    };
    let mut out = format!(
        "  gold:     {} file(s), {} hunk(s); {reached}; {source}: {}/{} hunks{}\n",
        p.gold_files.len(),
        p.gold_hunks,
        p.final_hunks_present,
        p.gold_hunks,
        if p.lost {
            " — REACHED THE GOLD CHANGE AND LOST IT"
        } else {
            ""
        }
    );
    out.push_str(&format!(
        "  strip:    {} (· no gold file edited, ○ gold file edited, ◐ some gold hunks, ● all)\n",
        p.strip()
    ));
    out
}
