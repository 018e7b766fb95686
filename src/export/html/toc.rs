//! The sidebar: every exported step with its number, a one-line summary, an error mark and
//! the rules it matched, each a link to the step's anchor.

use super::escape;
use crate::model::{Step, Trajectory};
use std::io::{self, Write};

/// Summaries longer than this are cut; the full text is one click away.
const SUMMARY_CHARS: usize = 90;

/// The sidebar up to its first entry.
pub fn write_toc_head(w: &mut dyn Write, t: &Trajectory) -> io::Result<()> {
    w.write_all(
        b"<nav id=\"toc\" aria-label=\"Steps\">\n<div class=\"toc-head\"><a href=\"#top\">",
    )?;
    escape::text(w, &t.instance_id)?;
    write!(
        w,
        "</a></div>\n<div class=\"toc-tools\"><span>{} steps</span>\
         <button type=\"button\" id=\"expand-all\">expand all</button>\
         <button type=\"button\" id=\"collapse-all\">collapse all</button>\
         <label><input type=\"checkbox\" id=\"errors-only\"> errors and rules only</label></div>\n<ol>\n",
        t.step_count()
    )
}

/// One step's entry, written as the steps come (a trajectory opened lazily is read one step
/// at a time).
pub fn write_toc_entry(w: &mut dyn Write, step: &Step, labels: &[String]) -> io::Result<()> {
    let error = step.is_error();
    let mut classes = Vec::new();
    if error {
        classes.push("err");
    }
    if !labels.is_empty() {
        classes.push("ruled");
    }
    write!(
        w,
        "<li class=\"{}\"><a href=\"#step-{}\"",
        classes.join(" "),
        step.index
    )?;
    if !labels.is_empty() {
        w.write_all(b" title=\"")?;
        escape::text(w, &labels.join(", "))?;
        w.write_all(b"\"")?;
    }
    write!(
        w,
        "><span class=\"n\">{}</span><span class=\"sum\">",
        step.index
    )?;
    escape::text(w, &summary(step))?;
    w.write_all(b"</span>")?;
    if error {
        w.write_all(b"<span class=\"mark\" title=\"error\">\xE2\x9C\x97</span>")?;
    }
    if !labels.is_empty() {
        write!(w, "<span class=\"rules\">{}</span>", labels.len())?;
    }
    w.write_all(b"</a></li>\n")
}

/// The sidebar after its last entry.
pub fn write_toc_tail(w: &mut dyn Write) -> io::Result<()> {
    w.write_all(b"</ol>\n</nav>\n")
}

/// `tool · first line of the action`, cut to [`SUMMARY_CHARS`].
fn summary(step: &Step) -> String {
    let line = step.summary();
    let mut text = match step.tool.as_deref() {
        Some(tool) if line.is_empty() => tool.to_string(),
        Some(tool) if !line.starts_with(tool) => format!("{tool} · {line}"),
        _ => line.to_string(),
    };
    if let Some((cut, _)) = text.char_indices().nth(SUMMARY_CHARS) {
        text.truncate(cut);
        text.push('…');
    }
    text
}
