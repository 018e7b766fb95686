//! `trajscope stats --runs A B C …` with three runs or more: every run on the instances they
//! all share, as text, Markdown, CSV or JSON (`runs` and `comparison`, docs/metrics.md). Two
//! runs keep the two-run report of [`super::compare`], which carries the same `comparison`.

use super::super::output::Out;
use super::super::table::Table;
use super::json::{self, ManyJson};
use super::{Args, Gold, localization, localized, lost_lines, report_failures};
use anyhow::{Result, bail};
use trajscope::metrics::{Overview, RuleError, RunsComparison, TalliedRun, Tally};

/// Past this many shared instances the text lists only those the runs disagree on.
const ALL_INSTANCES_UP_TO: usize = 50;

/// Run letters for table headers: A, B, … Z, then R27, R28, …
pub fn letter(i: usize) -> String {
    match u8::try_from(i).ok().filter(|&i| i < 26) {
        Some(i) => char::from(b'A' + i).to_string(),
        None => format!("R{}", i + 1),
    }
}

pub fn report(
    args: &Args,
    labels: &[String],
    runs: &[TalliedRun],
    rule_errors: &[RuleError],
    gold: Option<&Gold>,
    out: &mut Out,
) -> Result<()> {
    if args.html {
        bail!("--html compares at most two runs; use text, --markdown, --csv or --json");
    }
    let pairs: Vec<(String, &Tally)> = labels
        .iter()
        .cloned()
        .zip(runs.iter().map(|r| &r.tally))
        .collect();
    let comparison = RunsComparison::of(&pairs);
    let overviews = RunsComparison::overviews(&pairs);
    if args.json {
        let runs_json = runs
            .iter()
            .zip(&overviews)
            .map(|(run, overview)| {
                let mut j = json::run_json(run, overview, rule_errors, args.by_trajectory);
                j.localization = localized(run, gold, args.by_trajectory);
                j
            })
            .collect();
        let report = ManyJson {
            version: json::VERSION,
            runs: runs_json,
            comparison,
        };
        out.json(&report)?;
        return Ok(());
    }
    for run in runs {
        report_failures(run);
    }
    if args.csv {
        out.text(&rules(&comparison, true).csv())?;
        return Ok(());
    }
    let md = args.markdown;
    let render = |t: &Table| if md { t.markdown() } else { t.text() };
    let heading = |title: &str| {
        if md {
            format!("\n## {title}\n\n")
        } else {
            format!("\n{title}\n")
        }
    };
    let header = summary(&comparison, &overviews);
    if md {
        out.text("# trajscope stats: comparison of runs\n\n")?;
        for line in header.lines() {
            out.line(format_args!("- {line}"))?;
        }
    } else {
        out.text(&header)?;
    }
    out.text(&heading(
        "Pairs (McNemar on the shared instances both runs judged; χ² without continuity correction)",
    ))?;
    out.text(&render(&pairs_table(&comparison)))?;
    let (instances, all) = instances(&comparison);
    out.text(&heading(if all {
        "Shared instances (yes resolved, no unresolved, - no verdict)"
    } else {
        "Shared instances the runs disagree on (yes resolved, no unresolved, - no verdict)"
    }))?;
    out.text(&render(&instances))?;
    out.text(&heading(
        "Rules (trajectories with a match, share of each run; steps)",
    ))?;
    out.text(&render(&rules(&comparison, false)))?;
    for (i, run) in runs.iter().enumerate() {
        if let Some(located) = localized(run, gold, false) {
            let title = format!("Run {}: {}", letter(i), localization::heading(&located));
            out.text(&heading(&title))?;
            out.text(&render(&localization::table(&located)))?;
            out.text(&lost_lines(&located))?;
        }
    }
    Ok(())
}

/// The lines above the tables: each run, what they share, solve counts and Cochran's Q.
fn summary(c: &RunsComparison, overviews: &[Overview]) -> String {
    let mut out = String::new();
    for (i, (label, o)) in c.runs.iter().zip(overviews).enumerate() {
        let rate = super::text::resolved_rate(o);
        out.push_str(&format!(
            "{}: {label}: {} trajectories, {rate}\n",
            letter(i),
            o.trajectories
        ));
    }
    let complete: usize = c.solve_counts.0.iter().sum();
    out.push_str(&format!(
        "shared: {} instance(s) in every run, {complete} with a verdict in every run\n",
        c.instances.len()
    ));
    let counts: Vec<String> = c
        .solve_counts
        .0
        .iter()
        .enumerate()
        .map(|(k, n)| format!("{k}: {n}"))
        .collect();
    out.push_str(&format!(
        "solved by exactly k runs: {}\n",
        counts.join(", ")
    ));
    if let Some(q) = &c.cochran_q {
        match (q.statistic, q.p_value) {
            (Some(statistic), Some(p)) => out.push_str(&format!(
                "Cochran's Q = {statistic:.3} (df {}, {} instances), p = {p:.3}: {}\n",
                q.df,
                q.instances,
                if p < trajscope::metrics::SIGNIFICANCE {
                    "the runs' resolved rates differ more than noise explains"
                } else {
                    "the differences between the runs are within noise"
                }
            )),
            _ if q.instances == 0 => out.push_str(
                "Cochran's Q: undefined (no shared instance has a verdict in every run)\n",
            ),
            _ => out.push_str(&format!(
                "Cochran's Q: undefined ({} instances, every one judged alike by every run)\n",
                q.instances
            )),
        }
    }
    for warning in &c.warnings {
        out.push_str(&format!("note: {warning}\n"));
    }
    out
}

fn pairs_table(c: &RunsComparison) -> Table {
    let mut table = Table::new([
        "PAIR",
        "BOTH",
        "ONLY FIRST",
        "ONLY SECOND",
        "NEITHER",
        "MCNEMAR χ²",
        "EXACT p",
        "MID p",
    ]);
    for p in &c.pairs {
        table.row([
            format!("{}–{}", letter(p.a), letter(p.b)),
            p.both.to_string(),
            p.only_a.to_string(),
            p.only_b.to_string(),
            p.neither.to_string(),
            p.mcnemar
                .statistic
                .map_or("-".into(), |s| format!("{s:.3}")),
            format!("{:.3}", p.mcnemar.exact_p),
            format!("{:.3}", p.mcnemar.mid_p),
        ]);
    }
    table
}

/// The shared instances (all of them when few, else those the runs disagree on), and
/// whether the table holds all of them.
fn instances(c: &RunsComparison) -> (Table, bool) {
    let all = c.instances.len() <= ALL_INSTANCES_UP_TO;
    let mut header = vec!["INSTANCE".to_string()];
    header.extend((0..c.runs.len()).map(letter));
    header.push("SOLVED BY".into());
    let mut table = Table::new(header);
    for instance in &c.instances {
        let agree = instance.resolved.windows(2).all(|w| w[0] == w[1]);
        if !all && agree && instance.resolved.iter().all(Option::is_some) {
            continue;
        }
        let mut row = vec![instance.instance_id.clone()];
        row.extend(instance.resolved.iter().map(|v| match v {
            Some(true) => "yes".to_string(),
            Some(false) => "no".to_string(),
            None => "-".to_string(),
        }));
        row.push(
            instance
                .solved_by()
                .map_or("-".into(), |k| format!("{k}/{}", c.runs.len())),
        );
        table.row(row);
    }
    (table, all)
}

fn rules(c: &RunsComparison, csv: bool) -> Table {
    let mut header = vec![if csv { "name" } else { "RULE" }.to_string()];
    for i in 0..c.runs.len() {
        let l = letter(i);
        if csv {
            let l = l.to_lowercase();
            for part in ["matches", "steps", "trajectories", "share"] {
                header.push(format!("{l}_{part}"));
            }
        } else {
            header.push(format!("{l} TRAJS"));
        }
    }
    if !csv {
        header.extend((0..c.runs.len()).map(|i| format!("{} STEPS", letter(i))));
    }
    let mut table = Table::new(header);
    for rule in &c.rules {
        let mut row = vec![rule.name.clone()];
        if csv {
            for r in &rule.runs {
                row.push(r.matches.to_string());
                row.push(r.steps.to_string());
                row.push(r.trajectories.to_string());
                row.push(format!("{:.4}", r.share));
            }
        } else {
            row.extend(
                rule.runs
                    .iter()
                    .map(|r| format!("{} ({:.0}%)", r.trajectories, 100.0 * r.share)),
            );
            row.extend(rule.runs.iter().map(|r| r.steps.to_string()));
        }
        table.row(row);
    }
    table
}
