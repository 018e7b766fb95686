//! `trajscope ls`: one row per trajectory, as a table or JSON.

use super::progress::Indicator;
use anyhow::Result;
use serde::Serialize;
use std::collections::HashSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use trajscope::formats::{RunCache, load_run_summaries};
use trajscope::metrics::{
    FilterRow, Matcher, RuleOptions, RuleSet, RunFilter, TrajectoryKey, tally_run_cached,
    user_rules_path,
};
use trajscope::model::{LoadFailure, TrajectorySummary, labels};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Trajectory files or folders (searched recursively).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Print a JSON array of objects instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Read every file again instead of reusing the summaries cached from the last time
    /// (kept in the user's cache folder, keyed by each file's size and modification time).
    #[arg(long)]
    pub no_cache: bool,
    #[command(flatten)]
    pub results: super::results::ResultsArg,
    /// Only the trajectories matching EXPR (the run filter's terms: `resolved:yes`,
    /// `steps>30`, `-exit:submitted`, … ; see docs/tui.md).
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub filter: Option<String>,
}

/// One `--json` row. A file that could not be read is a row too, with `error` set.
#[derive(Debug, Serialize)]
struct Row {
    path: PathBuf,
    /// The row's name: its instance id, and where that is shared, what tells it apart.
    label: Option<String>,
    /// 1-based position of the trajectory in a file that holds several.
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
    format: Option<String>,
    format_detail: Option<String>,
    instance_id: Option<String>,
    model: Option<String>,
    steps: Option<usize>,
    exit_status: Option<String>,
    resolved: Option<bool>,
    /// The file the verdict was read from (the trajectory's own when it carries one).
    verdict_source: Option<PathBuf>,
    cost: Option<f64>,
    tokens_in: Option<u64>,
    tokens_out: Option<u64>,
    /// Of `tokens_in`, read from the prompt cache (null where the log does not say).
    tokens_cached: Option<u64>,
    /// Of `tokens_out`, spent reasoning (null where the log does not say).
    tokens_reasoning: Option<u64>,
    api_calls: Option<u64>,
    patch_lines: Option<usize>,
    error_steps: Option<usize>,
    warnings: Vec<String>,
    error: Option<String>,
    /// For a sub-agent's log: the trajectory that spawned it; null otherwise.
    parent: Option<PathBuf>,
}

impl Row {
    fn of(s: &TrajectorySummary, label: &str) -> Row {
        Row {
            path: s.path.clone(),
            label: Some(label.to_string()),
            index: s.source_index.map(|i| i + 1),
            format: Some(s.format.name().to_string()),
            format_detail: s.format_detail.clone(),
            instance_id: Some(s.instance_id.clone()),
            model: s.model.clone(),
            steps: Some(s.steps),
            exit_status: s.exit_status.clone(),
            resolved: s.resolved,
            verdict_source: s.verdict_source.clone(),
            cost: s.usage.cost,
            tokens_in: s.usage.tokens_in,
            tokens_out: s.usage.tokens_out,
            tokens_cached: s.usage.tokens_cached,
            tokens_reasoning: s.usage.tokens_reasoning,
            api_calls: s.usage.api_calls,
            patch_lines: Some(s.patch_lines),
            error_steps: Some(s.error_steps),
            warnings: s.warnings.clone(),
            error: None,
            parent: s.parent.clone(),
        }
    }

    fn failed(f: &LoadFailure) -> Row {
        Row {
            path: f.path.clone(),
            label: None,
            index: None,
            format: None,
            format_detail: None,
            instance_id: None,
            model: None,
            steps: None,
            exit_status: None,
            resolved: None,
            verdict_source: None,
            cost: None,
            tokens_in: None,
            tokens_out: None,
            tokens_cached: None,
            tokens_reasoning: None,
            api_calls: None,
            patch_lines: None,
            error_steps: None,
            warnings: Vec::new(),
            error: Some(f.message.clone()),
            parent: None,
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let named = args.results.named()?;
    let filter = match &args.filter {
        Some(text) => Some(RunFilter::parse(text, None)?),
        None => None,
    };
    let indicator = Indicator::new();
    let mut cache = match RunCache::default_dir() {
        Some(dir) if !args.no_cache => RunCache::open(&dir, &args.paths),
        _ => RunCache::disabled(),
    };
    let (mut summaries, mut results, failures) =
        load_run_summaries(&args.paths, &mut cache, &|p| indicator.update(p));
    indicator.finish();
    // A cache that cannot be written only costs speed next time.
    let _ = cache.save();
    if !named.is_empty() {
        results.name_first(named);
        results.apply(&mut summaries);
    }
    let keys: Vec<_> = summaries.iter().map(|r| r.label_key()).collect();
    let names = labels(&keys);
    let read_nothing = summaries.is_empty();
    let kept: Vec<usize> = match &filter {
        Some(filter) => matching(&args, filter, &summaries, &names)?,
        None => (0..summaries.len()).collect(),
    };

    if args.json {
        let rows: Vec<Row> = kept
            .iter()
            .map(|&i| Row::of(&summaries[i], &names[i]))
            .chain(failures.iter().map(Row::failed))
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        let shown: Vec<(&TrajectorySummary, &str)> = kept
            .iter()
            .map(|&i| (&summaries[i], names[i].as_str()))
            .collect();
        if !shown.is_empty() {
            print_table(&shown);
        }
        for failure in &failures {
            eprintln!("error: {}", failure.message);
        }
        let listed: Vec<&TrajectorySummary> = shown.iter().map(|(s, _)| *s).collect();
        eprintln!("{}", summary_line(&listed, failures.len()));
    }
    if read_nothing {
        if failures.is_empty() {
            let shown: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
            eprintln!("trajscope: no trajectories found in {}", shown.join(", "));
        }
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The rows `filter` keeps; `rule:` terms tally the run with the user's rules first.
fn matching(
    args: &Args,
    filter: &RunFilter,
    summaries: &[TrajectorySummary],
    names: &[String],
) -> Result<Vec<usize>> {
    let mut tallies = None;
    if filter.uses_rules() {
        let set = RuleSet::load(&RuleOptions {
            user_file: user_rules_path(),
            ..RuleOptions::default()
        });
        let (matcher, _) = Matcher::new(set.rules);
        let rule_names: Vec<&str> = matcher.rules().iter().map(|r| r.name.as_str()).collect();
        RunFilter::parse(args.filter.as_deref().unwrap_or(""), Some(&rule_names))?;
        let matcher = Arc::new(matcher);
        let mut cache = match RunCache::default_dir() {
            Some(dir) if !args.no_cache => RunCache::open(&dir, &args.paths),
            _ => RunCache::disabled(),
        };
        let never = AtomicBool::new(false);
        let run = tally_run_cached(&args.paths, matcher.clone(), &mut cache, &never, &|_| {});
        let _ = cache.save();
        tallies = run.map(|run| (run, matcher));
    }
    let mut kept = Vec::new();
    for (i, (s, label)) in summaries.iter().zip(names).enumerate() {
        let path = s.path.display().to_string();
        let hits: HashSet<&str> = match &tallies {
            Some((run, matcher)) => {
                let key = TrajectoryKey {
                    path: s.path.clone(),
                    source_index: s.source_index,
                };
                run.tally
                    .find(&key)
                    .and_then(|t| run.tally.trajectory(t))
                    .map(|t| {
                        let rules = matcher.rules();
                        rules
                            .iter()
                            .filter(|r| t.matched(rules, &r.name))
                            .map(|r| r.name.as_str())
                            .collect()
                    })
                    .unwrap_or_default()
            }
            None => HashSet::new(),
        };
        let matched = |name: &str| hits.contains(name);
        let mut row = FilterRow::of_summary(s, label, &path);
        if tallies.is_some() {
            row.rule = Some(&matched);
        }
        if filter.matches(&row) {
            kept.push(i);
        }
    }
    Ok(kept)
}

fn print_table(rows: &[(&TrajectorySummary, &str)]) {
    // Labels are never cut: the part that tells two rows apart is at their end.
    let width = rows
        .iter()
        .map(|(_, l)| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(8);
    println!(
        "{:<width$} {:<14} {:>5} {:<21} {:<8} {:>8} {:>9} {:>8} {:>6} {:>4}  PATH",
        "INSTANCE",
        "FORMAT",
        "STEPS",
        "EXIT",
        "RESOLVED",
        "COST",
        "TOK_IN",
        "TOK_OUT",
        "PATCH",
        "ERR"
    );
    for (s, label) in rows {
        println!(
            "{:<width$} {:<14} {:>5} {:<21} {:<8} {:>8} {:>9} {:>8} {:>6} {:>4}  {}",
            label,
            s.format.name(),
            s.steps,
            clip(s.exit_shown().as_deref().unwrap_or("-"), 21),
            match s.resolved {
                Some(true) => "yes",
                Some(false) => "no",
                None => "unknown",
            },
            s.usage.cost.map_or("-".into(), |c| format!("{c:.4}")),
            s.usage.tokens_in.map_or("-".into(), |t| t.to_string()),
            s.usage.tokens_out.map_or("-".into(), |t| t.to_string()),
            s.patch_lines,
            s.error_steps,
            s.display_source(),
        );
    }
}

fn summary_line(summaries: &[&TrajectorySummary], failed: usize) -> String {
    let resolved = summaries
        .iter()
        .filter(|s| s.resolved == Some(true))
        .count();
    let unresolved = summaries
        .iter()
        .filter(|s| s.resolved == Some(false))
        .count();
    let unknown = summaries.len() - resolved - unresolved;
    // `sum` of no f64 is -0.0; adding 0.0 prints it as 0.00.
    let cost: f64 = summaries.iter().filter_map(|s| s.usage.cost).sum::<f64>() + 0.0;
    format!(
        "{} trajectories: {resolved} resolved, {unresolved} unresolved, {unknown} unknown; total cost ${cost:.2}; {failed} file(s) could not be read",
        summaries.len()
    )
}

fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        let kept: String = text.chars().take(width.saturating_sub(1)).collect();
        format!("{kept}…")
    }
}
