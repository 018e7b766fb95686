//! `trajscope stats RUN --html [-o FILE]`: the run's tallies as one self-contained page, a
//! bar chart per table (trajectories with a match, stacked by outcome) and the numbers.

use super::text;
use crate::cli::output::Out;
use anyhow::{Context as _, Result, bail};
use std::path::{Path, PathBuf};
use trajscope::export::{Bar, Report, ReportTable, write_report_html};
use trajscope::metrics::{Overview, Split, TalliedRun};

/// The report of one run.
pub fn report(run: &TalliedRun, overview: &Overview, name: &str) -> Report {
    let facts = text::overview(overview, run)
        .lines()
        .map(|line| match line.split_once(": ") {
            Some((key, value)) => (key.to_string(), value.to_string()),
            None => (String::new(), line.to_string()),
        })
        .collect();
    let columns = vec!["resolved".into(), "unresolved".into(), "unknown".into()];
    let bar = |label: &str, counts: &Split| Bar {
        label: label.to_string(),
        values: vec![
            counts.resolved.trajectories,
            counts.unresolved.trajectories,
            counts.unknown.trajectories,
        ],
    };
    let rules = ReportTable {
        title: "Rules and labels: trajectories with a match, by outcome".into(),
        columns: columns.clone(),
        bars: run
            .tally
            .rows()
            .iter()
            .map(|row| bar(&row.name, &row.counts))
            .collect(),
    };
    let tools = ReportTable {
        title: "Tools: trajectories that called each, by outcome".into(),
        columns,
        bars: run
            .tally
            .tools()
            .iter()
            .map(|row| bar(&row.name, &row.counts))
            .collect(),
    };
    Report {
        title: format!("trajscope stats: {name}"),
        facts,
        tables: vec![rules, tools],
    }
}

/// The localization measures (`--dataset`) as a chart: trajectories whose patch edits a gold
/// file, and every gold file, by outcome.
pub fn localization(report: &super::localization::Report) -> ReportTable {
    let bar = |label: &str, s: super::localization::Split| Bar {
        label: label.to_string(),
        values: [s.resolved, s.unresolved, s.unknown]
            .map(|n| n as u64)
            .to_vec(),
    };
    ReportTable {
        title: format!(
            "Localization against {}: trajectories whose patch edits the gold files, by outcome",
            report.dataset.display()
        ),
        columns: vec!["resolved".into(), "unresolved".into(), "unknown".into()],
        bars: vec![
            bar("with a gold patch", report.with_gold),
            bar("patch edits a gold file", report.any),
            bar("patch edits every gold file", report.all),
        ],
    }
}

/// Writes the page to `output` (atomically), or to standard output.
pub fn write(
    report: &Report,
    output: Option<&Path>,
    inputs: &[PathBuf],
    out: &mut Out,
) -> Result<()> {
    let Some(path) = output else {
        let mut page = Vec::new();
        write_report_html(&mut page, report)?;
        out.text(&String::from_utf8_lossy(&page))?;
        return Ok(());
    };
    let canonical = std::fs::canonicalize(path).ok();
    if canonical.is_some()
        && inputs
            .iter()
            .any(|i| std::fs::canonicalize(i).ok() == canonical)
    {
        bail!(
            "{}: that is an input; trajscope never overwrites a log",
            path.display()
        );
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".trajscope-stats-");
    // As any file the user creates (the umask applies), not tempfile's private 0600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temp = builder
        .tempfile_in(dir)
        .with_context(|| format!("{}: cannot create a file there", dir.display()))?;
    write_report_html(temp.as_file_mut(), report).with_context(|| path.display().to_string())?;
    temp.persist(path)
        .with_context(|| format!("{}: cannot write", path.display()))?;
    eprintln!("trajscope: wrote {}", path.display());
    Ok(())
}
