//! A trajectory (or some of its steps) as GitHub-flavoured Markdown, ready to paste into an
//! issue: a header, each step with its thought as prose, its action and observation in
//! language-tagged fences (long observations folded in `<details>`), its file diffs, and
//! the final patch.
//!
//! Streams to the writer step by step. Everything taken from the trajectory goes through
//! [`fence`] (inside a fence no longer than needed), [`inline`] (code spans and escaped
//! text) or [`prose`]; nothing from the log is written raw.

mod fence;
mod inline;
mod prose;

use super::{ExportError, ExportOptions};
use crate::diff::Reconstruction;
use crate::model::{Step, Trajectory};
use crate::present::facts;
use crate::present::for_each_row;
use crate::present::language::{Language, of_action, of_step_observation};
use crate::present::sections::{SectionKind, sections};
use std::io::Write;

/// Writes `t` as Markdown to `w`.
pub fn write_markdown(
    w: &mut dyn Write,
    t: &Trajectory,
    options: &ExportOptions,
) -> Result<(), ExportError> {
    let (range, edits) = super::steps_and_edits(t, options)?;
    if options.steps.is_all() {
        let (header, errors) = super::with_totals(t)?;
        write_header(w, &header, options.title(t), errors)?;
    } else {
        write_short_header(w, t, options.title(t), &range)?;
    }
    super::each_step(t, &range, &mut |step| {
        write_step(w, t, step, edits.as_ref(), options)
    })?;
    if options.steps.is_all() && options.diffs {
        write_patch(w, t)?;
    }
    w.flush()?;
    Ok(())
}

fn write_header(
    w: &mut dyn Write,
    t: &Trajectory,
    title: &str,
    errors: usize,
) -> Result<(), ExportError> {
    writeln!(w, "# {}\n", inline::text(title))?;
    writeln!(w, "- **Format:** {}", inline::code(&facts::format(t)))?;
    if let Some(agent) = &t.agent {
        writeln!(w, "- **Agent:** {}", inline::code(agent))?;
    }
    if let Some(model) = &t.model {
        writeln!(w, "- **Model:** {}", inline::code(model))?;
    }
    writeln!(
        w,
        "- **Exit status:** {} · **Resolved:** {}",
        t.exit_status.as_deref().map_or("-".into(), inline::code),
        facts::resolved(t)
    )?;
    writeln!(
        w,
        "- **Steps:** {}{}",
        t.step_count(),
        if errors > 0 {
            format!(" ({errors} with errors)")
        } else {
            String::new()
        }
    )?;
    if let Some(usage) = facts::usage(t) {
        writeln!(w, "- **Cost:** {}", inline::text(&usage))?;
    }
    writeln!(w, "- **Source:** {}", inline::code(&t.display_source()))?;
    for warning in &t.warnings {
        writeln!(w, "- **Warning:** {}", inline::text(warning))?;
    }
    writeln!(w)?;
    if let Some(task) = t.task.as_deref().filter(|s| !s.trim().is_empty()) {
        writeln!(w, "## Task\n")?;
        prose::write_prose(w, task)?;
    }
    writeln!(w, "## Steps\n")?;
    Ok(())
}

/// One line saying where the steps come from, for a step pasted on its own.
fn write_short_header(
    w: &mut dyn Write,
    t: &Trajectory,
    title: &str,
    range: &std::ops::RangeInclusive<usize>,
) -> Result<(), ExportError> {
    let which = if range.start() == range.end() {
        format!("step {} of {}", range.start(), t.step_count())
    } else {
        format!(
            "steps {}–{} of {}",
            range.start(),
            range.end(),
            t.step_count()
        )
    };
    let mut facts_line = vec![
        format!("**{}**", inline::text(title)),
        inline::text(&facts::format(t)),
    ];
    if let Some(model) = &t.model {
        facts_line.push(inline::code(model));
    }
    facts_line.push(which);
    writeln!(w, "{}\n", facts_line.join(" · "))?;
    Ok(())
}

fn write_step(
    w: &mut dyn Write,
    t: &Trajectory,
    step: &Step,
    edits: Option<&Reconstruction>,
    options: &ExportOptions,
) -> Result<(), ExportError> {
    let mut title = format!("### Step {}/{}", step.index, t.step_count());
    for tag in facts::step_tags(step) {
        title.push_str(" · ");
        title.push_str(&inline::code(&tag));
    }
    if step.is_error() {
        title.push_str(" · ⚠️ error");
    }
    writeln!(w, "{title}\n")?;
    let labels = options.labels(step.index);
    if !labels.is_empty() {
        let list: Vec<String> = labels.iter().map(|l| inline::code(l)).collect();
        writeln!(w, "**Rules matched:** {}\n", list.join(", "))?;
    }
    let step_edits = edits.map_or(&[][..], |r| r.step_edits(step.index));
    for section in sections(step).into_iter().filter(|s| !s.is_blank()) {
        match section.kind {
            // What was said and thought reads as the page's own prose, untitled.
            SectionKind::User | SectionKind::Compaction | SectionKind::Thought => {
                prose::write_prose(w, section.text)?;
            }
            SectionKind::Action => {
                let edited = step_edits.iter().find_map(|e| e.path.as_deref());
                let language = of_action(step, section.text, edited);
                writeln!(w, "**{}**\n", section.kind.title())?;
                fence::write_block(w, language.tag(), section.text.trim_end())?;
                writeln!(w)?;
            }
            SectionKind::Observation => write_observation(w, step, options)?,
        }
    }
    for edit in step_edits {
        let (status, why) = facts::edit_status(&edit.status);
        let path = edit
            .path
            .as_deref()
            .map_or("(unknown file)".into(), inline::code);
        write!(
            w,
            "**Edit** {} · {path} · {status}",
            inline::code(&edit.label)
        )?;
        match why {
            Some(why) => writeln!(w, ": {}\n", inline::text(why))?,
            None => writeln!(w, "\n")?,
        }
        if let Some(diff) = &edit.diff {
            let (old, new) = diff.labels();
            fence::write_lines_block(w, "diff", |line| {
                for_each_row(diff, (&old, &new), |row| line(row.text))
            })?;
            writeln!(w)?;
        }
    }
    Ok(())
}

fn write_observation(
    w: &mut dyn Write,
    step: &Step,
    options: &ExportOptions,
) -> Result<(), ExportError> {
    let observation = step.observation.trim_end();
    if observation.trim().is_empty() {
        return Ok(());
    }
    let mut label = String::from(SectionKind::Observation.title());
    if let Some(code) = facts::exit_code(step) {
        label.push_str(&format!(" ({code})"));
    }
    let language = of_step_observation(step);
    let tag = language.tag();
    if options.folds(observation) {
        // `<details>` is an HTML block: the blank line after `<summary>` lets GitHub read
        // the fence inside it as Markdown again. The summary holds only counts, no log text.
        let lines = facts::lines_phrase(facts::line_count(observation));
        writeln!(w, "<details><summary>{label} — {lines}</summary>\n")?;
        fence::write_block(w, tag, observation)?;
        writeln!(w, "\n</details>\n")?;
    } else {
        writeln!(w, "**{label}**\n")?;
        fence::write_block(w, tag, observation)?;
        writeln!(w)?;
    }
    Ok(())
}

fn write_patch(w: &mut dyn Write, t: &Trajectory) -> Result<(), ExportError> {
    let Some(patch) = t.submission.as_deref().filter(|p| !p.trim().is_empty()) else {
        return Ok(());
    };
    writeln!(w, "## Final patch\n")?;
    fence::write_block(w, Language::Diff.tag(), patch.trim_end())?;
    Ok(())
}

#[cfg(test)]
mod tests;
