//! The human views of `trajscope stats`: the overview lines and the tables, rendered as
//! text, Markdown or CSV by [`super::super::table::Table`].

use super::super::table::Table;
use super::json::rule_hits;
use super::share::share;
use trajscope::metrics::{
    Comparison, Counts, ExitKind, Overview, RowKind, Split, Spread, TalliedRun, Tally,
};
use trajscope::present::LABEL_PREFIX;
use trajscope::table::sql::COLUMNS;

/// Why there is no resolved rate: no results file at all, or files none of which names these
/// trajectories (results of another run or model must not read as "none found").
fn no_rate(run: &TalliedRun) -> String {
    let files = run
        .results
        .sources
        .iter()
        .filter(|s| !s.verdicts.is_empty())
        .count();
    match files {
        0 => "no eval results found".into(),
        1 => "unknown (1 results file found, it names none of these trajectories)".into(),
        n => format!("unknown ({n} results files found, none names these trajectories)"),
    }
}

fn number(x: Option<f64>, decimals: usize) -> String {
    x.map_or("-".into(), |x| format!("{x:.decimals$}"))
}

fn spread(name: &str, s: &Spread, money: bool) -> String {
    if s.known == 0 {
        return format!("{name}: not recorded");
    }
    let (unit, decimals) = if money { ("$", 2) } else { ("", 0) };
    format!(
        "{name}: total {unit}{:.decimals$}, mean {unit}{}, median {unit}{}",
        s.total,
        number(s.mean, decimals),
        number(s.median, decimals)
    )
}

/// The lines above the tables.
pub fn overview(o: &Overview, run: &TalliedRun) -> String {
    let unreadable = run.failures.len();
    let mut out = format!(
        "{} trajectories: {} resolved, {} unresolved, {} unknown",
        o.trajectories, o.resolved, o.unresolved, o.unknown
    );
    if unreadable > 0 {
        out.push_str(&format!("; {unreadable} file(s) could not be read"));
    }
    out.push('\n');
    match o.resolved_rate {
        Some(r) => out.push_str(&format!(
            "resolved rate: {}/{} = {:.1}% (95% CI {:.1}%–{:.1}%, among trajectories with a verdict)\n",
            r.successes,
            r.total,
            100.0 * r.rate,
            100.0 * r.low,
            100.0 * r.high
        )),
        None => out.push_str(&format!("resolved rate: {}\n", no_rate(run))),
    }
    let kinds: Vec<String> = ExitKind::ALL
        .iter()
        .filter_map(|k| {
            let n = o.exit_kinds.get(k).copied().unwrap_or(0);
            (n > 0).then(|| format!("{k} {n}"))
        })
        .collect();
    let statuses: Vec<String> = o
        .exit_statuses
        .iter()
        .map(|(s, n)| format!("{s} {n}"))
        .collect();
    out.push_str(&format!(
        "exit: {} (as written: {})\n",
        kinds.join(", "),
        statuses.join(", ")
    ));
    out.push_str(&format!(
        "empty patch: {} ({:.1}%)\n",
        o.empty_patches,
        100.0 * o.empty_patch_rate
    ));
    for (name, s, money) in [
        ("steps", &o.steps, false),
        ("cost", &o.cost, true),
        ("tokens in", &o.tokens_in, false),
        ("tokens out", &o.tokens_out, false),
    ] {
        let mut line = spread(name, s, money);
        if s.known > 0 && s.known < o.trajectories {
            line.push_str(&format!(" (recorded by {} of {})", s.known, o.trajectories));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The rule (and label) table.
pub fn rules(tally: &Tally, csv: bool) -> Table {
    let (resolved, unresolved, unknown) = tally.outcomes();
    let mut table = if csv {
        // The emitted SQL's columns, with the row's kind and name first: one list, so the CSV
        // and the engines' output cannot drift apart.
        Table::new(
            ["kind", "name"]
                .into_iter()
                .chain(COLUMNS[1..].iter().copied()),
        )
    } else {
        Table::new([
            "RULE",
            "MATCHES",
            "STEPS",
            "TRAJS",
            "RESOLVED",
            "UNRESOLVED",
            "UNKNOWN",
        ])
    };
    for row in tally.rows() {
        let label = row.kind == RowKind::Label;
        let c = row.counts;
        if csv {
            let cells = |c: Counts| [c.matches, c.steps, c.trajectories].map(|n| n.to_string());
            let mut line = vec![
                if label { "label" } else { "rule" }.to_string(),
                row.name.clone(),
            ];
            for part in [c.all, c.resolved, c.unresolved, c.unknown] {
                line.extend(cells(part));
            }
            table.row(line);
        } else {
            let name = if label {
                format!("{LABEL_PREFIX}{}", row.name)
            } else {
                row.name.clone()
            };
            table.row(counted_row(name, &c, (resolved, unresolved, unknown)));
        }
    }
    table
}

/// Tool use.
pub fn tools(tally: &Tally) -> Table {
    let (resolved, unresolved, unknown) = tally.outcomes();
    let mut table = Table::new([
        "TOOL",
        "CALLS",
        "STEPS",
        "TRAJS",
        "RESOLVED",
        "UNRESOLVED",
        "UNKNOWN",
    ]);
    for tool in tally.tools() {
        table.row(counted_row(
            tool.name,
            &tool.counts,
            (resolved, unresolved, unknown),
        ));
    }
    table
}

/// A rule's or a tool's row: matches, steps and trajectories overall, then each outcome's
/// share of its trajectories.
fn counted_row(
    name: String,
    c: &Split,
    (resolved, unresolved, unknown): (usize, usize, usize),
) -> [String; 7] {
    [
        name,
        c.all.matches.to_string(),
        c.all.steps.to_string(),
        c.all.trajectories.to_string(),
        share(c.resolved.trajectories, resolved),
        share(c.unresolved.trajectories, unresolved),
        share(c.unknown.trajectories, unknown),
    ]
}

/// One row per trajectory; rules as `name×steps` (text) or one column per rule (CSV).
pub fn by_trajectory(tally: &Tally, csv: bool) -> Table {
    let rule_names: Vec<String> = tally
        .rows()
        .into_iter()
        .filter(|r| r.kind != RowKind::Label)
        .map(|r| r.name)
        .collect();
    let mut header: Vec<String> = [
        "instance",
        "path",
        "resolved",
        "exit",
        "steps",
        "cost",
        "tokens_in",
        "tokens_out",
        "patch_lines",
    ]
    .iter()
    .map(|s| if csv { s.to_string() } else { s.to_uppercase() })
    .collect();
    if csv {
        header.extend(rule_names.iter().cloned());
    } else {
        header.truncate(6);
        header.push("RULES (steps with a match)".into());
    }
    let mut table = Table::new(header);
    for t in tally.trajectories() {
        let hits = rule_hits(tally, t);
        let resolved = match t.resolved {
            Some(true) => "yes",
            Some(false) => "no",
            None => "unknown",
        };
        let mut row = vec![
            t.instance_id.clone(),
            t.display_source(),
            resolved.to_string(),
            t.exit_status.clone().unwrap_or_default(),
            t.steps.to_string(),
            number(t.usage.cost, 4),
        ];
        if csv {
            row.push(t.usage.tokens_in.map(|n| n.to_string()).unwrap_or_default());
            row.push(
                t.usage
                    .tokens_out
                    .map(|n| n.to_string())
                    .unwrap_or_default(),
            );
            row.push(t.patch_lines.to_string());
            row.extend(
                rule_names
                    .iter()
                    .map(|name| hits.get(name).map_or(0, |h| h.steps.len()).to_string()),
            );
        } else {
            let listed: Vec<String> = rule_names
                .iter()
                .filter_map(|name| hits.get(name).map(|h| format!("{name}×{}", h.steps.len())))
                .collect();
            row.push(listed.join(" "));
        }
        table.row(row);
    }
    table
}

/// `resolved 12/40 = 30.0% (95% CI 17.9%–45.6%)`, or that the run has no eval results.
pub fn resolved_rate(o: &Overview) -> String {
    match o.resolved_rate {
        Some(r) => format!(
            "resolved {}/{} = {:.1}% (95% CI {:.1}%–{:.1}%)",
            r.successes,
            r.total,
            100.0 * r.rate,
            100.0 * r.low,
            100.0 * r.high
        ),
        None => "no eval results".into(),
    }
}

/// The comparison's header lines.
pub fn comparison(c: &Comparison, a_name: &str, b_name: &str) -> String {
    let rate = resolved_rate;
    let mut out = format!(
        "A: {a_name}: {} trajectories, {}\nB: {b_name}: {} trajectories, {}\n",
        c.a.trajectories,
        rate(&c.a),
        c.b.trajectories,
        rate(&c.b)
    );
    let p = &c.pairing;
    out.push_str(&format!(
        "paired: {} instances judged in both: {} resolved by both, {} by neither, {} only by A, {} only by B\n",
        p.paired,
        p.both_resolved,
        p.neither_resolved,
        p.only_a.len(),
        p.only_b.len()
    ));
    if !p.only_a.is_empty() {
        out.push_str(&format!("resolved only by A: {}\n", p.only_a.join(" ")));
    }
    if !p.only_b.is_empty() {
        out.push_str(&format!("resolved only by B: {}\n", p.only_b.join(" ")));
    }
    out.push_str(&format!("verdict: {}\n", c.message));
    for warning in &c.warnings {
        out.push_str(&format!("note: {warning}\n"));
    }
    out
}

/// Per-rule deltas: trajectories with a match as a share of each run, and steps.
pub fn deltas(c: &Comparison, csv: bool) -> Table {
    let mut table = if csv {
        Table::new([
            "name",
            "a_matches",
            "a_steps",
            "a_trajectories",
            "a_share",
            "b_matches",
            "b_steps",
            "b_trajectories",
            "b_share",
            "delta_share",
        ])
    } else {
        Table::new([
            "RULE",
            "A TRAJS",
            "B TRAJS",
            "Δ POINTS",
            "A STEPS",
            "B STEPS",
        ])
    };
    for r in &c.rules {
        if csv {
            table.row([
                r.name.clone(),
                r.a.matches.to_string(),
                r.a.steps.to_string(),
                r.a.trajectories.to_string(),
                format!("{:.4}", r.a_share),
                r.b.matches.to_string(),
                r.b.steps.to_string(),
                r.b.trajectories.to_string(),
                format!("{:.4}", r.b_share),
                format!("{:.4}", r.b_share - r.a_share),
            ]);
        } else {
            table.row([
                r.name.clone(),
                format!("{} ({:.0}%)", r.a.trajectories, 100.0 * r.a_share),
                format!("{} ({:.0}%)", r.b.trajectories, 100.0 * r.b_share),
                format!("{:+.0}", 100.0 * (r.b_share - r.a_share)),
                r.a.steps.to_string(),
                r.b.steps.to_string(),
            ]);
        }
    }
    table
}
