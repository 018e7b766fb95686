//! `trajscope export FILE (--markdown | --html) [--step N | --steps A..B] [-o OUT]`: a
//! trajectory as Markdown for an issue or as a self-contained HTML page.

use anyhow::{Context as _, Result, bail};
use std::io::{BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use trajscope::export::{ExportError, ExportOptions, StepRange, write_html, write_markdown};
use trajscope::metrics::LabelSet;
use trajscope::model::Trajectory;
use trajscope::present::StepBadges;

#[derive(Debug, clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// A trajectory file (`FILE#N` or `--trajectory N` for files that hold several).
    pub file: PathBuf,
    /// GitHub-flavoured Markdown: fenced, language-tagged code and diffs, long
    /// observations folded in <details>.
    #[arg(long, conflicts_with = "html")]
    pub markdown: bool,
    /// One self-contained HTML page: no network, no external assets.
    #[arg(long)]
    pub html: bool,
    /// Only step N (1-based).
    #[arg(long, short = 's', value_name = "N", conflicts_with = "steps")]
    pub step: Option<usize>,
    /// Only steps A to B, inclusive (`3..7`, `10..`, `..5`).
    #[arg(long, value_name = "A..B", value_parser = parse_range)]
    pub steps: Option<StepRange>,
    /// Write to OUT instead of standard output (written whole or not at all). Without
    /// --markdown or --html, the format follows OUT's extension (.md, .html).
    #[arg(long, short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Which trajectory of a file that holds several (1-based).
    #[arg(long, short = 't', value_name = "N")]
    pub trajectory: Option<usize>,
    /// Leave out the per-step file diffs and the final patch.
    #[arg(long)]
    pub no_diffs: bool,
    /// Fold observations longer than N lines.
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub fold: usize,
    #[command(flatten)]
    pub results: super::results::ResultsArg,
    /// The rules whose matches tag the steps, as in the TUI and `trajscope stats`.
    #[command(flatten)]
    pub rules: super::rules_arg::RulesArg,
}

const EXAMPLES: &str = "\
Examples:
  trajscope export x.traj --step 12 --markdown | xclip   paste step 12 into an issue
  trajscope export x.traj -o x.html                       a page to send to a colleague
  trajscope export x.traj --steps 3..7 --markdown -o steps.md";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Markdown,
    Html,
}

fn parse_range(text: &str) -> Result<StepRange, String> {
    StepRange::parse(text).map_err(|e| e.to_string())
}

pub fn run(args: Args) -> Result<ExitCode> {
    let kind = kind(&args)?;
    // A big file is exported in passes over its steps read again from the file, holding one
    // step at a time (a 1 GB session read whole held several times its size, its lazy open's
    // index 40%), or from its lazy open where the format has no record reader. Its diffs are
    // left out (no lazy trajectory has them).
    let trajectory =
        match super::show::open_judged_for_passes(&args.file, args.trajectory, &args.results)? {
            Some(lazy) => lazy,
            None => super::show::open_judged(&args.file, args.trajectory, &args.results)?,
        };
    let steps = match (args.step, args.steps) {
        (Some(n), _) => StepRange::parse(&n.to_string())?,
        (None, Some(range)) => range,
        (None, None) => StepRange::All,
    };
    let badges = badges(&args, &trajectory);
    let options = ExportOptions {
        steps,
        badges: &badges,
        diffs: !args.no_diffs,
        fold_lines: args.fold,
        ..ExportOptions::default()
    };
    // Checked before anything is written, so a wrong step never leaves an empty file.
    steps
        .resolve(trajectory.step_count())
        .map_err(|e| anyhow::anyhow!("{}: {e}", trajectory.display_source()))?;
    match &args.output {
        Some(out) => to_file(&trajectory, &args.file, out, kind, &options)?,
        None => {
            let mut stdout = BufWriter::new(std::io::stdout().lock());
            match export(&mut stdout, &trajectory, kind, &options) {
                Err(ExportError::Io(e)) if e.kind() == ErrorKind::BrokenPipe => {}
                other => other?,
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The rules each step matched (the defaults, the user's file and `--rules`, as the TUI
/// loads them) and the labels saved for the run, as the TUI's export tags them.
fn badges(args: &Args, trajectory: &Trajectory) -> StepBadges {
    let (matcher, _) = args.rules.compile();
    // The run folder the TUI saved labels in may be any folder above the file.
    let labels = LabelSet::root_for(&trajectory.path)
        .ancestors()
        .find(|dir| LabelSet::path_in(dir).is_file())
        .and_then(|root| {
            LabelSet::load(root)
                .map_err(|err| eprintln!("trajscope: warning: labels left out: {err}"))
                .ok()
        });
    if trajectory.lazy.is_some() {
        let (badges, walked) = StepBadges::scan_lazily(&matcher, trajectory, labels.as_ref());
        if let Err(err) = walked {
            eprintln!("trajscope: warning: rules left out: {err}");
        }
        return badges;
    }
    StepBadges::scan(&matcher, trajectory, labels.as_ref())
}

fn kind(args: &Args) -> Result<Kind> {
    if args.markdown {
        return Ok(Kind::Markdown);
    }
    if args.html {
        return Ok(Kind::Html);
    }
    let extension = args
        .output
        .as_deref()
        .and_then(Path::extension)
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => Ok(Kind::Markdown),
        Some("html" | "htm") => Ok(Kind::Html),
        _ => bail!("say which format: --markdown or --html (or -o with a .md or .html name)"),
    }
}

fn export(
    w: &mut dyn Write,
    t: &Trajectory,
    kind: Kind,
    options: &ExportOptions,
) -> Result<(), ExportError> {
    match kind {
        Kind::Markdown => write_markdown(w, t, options),
        Kind::Html => write_html(w, t, options),
    }
}

/// Writes to a temporary file beside `out` and renames it over `out` at the end: a failed
/// export leaves no half-written page, and an input file is never the output.
fn to_file(
    t: &Trajectory,
    input: &Path,
    out: &Path,
    kind: Kind,
    options: &ExportOptions,
) -> Result<()> {
    if same_file(input, out) {
        bail!(
            "{}: that is the input file; trajscope never overwrites a log",
            out.display()
        );
    }
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".trajscope-export-");
    // As a plain `>` redirection would create it (the umask applies), not private 0600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let temp = builder
        .tempfile_in(dir)
        .with_context(|| format!("{}: cannot create a file there", dir.display()))?;
    let mut w = BufWriter::new(temp.as_file());
    export(&mut w, t, kind, options).with_context(|| out.display().to_string())?;
    drop(w);
    let size = temp.as_file().metadata().map(|m| m.len()).unwrap_or(0);
    temp.persist(out)
        .with_context(|| format!("{}: cannot write", out.display()))?;
    let what = match options.steps {
        StepRange::All => format!("{} steps", t.steps.len()),
        range => range.to_string(),
    };
    eprintln!(
        "trajscope: wrote {} ({what}, {})",
        out.display(),
        human_size(size)
    );
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    let (path, _) = split_suffix(a);
    match (std::fs::canonicalize(path), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// `out.jsonl#3` names `out.jsonl`.
fn split_suffix(file: &Path) -> (PathBuf, Option<&str>) {
    if file.exists() {
        return (file.to_path_buf(), None);
    }
    let text = file.to_str().unwrap_or_default();
    match text.rsplit_once('#') {
        Some((path, n)) if n.parse::<usize>().is_ok() => (PathBuf::from(path), Some(n)),
        _ => (file.to_path_buf(), None),
    }
}

fn human_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / f64::from(1 << 20)),
        b if b >= 1 << 10 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{b} bytes"),
    }
}
