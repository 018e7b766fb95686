//! A trajectory as one self-contained HTML page: inline stylesheet (light and dark), one
//! small inline script, no network access (a Content-Security-Policy forbids every fetch).
//! A sidebar lists the steps with error marks and matched rules; each step has an anchor
//! (`#step-12`); long observations fold in `<details>`; code is highlighted by syntect.
//!
//! Streams to the writer: the sidebar, then each step in turn. Log text reaches the page
//! only through [`escape`] or the highlighter, which escapes too.

mod csp;
mod escape;
mod highlight;
mod step;
mod toc;

use super::{ExportError, ExportOptions};
use crate::model::{Step, Trajectory};
use crate::present::facts;
use highlight::Highlighter;
use std::collections::BTreeMap;
use std::io::Write;

pub(crate) use escape::{text as write_escaped, to_string as escaped};
pub(crate) use highlight::write_diff_text;

const STYLE: &str = include_str!("html/page.css");
const SCRIPT: &str = include_str!("html/page.js");

/// Writes `t` as an HTML page to `w`.
pub fn write_html(
    w: &mut dyn Write,
    t: &Trajectory,
    options: &ExportOptions,
) -> Result<(), ExportError> {
    let (range, edits) = super::steps_and_edits(t, options)?;
    // Steps are numbered from 1 in order: the labels of step `k` are at `k - start`.
    let labels: Vec<Vec<String>> = range.clone().map(|k| options.labels(k).to_vec()).collect();
    let label_of = |step: &Step| {
        step.index
            .checked_sub(*range.start())
            .and_then(|i| labels.get(i))
            .map_or(&[][..], Vec::as_slice)
    };
    let highlighter = Highlighter::new();
    let (header, errors) = super::with_totals(t)?;

    write_head(w, &escaped(options.title(t)))?;
    toc::write_toc_head(w, t)?;
    super::each_step(t, &range, &mut |step| {
        Ok(toc::write_toc_entry(w, step, label_of(step))?)
    })?;
    toc::write_toc_tail(w)?;
    w.write_all(b"<main>\n")?;
    write_header(w, &header, options, &labels, errors)?;
    super::each_step(t, &range, &mut |step| {
        let labels = label_of(step);
        Ok(step::write_step(
            w,
            t,
            step,
            labels,
            edits.as_ref(),
            &highlighter,
            options,
        )?)
    })?;
    if options.steps.is_all()
        && options.diffs
        && let Some(patch) = t.submission.as_deref().filter(|p| !p.trim().is_empty())
    {
        w.write_all(b"<section id=\"patch\"><h2>Final patch</h2>\n")?;
        write_diff_text(w, patch)?;
        w.write_all(b"</section>\n")?;
    }
    write_tail(w)?;
    w.flush()?;
    Ok(())
}

/// The document up to `<body>`: policy, title, styles.
pub(crate) fn write_head(w: &mut dyn Write, title: &str) -> std::io::Result<()> {
    write!(
        w,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"trajscope {}\">\n\
         <title>{title} — trajscope</title>\n<style>\n{STYLE}\n{}</style>\n</head>\n<body>\n",
        csp::policy(SCRIPT),
        env!("CARGO_PKG_VERSION"),
        Highlighter::stylesheet()
    )
}

/// The end of `<main>`, the script, the end of the document.
pub(crate) fn write_tail(w: &mut dyn Write) -> std::io::Result<()> {
    write!(
        w,
        "<footer>Exported by trajscope {}. Keys: j / k next and previous step, e / c expand and \
         collapse all.</footer>\n</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    )
}

fn write_header(
    w: &mut dyn Write,
    t: &Trajectory,
    options: &ExportOptions,
    labels: &[Vec<String>],
    errors: usize,
) -> std::io::Result<()> {
    write!(
        w,
        "<header id=\"top\">\n<h1>{}</h1>\n<dl class=\"facts\">\n",
        escaped(options.title(t))
    )?;
    let mut fact = |name: &str, value: &str| writeln!(w, "<dt>{name}</dt><dd>{value}</dd>");
    fact("Format", &escaped(&facts::format(t)))?;
    if let Some(agent) = &t.agent {
        fact("Agent", &escaped(agent))?;
    }
    if let Some(model) = &t.model {
        fact("Model", &format!("<code>{}</code>", escaped(model)))?;
    }
    fact(
        "Exit status",
        &t.exit_status.as_deref().map_or("-".into(), escaped),
    )?;
    let resolved = facts::resolved(t);
    fact(
        "Resolved",
        &format!("<span class=\"{resolved}\">{resolved}</span>"),
    )?;
    let mut steps = t.step_count().to_string();
    if errors > 0 {
        steps.push_str(&format!(" ({errors} with errors)"));
    }
    if !options.steps.is_all() {
        steps.push_str(&format!(" — this page shows {}", options.steps));
    }
    fact("Steps", &steps)?;
    if let Some(usage) = facts::usage(t) {
        fact("Cost", &escaped(&usage))?;
    }
    fact(
        "Source",
        &format!("<code>{}</code>", escaped(&t.display_source())),
    )?;
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for label in labels.iter().flatten() {
        *counts.entry(label).or_default() += 1;
    }
    if !counts.is_empty() {
        let list: Vec<String> = counts
            .iter()
            .map(|(rule, n)| format!("<span class=\"rule\">{} × {n}</span>", escaped(rule)))
            .collect();
        fact("Rules matched", &list.join(" "))?;
    }
    for warning in &t.warnings {
        fact(
            "Warning",
            &format!("<span class=\"warning\">{}</span>", escaped(warning)),
        )?;
    }
    w.write_all(b"</dl>\n")?;
    if let Some(task) = t.task.as_deref().filter(|s| !s.trim().is_empty()) {
        let open = if options.folds(task) { "" } else { " open" };
        write!(
            w,
            "<details class=\"task\"{open}><summary>Task — {}</summary>\n<div class=\"prose\">",
            facts::lines_phrase(facts::line_count(task))
        )?;
        write_escaped(w, task.trim_end())?;
        w.write_all(b"</div>\n</details>\n")?;
    }
    w.write_all(b"</header>\n")
}

#[cfg(test)]
mod tests;
