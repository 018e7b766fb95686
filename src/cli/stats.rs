//! `trajscope stats PATH...`: the failure-mode tally of a run (or the comparison of two
//! runs) with the default rules, the user's rules and `--rules` files.

mod emit_sql;
mod gold;
mod html;
mod json;
mod localization;
mod many;
mod share;
mod text;

pub(super) use localization::load as load_dataset;

use super::output::Out;
use super::progress::Indicator;
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use trajscope::diff::GoldPatches;
use trajscope::export::text_chart;
use trajscope::formats::RunCache;
use trajscope::metrics::{
    Comparison, FilterRow, Keep, LabelSet, Matcher, RuleError, RunFilter, RunsComparison,
    TalliedRun, Tally, tally_run_cached_keeping, tally_run_keeping,
};
use trajscope::model::{LabelKey, ResultsSource, labels};

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Run folders or trajectory files. Exactly two folders are two runs to compare (use
    /// --one-run to count them as one); more paths, or files, make one run.
    #[arg(required_unless_present_any = ["runs", "emit_sql"])]
    pub paths: Vec<PathBuf>,
    /// Compare two or more runs, one path (folder or file) each, on the instances they all
    /// share: solve counts, McNemar for every pair, Cochran's Q for three or more.
    #[arg(long, num_args = 2.., value_name = "RUN", conflicts_with_all = ["paths", "vs", "one_run"])]
    pub runs: Vec<PathBuf>,
    /// Compare: the PATHs are run A, these paths run B (each may be several folders).
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub vs: Vec<PathBuf>,
    /// Count all PATHs as one run, even exactly two folders.
    #[arg(long, conflicts_with = "vs")]
    pub one_run: bool,
    #[command(flatten)]
    pub rules: super::rules_arg::RulesArg,
    /// Print JSON (shape in docs/metrics.md).
    #[arg(long, group = "format")]
    pub json: bool,
    /// Print CSV: the rule table, or with --by-trajectory one row per trajectory.
    #[arg(long, group = "format")]
    pub csv: bool,
    /// Print Markdown tables.
    #[arg(long, group = "format")]
    pub markdown: bool,
    /// A self-contained HTML report with bar charts (inline SVG), to stdout or -o FILE.
    #[arg(long, group = "format")]
    pub html: bool,
    /// Write the --html report to FILE (written whole, never over an input).
    #[arg(long, short = 'o', value_name = "FILE", requires = "html")]
    pub output: Option<PathBuf>,
    /// One row per trajectory.
    #[arg(long)]
    pub by_trajectory: bool,
    /// A SWE-bench dataset (JSON or JSON lines with `instance_id` and `patch`): add how many
    /// trajectories' patches edit the files the gold patch edits (localization).
    #[arg(long, value_name = "FILE")]
    pub dataset: Option<PathBuf>,
    /// Read and tally every file again instead of reusing the tallies cached from the last
    /// time with the same rules (kept in the user's cache folder, keyed by each file's size
    /// and modification time).
    #[arg(long)]
    pub no_cache: bool,
    #[command(flatten)]
    pub results: super::results::ResultsArg,
    /// Count only the trajectories matching EXPR (the run filter's terms: `resolved:no`,
    /// `steps>30`, `rule:NAME`, … ; see docs/tui.md).
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub filter: Option<String>,
    /// Print one SQL query computing this tally (one row per rule) in DuckDB or Spark over the
    /// tables of `trajscope table`, instead of tallying (docs/parquet.md).
    #[arg(long, value_name = "ENGINE", value_parser = ["duckdb", "spark"])]
    pub emit_sql: Option<String>,
    /// With --emit-sql: the query reads the table folder DIR itself (else it reads the
    /// relations `steps` and `trajectories`).
    #[arg(long, value_name = "DIR", requires = "emit_sql")]
    pub table: Option<PathBuf>,
}

/// Cells of the longest bar in a Markdown chart: with the labels it fits 80 columns.
const CHART_WIDTH: usize = 40;

const EXAMPLES: &str = "\
Examples:
  trajscope stats runs/my-eval/                   rules, tools, outcomes of a run
  trajscope stats runs/a/ runs/b/                 compare two runs (paired McNemar test)
  trajscope stats runs/a1 runs/a2 --vs runs/b     run A made of two folders, against run B
  trajscope stats --runs runs/a runs/b runs/c     three runs on their shared instances
  trajscope stats runs/x --rules mine.toml --json
  trajscope stats runs/x --dataset swe-bench-lite.jsonl   with localization against gold patches";

pub fn run(args: Args) -> Result<ExitCode> {
    let (matcher, rule_errors) = args.rules.compile();
    if let Some(engine) = &args.emit_sql {
        return emit_sql::print(&matcher, engine, args.table.as_deref());
    }
    let rule_names: Vec<&str> = matcher.rules().iter().map(|r| r.name.as_str()).collect();
    let filter = match &args.filter {
        Some(text) => Some(RunFilter::parse(text, Some(&rule_names))?),
        None => None,
    };
    let named = args.results.named()?;
    let matcher = Arc::new(matcher);
    let gold = match &args.dataset {
        Some(path) => Some((localization::load(path)?, path.clone())),
        None => None,
    };

    let mut pick = Pick {
        named: &named,
        filter: filter.as_ref(),
        no_cache: args.no_cache,
        keep: Keep::Trajectories,
    };
    let mut out = Out::new();
    if args.runs.len() > 2 {
        let indicator = Indicator::new();
        let tallied: Vec<TalliedRun> = args
            .runs
            .iter()
            .map(|path| tally(std::slice::from_ref(path), &matcher, &indicator, &pick))
            .collect();
        indicator.finish();
        let labels: Vec<String> = args.runs.iter().map(|p| p.display().to_string()).collect();
        many::report(
            &args,
            &labels,
            &tallied,
            &rule_errors,
            gold.as_ref(),
            &mut out,
        )?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }

    let (a_paths, b_paths) = runs(&args);
    // One run's tables need only its counts: a dataset of any size is then summed up as it
    // is read. Per-trajectory outputs, comparisons, joins and filters keep every row.
    if b_paths.is_none()
        && !args.by_trajectory
        && gold.is_none()
        && pick.filter.is_none()
        && pick.named.is_empty()
    {
        pick.keep = Keep::Counts;
    }
    let indicator = Indicator::new();
    let a = tally(&a_paths, &matcher, &indicator, &pick);
    let b = b_paths.map(|paths| tally(&paths, &matcher, &indicator, &pick));
    indicator.finish();
    // Nothing read at all is a failure, as for `ls`: a typo must not look like an empty run.
    let empty = |run: &TalliedRun| run.tally.is_empty() && pick.filter.is_none();
    if empty(&a) || b.as_ref().is_some_and(empty) {
        let run = if empty(&a) {
            &a
        } else {
            b.as_ref().unwrap_or(&a)
        };
        report_failures(run);
        if run.failures.is_empty() {
            eprintln!(
                "trajscope: no trajectories found in {}",
                name_of(&run.roots)
            );
        }
        return Ok(ExitCode::FAILURE);
    }

    match b {
        None => single(&args, &a, &rule_errors, gold.as_ref(), &mut out)?,
        Some(b) => compare(&args, &a, &b, &rule_errors, gold.as_ref(), &mut out)?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Run A's paths, and run B's when comparing.
fn runs(args: &Args) -> (Vec<PathBuf>, Option<Vec<PathBuf>>) {
    if let [a, b] = args.runs.as_slice() {
        return (vec![a.clone()], Some(vec![b.clone()]));
    }
    if !args.vs.is_empty() {
        return (args.paths.clone(), Some(args.vs.clone()));
    }
    if !args.one_run && args.paths.len() == 2 && args.paths.iter().all(|p| p.is_dir()) {
        return (
            vec![args.paths[0].clone()],
            Some(vec![args.paths[1].clone()]),
        );
    }
    (args.paths.clone(), None)
}

/// Which results come first and which trajectories count.
struct Pick<'a> {
    named: &'a [ResultsSource],
    filter: Option<&'a RunFilter>,
    no_cache: bool,
    /// Counts only, when no label has to be placed on a trajectory either.
    keep: Keep,
}

fn tally(
    paths: &[PathBuf],
    matcher: &Arc<Matcher>,
    indicator: &Indicator,
    pick: &Pick,
) -> TalliedRun {
    let no_cache = pick.no_cache;
    let mut roots: Vec<PathBuf> = paths.iter().map(|p| LabelSet::root_for(p)).collect();
    roots.sort();
    roots.dedup();
    let sets: Vec<LabelSet> = roots
        .iter()
        .filter_map(|root| match LabelSet::load(root) {
            Ok(set) => Some(set),
            Err(err) => {
                eprintln!("trajscope: warning: labels not counted: {err}");
                None
            }
        })
        .collect();
    let keep = if sets.iter().all(|s| s.labels().is_empty()) {
        pick.keep
    } else {
        Keep::Trajectories
    };
    let mut run = if no_cache {
        tally_run_keeping(paths, Arc::clone(matcher), keep, &|p| indicator.update(p))
    } else {
        let mut cache = match RunCache::default_dir() {
            Some(dir) => RunCache::open(&dir, paths),
            None => RunCache::disabled(),
        };
        let never = AtomicBool::new(false);
        let run =
            tally_run_cached_keeping(paths, Arc::clone(matcher), &mut cache, &never, keep, &|p| {
                indicator.update(p)
            });
        // A cache that cannot be written only costs speed next time.
        let _ = cache.save();
        // Never cancelled here; a cancelled tally would be read again in full.
        match run {
            Some(run) => run,
            None => tally_run_keeping(paths, Arc::clone(matcher), keep, &|p| indicator.update(p)),
        }
    };
    if !pick.named.is_empty() {
        run.results.name_first(pick.named.to_vec());
        run.results.apply(run.tally.trajectories_mut());
    }
    if let Some(filter) = pick.filter {
        run.tally = filtered(&run.tally, matcher, filter);
    }
    run.tally.set_labels(&sets);
    run
}

/// The tally of only the trajectories `filter` keeps, under the labels a listing gives them.
fn filtered(tally: &Tally, matcher: &Arc<Matcher>, filter: &RunFilter) -> Tally {
    let all = tally.trajectories();
    let keys: Vec<LabelKey<'_>> = all.iter().map(|t| t.label_key()).collect();
    let names = labels(&keys);
    let rules = matcher.rules();
    let mut kept = Tally::new(Arc::clone(matcher));
    for (t, label) in all.iter().zip(&names) {
        let path = t.path.display().to_string();
        let exit = t.exit_shown();
        let matched = |name: &str| t.matched(rules, name);
        let tokens = match (t.usage.tokens_in, t.usage.tokens_out) {
            (None, None) => None,
            (i, o) => Some((i.unwrap_or(0) + o.unwrap_or(0)) as f64),
        };
        let row = FilterRow {
            label,
            path: &path,
            resolved: t.resolved,
            exit: exit.as_deref(),
            format: t.format.name(),
            model: t.model.as_deref(),
            steps: Some(t.steps as f64),
            cost: t.usage.cost,
            tokens,
            errors: t.error_steps.map(|n| n as f64),
            rule: Some(&matched),
        };
        if filter.matches(&row) {
            kept.insert(t.clone());
        }
    }
    kept
}

fn name_of(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ")
}

fn report_failures(run: &TalliedRun) {
    for failure in &run.failures {
        eprintln!("trajscope: {}", failure.message);
    }
}

/// The gold patches of `--dataset`, and the file they came from.
type Gold = (GoldPatches, PathBuf);

fn localized(
    run: &TalliedRun,
    gold: Option<&Gold>,
    by_trajectory: bool,
) -> Option<localization::Report> {
    gold.map(|(patches, path)| {
        let mut report = localization::report(&run.tally, patches, path, by_trajectory);
        report.gold_change = Some(gold::scan(&run.tally, patches));
        report
    })
}

/// The trajectories that reached the gold change and lost it, one line each.
fn lost_lines(located: &localization::Report) -> String {
    let Some(change) = &located.gold_change else {
        return String::new();
    };
    let mut out = String::new();
    for lost in &change.lost_trajectories {
        out.push_str(&format!(
            "reached the gold change at step {}/{} and lost it ({}/{} gold hunks in the final patch): {} {}\n  {}\n",
            lost.reached_at,
            lost.steps,
            lost.final_hunks_present,
            lost.gold_hunks,
            lost.instance_id,
            lost.path.display(),
            lost.strip
        ));
    }
    if change.unreadable > 0 {
        out.push_str(&format!(
            "note: {} trajectory file(s) could not be read again for the step-by-step comparison\n",
            change.unreadable
        ));
    }
    out
}

fn single(
    args: &Args,
    run: &TalliedRun,
    rule_errors: &[RuleError],
    gold: Option<&Gold>,
    out: &mut Out,
) -> Result<()> {
    let overview = run.tally.overview();
    let located = localized(run, gold, args.by_trajectory);
    if args.json {
        let mut report = json::run_json(run, &overview, rule_errors, args.by_trajectory);
        report.localization = located;
        out.json(&report)?;
        return Ok(());
    }
    report_failures(run);
    if args.html {
        let mut report = html::report(run, &overview, &name_of(&run.roots));
        if let Some(located) = &located {
            report.tables.push(html::localization(located));
        }
        return html::write(&report, args.output.as_deref(), &run.roots, out);
    }
    if args.csv {
        let table = if args.by_trajectory {
            text::by_trajectory(&run.tally, true)
        } else {
            text::rules(&run.tally, true)
        };
        out.text(&table.csv())?;
        return Ok(());
    }
    let md = args.markdown;
    let render = |t: &super::table::Table| if md { t.markdown() } else { t.text() };
    let heading = |title: &str| {
        if md {
            format!("\n## {title}\n\n")
        } else {
            format!("\n{title}\n")
        }
    };
    if md {
        out.text(&format!("# trajscope stats: {}\n\n", name_of(&run.roots)))?;
        for line in text::overview(&overview, run).lines() {
            out.line(format_args!("- {line}"))?;
        }
    } else {
        out.text(&text::overview(&overview, run))?;
    }
    if run.tally.is_empty() {
        return Ok(());
    }
    out.text(&heading(
        "Rules (TRAJS: trajectories with a match; per outcome, their share of it)",
    ))?;
    // Markdown has no pictures: each table's chart follows it as text bars (the same chart
    // the HTML report draws), trajectories with a match stacked by outcome.
    let charts = md.then(|| html::report(run, &overview, &name_of(&run.roots)).tables);
    let chart = |i: usize| match charts.as_ref().and_then(|c| c.get(i)) {
        Some(table) if !table.bars.is_empty() => format!(
            "\n{}:\n\n```text\n{}```\n",
            table.title,
            text_chart(table, CHART_WIDTH)
        ),
        _ => String::new(),
    };
    out.text(&render(&text::rules(&run.tally, false)))?;
    out.text(&chart(0))?;
    let tools = text::tools(&run.tally);
    if !tools.is_empty() {
        out.text(&heading("Tools"))?;
        out.text(&render(&tools))?;
        out.text(&chart(1))?;
    }
    if let Some(located) = &located {
        out.text(&heading(&localization::heading(located)))?;
        out.text(&render(&localization::table(located)))?;
        out.text(&lost_lines(located))?;
    }
    if args.by_trajectory {
        out.text(&heading("Trajectories"))?;
        out.text(&render(&text::by_trajectory(&run.tally, false)))?;
    }
    Ok(())
}

fn compare(
    args: &Args,
    a: &TalliedRun,
    b: &TalliedRun,
    rule_errors: &[RuleError],
    gold: Option<&Gold>,
    out: &mut Out,
) -> Result<()> {
    let comparison = Comparison::of(&a.tally, &b.tally);
    let (located_a, located_b) = (
        localized(a, gold, args.by_trajectory),
        localized(b, gold, args.by_trajectory),
    );
    if args.json {
        let mut ja = json::run_json(a, &comparison.a, rule_errors, args.by_trajectory);
        let mut jb = json::run_json(b, &comparison.b, rule_errors, args.by_trajectory);
        ja.localization = located_a;
        jb.localization = located_b;
        let mut report = json::compare_json(ja, jb, &comparison);
        let labels = [name_of(&a.roots), name_of(&b.roots)];
        report.comparison = Some(RunsComparison::of(&[
            (labels[0].clone(), &a.tally),
            (labels[1].clone(), &b.tally),
        ]));
        out.json(&report)?;
        return Ok(());
    }
    report_failures(a);
    report_failures(b);
    if args.csv {
        out.text(&text::deltas(&comparison, true).csv())?;
        return Ok(());
    }
    let header = text::comparison(&comparison, &name_of(&a.roots), &name_of(&b.roots));
    if args.markdown {
        out.text("# trajscope stats: comparison\n\n")?;
        for line in header.lines() {
            out.line(format_args!("- {line}"))?;
        }
        out.text("\n")?;
        out.text(&text::deltas(&comparison, false).markdown())?;
    } else {
        out.text(&header)?;
        out.text(
            "\nRules (trajectories with a match, share of each run; Δ in percentage points)\n",
        )?;
        out.text(&text::deltas(&comparison, false).text())?;
    }
    for (name, located) in [("A", &located_a), ("B", &located_b)] {
        if let Some(located) = located {
            let title = format!("Run {name}: {}", localization::heading(located));
            let table = localization::table(located);
            if args.markdown {
                out.text(&format!("\n## {title}\n\n{}", table.markdown()))?;
            } else {
                out.text(&format!("\n{title}\n{}", table.text()))?;
            }
            out.text(&lost_lines(located))?;
        }
    }
    Ok(())
}
