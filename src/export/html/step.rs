//! One step of the page: its anchor and title (tags, error mark, matched rules), thought,
//! action, observation (folded when long) and file edits with their diffs.

use super::escape;
use super::highlight::{Highlighter, write_diff_row};
use crate::diff::{EditStatus, Reconstruction};
use crate::export::ExportOptions;
use crate::model::{Step, Trajectory};
use crate::present::facts;
use crate::present::for_each_row;
use crate::present::language::{of_action, of_step_observation};
use crate::present::sections::{SectionKind, sections};
use std::io::{self, Write};

pub fn write_step(
    w: &mut dyn Write,
    t: &Trajectory,
    step: &Step,
    labels: &[String],
    edits: Option<&Reconstruction>,
    highlighter: &Highlighter,
    options: &ExportOptions,
) -> io::Result<()> {
    let k = step.index;
    let error = step.is_error();
    write!(
        w,
        "<section class=\"step{}\" id=\"step-{k}\">\n<h2><a href=\"#step-{k}\">Step {k}\
         <span class=\"of\">/{}</span></a>",
        if error { " err" } else { "" },
        t.step_count()
    )?;
    for tag in facts::step_tags(step) {
        w.write_all(b" <span class=\"tag\">")?;
        escape::text(w, &tag)?;
        w.write_all(b"</span>")?;
    }
    if error {
        w.write_all(b" <span class=\"error-mark\">\xE2\x9C\x97 error</span>")?;
    }
    for label in labels {
        w.write_all(b" <span class=\"rule\">")?;
        escape::text(w, label)?;
        w.write_all(b"</span>")?;
    }
    w.write_all(b"</h2>\n")?;

    let step_edits = edits.map_or(&[][..], |r| r.step_edits(k));
    for section in sections(step).into_iter().filter(|s| !s.is_blank()) {
        let title = section.kind.title();
        match section.kind {
            SectionKind::User | SectionKind::Compaction | SectionKind::Thought => {
                writeln!(w, "<div class=\"label\">{title}</div>")?;
                w.write_all(b"<div class=\"prose\">")?;
                escape::text(w, section.text.trim())?;
                w.write_all(b"</div>\n")?;
            }
            SectionKind::Action => {
                let edited = step_edits.iter().find_map(|e| e.path.as_deref());
                writeln!(w, "<div class=\"label\">{title}</div>")?;
                let language = of_action(step, section.text, edited);
                highlighter.write_block(w, &language, section.text.trim_end())?;
            }
            SectionKind::Observation => write_observation(w, step, highlighter, options)?,
        }
    }
    if !step_edits.is_empty() {
        w.write_all(b"<div class=\"label\">Edits</div>\n")?;
    }
    for edit in step_edits {
        let (status, why) = facts::edit_status(&edit.status);
        let class = if matches!(edit.status, EditStatus::Applied) {
            "status-ok"
        } else {
            "status-warn"
        };
        w.write_all(b"<div class=\"edit\"><div class=\"edit-head\"><code>")?;
        escape::text(w, &edit.label)?;
        w.write_all(b"</code> \xC2\xB7 <code>")?;
        escape::text(w, edit.path.as_deref().unwrap_or("(unknown file)"))?;
        write!(w, "</code> \u{b7} <span class=\"{class}\">{status}</span>")?;
        if let Some(why) = why {
            w.write_all(b" <span class=\"why\">")?;
            escape::text(w, why)?;
            w.write_all(b"</span>")?;
        }
        w.write_all(b"</div>\n")?;
        if let Some(diff) = &edit.diff {
            w.write_all(b"<pre class=\"diff\"><code>")?;
            let (old, new) = diff.labels();
            for_each_row(diff, (&old, &new), |row| {
                write_diff_row(w, row.kind, row.text)
            })?;
            w.write_all(b"</code></pre>\n")?;
        }
        w.write_all(b"</div>\n")?;
    }
    w.write_all(b"</section>\n")
}

fn write_observation(
    w: &mut dyn Write,
    step: &Step,
    highlighter: &Highlighter,
    options: &ExportOptions,
) -> io::Result<()> {
    let observation = step.observation.trim_end();
    if observation.trim().is_empty() {
        return Ok(());
    }
    let exit = facts::exit_code(step)
        .map(|c| format!(" \u{b7} {c}"))
        .unwrap_or_default();
    let language = of_step_observation(step);
    let title = SectionKind::Observation.title();
    if options.folds(observation) {
        let lines = facts::lines_phrase(facts::line_count(observation));
        writeln!(
            w,
            "<details class=\"obs\"><summary>{title} \u{2014} {lines}{exit}</summary>"
        )?;
        highlighter.write_block(w, &language, observation)?;
        w.write_all(b"</details>\n")
    } else {
        writeln!(w, "<div class=\"label\">{title}{exit}</div>")?;
        highlighter.write_block(w, &language, observation)
    }
}
