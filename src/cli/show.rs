//! `trajscope show`: a trajectory's steps in reading order, one step, or its context.

use anyhow::{Context as _, Result, bail};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use trajscope::formats::{
    Loaded, SLIM_ABOVE, check_fits, is_big, is_big_text_log, lazy_above, load_file, open_first,
    open_inspect_log, open_lazy_quietly, open_revisited, opens_lazily, trace_at,
};
use trajscope::model::{Exactness, Message, Step, StepKind, Trajectory};
use trajscope::present::sections::{SectionKind, sections};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A trajectory file. For files that hold several (an OpenHands `output.jsonl`, an
    /// Inspect log), pick one with `FILE#N` or `--trajectory N`.
    pub file: PathBuf,
    /// Show only step N (1-based).
    #[arg(long, short = 's', value_name = "N")]
    pub step: Option<usize>,
    /// Print the model's input at the step (exact or reconstructed, as labelled); without
    /// `--step`, at the last step.
    #[arg(long, short = 'c')]
    pub context: bool,
    /// Which trajectory of a file that holds several (1-based).
    #[arg(long, short = 't', value_name = "N")]
    pub trajectory: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print what the steps changed: each editing step's diff (or, with `--step`, that
    /// step's edits, model-input changes and repeated-command output), the working tree,
    /// the cumulative change and the submission check.
    #[arg(long, short = 'd')]
    pub diff: bool,
    #[command(flatten)]
    pub results: super::results::ResultsArg,
    /// A SWE-bench dataset (JSON or JSON lines with `instance_id` and `patch`): compare
    /// every step's working tree with the gold patch (a strip in the header; a `gold` key per
    /// step and for the trajectory in --json) and say whether the run reached the gold
    /// change and lost it.
    #[arg(long, value_name = "FILE")]
    pub dataset: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(index) = args.step.filter(|_| !args.diff && args.dataset.is_none())
        && !args.context
        && let Some((step, total)) = visit_one_step(&args.file, args.trajectory, index)?
    {
        if args.json {
            println!("{}", serde_json::to_string_pretty(&step)?);
        } else {
            print_step(&step, total);
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(index) = args.step.filter(|_| !args.diff && args.dataset.is_none())
        && let Some((one, total)) = open_one_step(&args.file, args.trajectory, index)?
    {
        let step = &one.steps[0];
        if args.context {
            print_context(&one, step, args.json)?;
        } else if args.json {
            println!("{}", serde_json::to_string_pretty(step)?);
        } else {
            print_step(step, total);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let trajectory = open_judged(&args.file, args.trajectory, &args.results)?;
    if args.diff {
        if let Some(index) = args.step {
            pick_step(&trajectory, index)?;
        }
        super::show_diff::run(&trajectory, args.step, args.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.context {
        let index = args.step.unwrap_or(trajectory.steps.len());
        let step = pick_step(&trajectory, index)?;
        print_context(&trajectory, step, args.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    let gold = match &args.dataset {
        Some(dataset) => Some((super::show_gold::proximity(&trajectory, dataset)?, dataset)),
        None => None,
    };
    match (args.step, &gold) {
        (Some(index), _) => {
            let step = pick_step(&trajectory, index)?;
            if args.json {
                let mut value = serde_json::to_value(step)?;
                if let (Some((p, _)), Some(object)) = (&gold, value.as_object_mut())
                    && let Some(g) = p.steps.get(index - 1)
                {
                    object.insert("gold".into(), serde_json::to_value(g)?);
                }
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                print_step(step, trajectory.steps.len());
            }
        }
        (None, Some((p, dataset))) if args.json => println!(
            "{}",
            serde_json::to_string_pretty(&super::show_gold::json(&trajectory, p, dataset)?)?
        ),
        (None, _) if args.json => println!("{}", serde_json::to_string_pretty(&trajectory)?),
        (None, _) => {
            print_header(&trajectory);
            if let Some((p, _)) = &gold {
                print!("{}", super::show_gold::text(p));
            }
            for step in &trajectory.steps {
                print_step(step, trajectory.steps.len());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Loads the file and picks one trajectory, joined with the eval results above its file.
pub fn open(file: &Path, which: Option<usize>) -> Result<Trajectory> {
    open_judged(file, which, &super::results::ResultsArg::default())
}

/// Like [`open`], with the results files the user named taken first.
pub fn open_judged(
    file: &Path,
    which: Option<usize>,
    results: &super::results::ResultsArg,
) -> Result<Trajectory> {
    let mut trajectory = open_alone(file, which)?;
    results.join(&mut trajectory)?;
    Ok(trajectory)
}

/// A big file (one trajectory, no `#N` or `--trajectory`) opened for a caller that walks its
/// steps in passes and never asks for one alone (an export), with its verdict joined: its
/// steps read again from the file at each pass and none held ([`open_revisited`]) where its
/// format allows, else its lazy open. `None`: read it whole.
pub fn open_judged_for_passes(
    file: &Path,
    which: Option<usize>,
    results: &super::results::ResultsArg,
) -> Result<Option<Trajectory>> {
    let (path, from_suffix) = split_index(file);
    if which.or(from_suffix).is_some() || !passes_over(&path) {
        return Ok(None);
    }
    let opened = match open_revisited(&path, SLIM_ABOVE)? {
        Some(trajectory) => Some(trajectory),
        None => open_lazy_quietly(&path)?,
    };
    let Some(mut trajectory) = opened else {
        return Ok(None);
    };
    results.join(&mut trajectory)?;
    Ok(Some(trajectory))
}

/// Whether a big `path` is read step by step from the file rather than whole: it opens
/// lazily, or it is a text log (Aider, Llama) read line by line.
fn passes_over(path: &Path) -> bool {
    opens_lazily(path, lazy_above()) || is_big_text_log(path, lazy_above())
}

/// Loads the file and picks one trajectory: `FILE#N`, `--trajectory N`, or the only one.
fn open_alone(file: &Path, which: Option<usize>) -> Result<Trajectory> {
    let (path, from_suffix) = split_index(file);
    let which = which.or(from_suffix);
    if trajscope::formats::parquet::is_parquet(&path) {
        return open_row(&path, which);
    }
    // A big Inspect `.json` log: only the sample asked for is read, never the file whole.
    // First: its first keys tell it at once, where the trace index below would slim the
    // whole document before knowing it is not an export.
    if std::fs::metadata(&path).is_ok_and(|m| m.len() >= lazy_above())
        && let Some(log) = open_inspect_log(&path)?
    {
        return Ok(log.trajectory(pick(&path, which, log.len())?)?);
    }
    // A big export of several trajectories made only at its end (OTel), or one too big to
    // read whole here: the one asked for, read back alone from the places of its spans.
    if (is_big(&path) || file_size(&path).is_some_and(|len| check_fits(&path, len).is_err()))
        && let Some((one, n)) = trace_at(&path, which.unwrap_or(1))?
    {
        return match (which, one) {
            (None, Some(one)) if n == 1 => Ok(one),
            (None, _) => bail!(
                "{}: the file holds {n} trajectories; pick one with --trajectory N (1 to {n})",
                path.display()
            ),
            (Some(_), Some(one)) => Ok(one),
            (Some(i), None) => bail!(
                "{}: no trajectory {i}; the file holds {n} (1 to {n})",
                path.display()
            ),
        };
    }
    let loaded = load_file(&path)?;
    let mut trajectories = match loaded {
        Loaded::Trajectories(ts) => ts,
        Loaded::Results(_) => bail!(
            "{}: this is an eval results file, not a trajectory",
            path.display()
        ),
    };
    let at = pick(&path, which, trajectories.len())?;
    Ok(trajectories.swap_remove(at))
}

/// Which of the `n` trajectories of `path` to show (0-based): `which` (1-based), or the
/// only one.
fn pick(path: &Path, which: Option<usize>, n: usize) -> Result<usize> {
    match (which, n) {
        (_, 0) => bail!("{}: the file holds no trajectory", path.display()),
        (None, 1) => Ok(0),
        (None, n) => bail!(
            "{}: the file holds {n} trajectories; pick one with --trajectory N (1 to {n})",
            path.display()
        ),
        (Some(i), n) if i >= 1 && i <= n => Ok(i - 1),
        (Some(i), n) => bail!(
            "{}: no trajectory {i}; the file holds {n} (1 to {n})",
            path.display()
        ),
    }
}

/// One row of a Parquet dataset, read alone from its row group: `FILE#N`, `--trajectory
/// N`, or the only one.
fn open_row(path: &Path, which: Option<usize>) -> Result<Trajectory> {
    use trajscope::formats::parquet::{read_row, row_count};
    let rows = row_count(path)?;
    match (which, rows) {
        (_, 0) => bail!("{}: the dataset holds no trajectory", path.display()),
        (None, 1) => Ok(read_row(path, 0)?),
        (None, n) => bail!(
            "{}: the dataset holds {n} trajectories; pick one with --trajectory N or FILE#N \
             (1 to {n})",
            path.display()
        ),
        (Some(i), n) if i >= 1 && i <= n => Ok(read_row(path, i - 1)?),
        (Some(i), n) => bail!(
            "{}: no trajectory {i}; the dataset holds {n} (1 to {n})",
            path.display()
        ),
    }
}

/// Bytes of a big file read at first for `--step N` (grown until step N is in them).
const FIRST_PART: u64 = 4 << 20;

/// `--step N` of a file big enough to open lazily: the scan finds where each step is and
/// only step N (with the messages of its context) is read back, so a 1 GB `.traj` is shown
/// in bounded memory instead of read whole. A JSON Lines log (or event list) is read only
/// as far as step N ([`open_first`]): its step count is then a floor (`Step 3/350+`), as
/// counting them all would read the whole file (`ls` and `stats` count them). `None`: open
/// it the usual way. Returns the step and the trajectory's step count.
fn open_one_step(
    file: &Path,
    which: Option<usize>,
    index: usize,
) -> Result<Option<(Trajectory, String)>> {
    let (path, from_suffix) = split_index(file);
    if which.or(from_suffix).is_some() || !opens_lazily(&path, lazy_above()) {
        return Ok(None);
    }
    let first = match index {
        0 => None,
        _ => open_first(&path, index, FIRST_PART, &mut |_| {})?,
    };
    let lazy = match first {
        Some(first) => first,
        None => match open_lazy_quietly(&path)? {
            Some(lazy) => lazy,
            None => return Ok(None),
        },
    };
    let total = trajscope::present::facts::step_total(&lazy);
    if index == 0 || index > lazy.step_count() {
        bail!(
            "{}: no step {index}; steps are numbered 1 to {total}",
            path.display()
        );
    }
    let one = lazy.load_step(index).map_err(anyhow::Error::msg)?;
    Ok(Some((one, total)))
}

/// `--step N` (without `--context`) of a big file that opens neither lazily nor in part but
/// is read record by record (mini-swe-agent, whose reader needs each text whole): its steps
/// visited one at a time until the one after N, none held, so a 1 GB file is shown in
/// bounded memory instead of read whole. The count is a floor (`Step 3/4+`) unless the file
/// ended first. `None`: open it another way.
fn visit_one_step(
    file: &Path,
    which: Option<usize>,
    index: usize,
) -> Result<Option<(Step, String)>> {
    let (path, from_suffix) = split_index(file);
    if which.or(from_suffix).is_some() || index == 0 || !passes_over(&path) {
        return Ok(None);
    }
    if open_first(&path, index, FIRST_PART, &mut |_| {})?.is_some() {
        // Opened in part: [`open_one_step`] shows it (opening it again costs little).
        return Ok(None);
    }
    let Some(at) = trajscope::formats::step_at(&path, SLIM_ABOVE, index)? else {
        return Ok(None);
    };
    let total = if at.exact {
        at.count.to_string()
    } else {
        format!("{}+", at.count)
    };
    match at.step {
        Some(step) => Ok(Some((step, total))),
        None => bail!(
            "{}: no step {index}; steps are numbered 1 to {total}",
            path.display()
        ),
    }
}

/// `out.jsonl#3` → (`out.jsonl`, 3), unless a file with the literal name exists.
fn split_index(file: &Path) -> (PathBuf, Option<usize>) {
    if file.exists() {
        return (file.to_path_buf(), None);
    }
    let text = file.to_string_lossy();
    if let Some((path, index)) = text.rsplit_once('#')
        && let Ok(index) = index.parse()
    {
        return (PathBuf::from(path), Some(index));
    }
    (file.to_path_buf(), None)
}

fn pick_step(trajectory: &Trajectory, index: usize) -> Result<&Step> {
    trajectory.step(index).with_context(|| {
        format!(
            "{}: no step {index}; steps are numbered 1 to {}",
            trajectory.display_source(),
            trajectory.steps.len()
        )
    })
}

fn print_header(t: &Trajectory) {
    println!(
        "{} ({}{})",
        t.instance_id,
        t.format,
        t.format_detail
            .as_deref()
            .map(|d| format!(" {d}"))
            .unwrap_or_default()
    );
    println!("  source:   {}", t.display_source());
    if let Some(model) = &t.model {
        println!("  model:    {model}");
    }
    println!(
        "  exit:     {}   resolved: {}   steps: {}",
        t.exit_status.as_deref().unwrap_or("-"),
        trajscope::present::facts::resolved(t),
        t.steps.len()
    );
    let usage = t.total_usage();
    if !usage.is_empty() {
        println!(
            "  cost:     {}   tokens in/out: {}/{}",
            usage.cost.map_or("-".into(), |c| format!("${c:.4}")),
            usage.tokens_in.map_or("-".into(), |n| n.to_string()),
            usage.tokens_out.map_or("-".into(), |n| n.to_string())
        );
        let mut parts = Vec::new();
        if let Some(n) = usage.tokens_cached {
            parts.push(format!("cached in: {n}"));
        }
        if let Some(n) = usage.tokens_reasoning {
            parts.push(format!("reasoning out: {n}"));
        }
        if !parts.is_empty() {
            println!("  {}", parts.join("   "));
        }
    }
    if !t.subagent_usage.is_empty() {
        let mut all = usage;
        all.add(&t.subagent_usage);
        println!(
            "  with sub-agents: cost {}   tokens in/out: {}/{}",
            all.cost.map_or("-".into(), |c| format!("${c:.4}")),
            all.tokens_in.map_or("-".into(), |n| n.to_string()),
            all.tokens_out.map_or("-".into(), |n| n.to_string())
        );
    }
    if let Some(parent) = &t.parent {
        println!("  sub-agent of: {}", parent.display());
    }
    for warning in &t.warnings {
        println!("  warning:  {warning}");
    }
    if let Some(task) = &t.task {
        println!("\nTASK\n{}", indent(task));
    }
}

fn print_step(step: &Step, total: impl std::fmt::Display) {
    let mut title = format!("Step {}/{total}", step.index);
    if let Some(agent) = &step.agent {
        title.push_str(&format!(" · {agent}"));
    }
    if step.kind != StepKind::Agent || step.tool.is_some() {
        title.push_str(&format!(" · {}", step.tool_name()));
    }
    if let Some(d) = step.duration_s {
        title.push_str(&format!(" · {d:.2}s"));
    }
    if step.is_error() {
        title.push_str(" · error");
    }
    if let Some(log) = &step.subagent {
        title.push_str(&format!(" · sub-agent log {}", log.display()));
    }
    println!(
        "\n── {title} {}",
        "─".repeat(60usize.saturating_sub(title.len()))
    );
    for section in sections(step) {
        let kind = section.kind;
        match kind {
            SectionKind::Compaction if section.is_blank() => {
                println!("{} {}", kind.heading(), kind.when_blank());
            }
            SectionKind::Compaction => println!(
                "{}: {}\n{}",
                kind.heading(),
                kind.detail(),
                indent(section.text)
            ),
            // A person's message is headed even when empty; other blank parts are left out.
            SectionKind::User => println!("{}\n{}", kind.heading(), indent(section.text)),
            _ if section.is_blank() => {}
            _ => println!("{}\n{}", kind.heading(), indent(section.text)),
        }
    }
}

#[derive(Serialize)]
struct ContextJson<'a> {
    step: usize,
    exactness: Option<Exactness>,
    messages: Vec<&'a Message>,
}

fn print_context(t: &Trajectory, step: &Step, json: bool) -> Result<()> {
    let messages = step.context_messages(&t.messages);
    let exactness = step.context.as_ref().map(|c| c.exactness);
    if json {
        let out = ContextJson {
            step: step.index,
            exactness,
            messages,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    match exactness {
        Some(Exactness::Exact) => println!(
            "Context at step {} of {}: EXACT ({} messages, as stored in the log)",
            step.index,
            t.display_source(),
            messages.len()
        ),
        Some(Exactness::Reconstructed) => println!(
            "Context at step {} of {}: RECONSTRUCTED ({} messages, rebuilt from the history; it may differ from what the model saw)",
            step.index,
            t.display_source(),
            messages.len()
        ),
        None => {
            println!(
                "Context at step {} of {}: not available (the log does not record what the model saw)",
                step.index,
                t.display_source()
            );
            return Ok(());
        }
    }
    for (i, message) in messages.iter().enumerate() {
        let mut title = format!("[{}] {}", i + 1, message.role.as_str());
        if let Some(agent) = &message.agent {
            title.push_str(&format!(" ({agent})"));
        }
        if message.compaction {
            println!("\n── COMPACTED: the messages before this one were replaced by this summary");
        }
        println!("\n── {title}");
        if !message.content.is_empty() {
            println!("{}", message.content);
        }
        for call in &message.tool_calls {
            println!("→ {}({})", call.name, call.arguments);
        }
    }
    Ok(())
}

fn indent(text: &str) -> String {
    text.trim_end()
        .lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn file_size(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| m.len())
}
