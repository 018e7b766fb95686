//! `trajscope diff A B [--json] [--dataset FILE]`: two trajectories of one task aligned step
//! by step, where they first diverge, their actions and observations side by side there,
//! their final patches, and (with a SWE-bench dataset) the gold patch and localization.

use super::render::{Style, clip, emit, file_diff, rule};
use super::show::open_judged;
use crate::{put, say};
use anyhow::{Context as _, Result};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use trajscope::diff::{
    FileDiff, GoldPatches, Localization, RunComparison, compare_runs, localization, parse_patch,
};
use trajscope::model::{Step, Trajectory};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The first trajectory (`FILE#N` picks one of a file that holds several).
    pub a: PathBuf,
    /// The second trajectory.
    pub b: PathBuf,
    /// Print JSON: `first_divergence` is the 1-based step of A where A first differs from
    /// B (null when they agree step for step).
    #[arg(long)]
    pub json: bool,
    /// A SWE-bench dataset (JSON or JSON lines with `instance_id` and `patch`): show the
    /// gold patch and whether each run edited the same files.
    #[arg(long, value_name = "FILE")]
    pub dataset: Option<PathBuf>,
    /// Print every aligned step, not only the neighbourhood of the first divergence.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub results: super::results::ResultsArg,
}

#[derive(Serialize)]
struct Side {
    source: String,
    instance_id: String,
    model: Option<String>,
    steps: usize,
    exit_status: Option<String>,
    resolved: Option<bool>,
}

#[derive(Serialize)]
struct Gold {
    instance_id: String,
    patch: Vec<FileDiff>,
    localization_a: Localization,
    localization_b: Localization,
}

#[derive(Serialize)]
struct Out<'a> {
    a: Side,
    b: Side,
    #[serde(flatten)]
    comparison: &'a RunComparison,
    #[serde(skip_serializing_if = "Option::is_none")]
    gold: Option<Gold>,
}

fn side(t: &Trajectory) -> Side {
    Side {
        source: t.display_source(),
        instance_id: t.instance_id.clone(),
        model: t.model.clone(),
        steps: t.steps.len(),
        exit_status: t.exit_status.clone(),
        resolved: t.resolved,
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let a = open_judged(&args.a, None, &args.results)?;
    let b = open_judged(&args.b, None, &args.results)?;
    let comparison = compare_runs(&a, &b);
    let gold = match &args.dataset {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read the dataset", path.display()))?;
            let patches =
                GoldPatches::parse(&text).with_context(|| format!("{}", path.display()))?;
            let id = if patches.get(&a.instance_id).is_some() {
                &a.instance_id
            } else {
                &b.instance_id
            };
            patches.get(id).map(|patch| Gold {
                instance_id: id.clone(),
                patch: parse_patch(patch),
                localization_a: localization(a.submission.as_deref().unwrap_or(""), patch),
                localization_b: localization(b.submission.as_deref().unwrap_or(""), patch),
            })
        }
        None => None,
    };
    let mut out = String::new();
    if args.json {
        let report = Out {
            a: side(&a),
            b: side(&b),
            comparison: &comparison,
            gold,
        };
        say!(out, "{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_text(
            &mut out,
            &a,
            &b,
            &comparison,
            gold.as_ref(),
            args.all,
            args.dataset.is_some(),
        );
    }
    emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

fn print_text(
    out: &mut String,
    a: &Trajectory,
    b: &Trajectory,
    c: &RunComparison,
    gold: Option<&Gold>,
    all: bool,
    asked_gold: bool,
) {
    let style = Style::detect();
    for (name, t) in [("A", a), ("B", b)] {
        say!(
            out,
            "{name}: {} ({}, {} steps, exit {}{})",
            t.display_source(),
            t.format,
            t.steps.len(),
            t.exit_status.as_deref().unwrap_or("-"),
            t.model
                .as_deref()
                .map(|m| format!(", {m}"))
                .unwrap_or_default()
        );
    }
    if a.instance_id != b.instance_id {
        say!(
            out,
            "{}",
            style.warn(&format!(
                "note: different instances ({} / {})",
                a.instance_id, b.instance_id
            ))
        );
    }
    match (c.first_divergence, c.first_divergence_b) {
        (None, _) => say!(out, "\nThe runs take the same {} steps.", c.a_steps),
        (Some(da), Some(db)) => say!(
            out,
            "\n{} steps aligned, {} the same. First divergence: A step {da}, B step {db}.",
            c.pairs.len(),
            c.same_steps
        ),
        (Some(da), None) => say!(out, "\nFirst divergence: A step {da}."),
    }
    say!(
        out,
        "\n{}",
        rule(
            "Alignment (= same action, ~ similar, < only A, > only B)",
            style
        )
    );
    let first_column = c.pairs.iter().position(|p| !p.same).unwrap_or(0);
    let window = if all {
        0..c.pairs.len()
    } else {
        first_column.saturating_sub(3)..(first_column + 12).min(c.pairs.len())
    };
    if window.start > 0 {
        say!(
            out,
            "  {}",
            style.dim(&format!("… {} identical steps", window.start))
        );
    }
    const W: usize = 50;
    for pair in &c.pairs[window.clone()] {
        let cell = |t: &Trajectory, k: Option<usize>| match k.and_then(|k| t.step(k)) {
            Some(s) => format!(
                "{:>3} {}",
                s.index,
                clip(s.summary(), 1, W - 4)
                    .first()
                    .cloned()
                    .unwrap_or_default()
            ),
            None => String::new(),
        };
        let mark = match (pair.a, pair.b) {
            (Some(_), Some(_)) if pair.same => '=',
            (Some(_), Some(_)) => '~',
            (Some(_), None) => '<',
            _ => '>',
        };
        let line = format!("  {:<W$} {mark} {}", cell(a, pair.a), cell(b, pair.b));
        say!(out, "{}", if pair.same { line } else { style.warn(&line) });
    }
    if window.end < c.pairs.len() {
        say!(
            out,
            "  {}",
            style.dim(&format!(
                "… {} more aligned steps (--all shows them)",
                c.pairs.len() - window.end
            ))
        );
    }
    if let (Some(da), Some(db)) = (c.first_divergence, c.first_divergence_b) {
        say!(
            out,
            "\n{}",
            rule(
                &format!("At the first divergence: A step {da} | B step {db}"),
                style
            )
        );
        side_by_side(out, a.step(da), b.step(db), style);
    }
    say!(out, "\n{}", rule("Final patches", style));
    for (name, t, patch) in [("A", a, &c.patch_a), ("B", b, &c.patch_b)] {
        let files: Vec<&str> = patch.iter().map(|f| f.path.as_str()).collect();
        say!(
            out,
            "  {name}: {}",
            if files.is_empty() {
                "no submission".to_string()
            } else {
                files.join(", ")
            }
        );
        let _ = t;
    }
    say!(
        out,
        "  same files: {}",
        if c.same_files { "yes" } else { "no" }
    );
    for (name, patch) in [("A", &c.patch_a), ("B", &c.patch_b)] {
        say!(out, "\n  {}", style.bold(&format!("{name}'s submission")));
        for f in patch.iter() {
            put!(out, "{}", file_diff(f, style, "  "));
        }
    }
    if let Some(g) = gold {
        say!(
            out,
            "\n{}",
            rule(&format!("Gold patch ({})", g.instance_id), style)
        );
        for f in &g.patch {
            put!(out, "{}", file_diff(f, style, "  "));
        }
        for (name, l) in [("A", &g.localization_a), ("B", &g.localization_b)] {
            say!(
                out,
                "  {name} edited {} of {} gold files ({}); precision {:.2}, recall {:.2}",
                l.hit_files.len(),
                l.gold_files.len(),
                if l.all {
                    "all"
                } else if l.any {
                    "some"
                } else {
                    "none"
                },
                l.precision,
                l.recall
            );
        }
    } else if asked_gold {
        say!(
            out,
            "\n{}",
            style.warn("The dataset has no gold patch for this instance.")
        );
    }
}

fn side_by_side(out: &mut String, a: Option<&Step>, b: Option<&Step>, style: Style) {
    const W: usize = 60;
    let block = |s: Option<&Step>| -> Vec<String> {
        let Some(s) = s else {
            return vec!["(no step: the run ended)".into()];
        };
        let mut lines = vec![format!("ACTION ({})", s.tool_name())];
        lines.extend(clip(&s.action, 12, W));
        lines.push("OBSERVATION".into());
        lines.extend(clip(&s.observation, 16, W));
        lines
    };
    let (left, right) = (block(a), block(b));
    for k in 0..left.len().max(right.len()) {
        let l = left.get(k).map_or("", String::as_str);
        let r = right.get(k).map_or("", String::as_str);
        let pad = W.saturating_sub(l.chars().count());
        let line = format!("  {l}{} │ {r}", " ".repeat(pad));
        say!(
            out,
            "{}",
            if l.starts_with("ACTION") || l.starts_with("OBSERVATION") {
                style.bold(&line)
            } else {
                line
            }
        );
    }
}
