//! Sharing a trajectory with people who do not run trajscope: as GitHub-flavoured Markdown
//! to paste into an issue ([`write_markdown`]), or as one self-contained HTML page with no
//! network access and no external assets ([`write_html`]); and a run's tallies as an HTML
//! report with a bar chart ([`write_report_html`], or in text for Markdown: [`text_chart`]).
//!
//! Exports stream to an `io::Write` step by step: memory beyond the loaded trajectory is
//! one step's worth (plus the diff reconstruction when diffs are on), whatever the
//! trajectory's size. Everything taken from a log is cleaned of terminal escapes and control
//! characters ([`clean`]) and escaped for its format; no log text is written raw.
//!
//! Uses `model` and `diff`. Knows nothing of the metrics engine: the rules a step matched
//! come in as [`ExportOptions::badges`], built by [`crate::present::StepBadges`]. No printing, no terminal, no files opened.

mod bars;
mod clean;
mod error;
#[cfg(test)]
mod fixture;
mod html;
mod markdown;
mod options;
mod report;

pub use bars::text_chart;
pub use clean::{clean, cleaned};
pub use error::ExportError;
pub use html::write_html;
pub use markdown::write_markdown;
pub use options::{ExportOptions, StepRange};
pub use report::{Bar, Report, ReportTable, write_report_html};

use crate::model::{Step, Trajectory};
use std::borrow::Cow;
use std::ops::RangeInclusive;

/// Calls `write` with the steps of `t` numbered in `range`, in order: its own steps, or for a
/// trajectory opened lazily ([`Trajectory::lazy`]), each read back from its file in turn and
/// dropped once written, so that an export of a 1 GB log holds one step at a time.
fn each_step(
    t: &Trajectory,
    range: &RangeInclusive<usize>,
    write: &mut dyn FnMut(&Step) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    if t.lazy.is_none() {
        for step in &t.steps[range.start() - 1..*range.end()] {
            write(step)?;
        }
        return Ok(());
    }
    let mut failed = None;
    t.visit_steps(|step| {
        if range.contains(&step.index)
            && let Err(err) = write(step)
        {
            failed = Some(err);
            return false;
        }
        step.index < *range.end()
    })
    .map_err(ExportError::Read)?;
    failed.map_or(Ok(()), Err)
}

/// What an export of `t` writes: the steps numbered in its range, and the file edits each
/// made when diffs are on. A trajectory opened lazily holds no steps to replay: its diffs
/// are left out.
fn steps_and_edits(
    t: &Trajectory,
    options: &ExportOptions,
) -> Result<(RangeInclusive<usize>, Option<crate::diff::Reconstruction>), ExportError> {
    let range = options.steps.resolve(t.step_count())?;
    let edits = (options.diffs && t.lazy.is_none()).then(|| crate::diff::Reconstruction::of(t));
    Ok((range, edits))
}

/// `t` as its header is exported, and how many of its steps failed. A trajectory opened
/// lazily holds no steps: its error count and its usage summed over steps (when the log
/// gives no total) are counted in one pass over its file, as the whole read counts them.
fn with_totals(t: &Trajectory) -> Result<(Cow<'_, Trajectory>, usize), ExportError> {
    if t.lazy.is_none() {
        return Ok((Cow::Borrowed(t), t.error_steps()));
    }
    let mut errors = 0;
    let mut usage = crate::model::Usage::default();
    t.visit_steps(|step| {
        errors += usize::from(step.is_error());
        usage.add(&step.usage);
        true
    })
    .map_err(ExportError::Read)?;
    let mut header = t.clone();
    header.usage = header.usage.or(usage);
    Ok((Cow::Owned(header), errors))
}
