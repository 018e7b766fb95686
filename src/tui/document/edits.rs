//! The diff page of a step: its file edits as coloured diffs (with a clear mark for an edit
//! that could not be interpreted or did not apply), what changed in the model input since
//! the step before, and, when the step re-runs an earlier command, the change in its output.

use super::analysis::Analysis;
use super::diff_lines;
use super::{Mode, Writer};
use crate::diff::{ContextChange, EditOutcome, EditStatus, RepeatedRun, churn, context_diff};
use crate::model::Trajectory;
use crate::present::facts::{self, Concern};
use crate::present::language::Language;
use crate::present::model_input;
use crate::text::one_line;
use crate::tui::theme::{Paint, Theme};
use ratatui::style::Style;
use ratatui::text::Span;
use std::sync::atomic::AtomicBool;

pub fn write(
    w: &mut Writer,
    trajectory: &Trajectory,
    analysis: &Analysis,
    step: usize,
    theme: &Theme,
    mode: Mode,
    cancel: &AtomicBool,
) -> Option<()> {
    let edits = analysis.reconstruction.step_edits(step);
    title(w, step, edits, theme);
    for edit in edits {
        if w.full() {
            return Some(());
        }
        w.blank();
        self::edit(w, edit, theme, mode, cancel)?;
    }
    if let Some(run) = analysis.repeated_at(step) {
        w.blank();
        repeated(w, run, theme, mode, cancel)?;
    }
    w.blank();
    context(w, trajectory, step, theme, mode, cancel)
}

/// `Step 5 · 1 edit · +1 -1`, or that the step edits nothing.
fn title(w: &mut Writer, step: usize, edits: &[EditOutcome], theme: &Theme) {
    let meta = theme.style(Paint::SectionMeta);
    let mut spans = vec![Span::styled(
        format!("Changes at step {step}"),
        theme.style(Paint::Title),
    )];
    if edits.is_empty() {
        w.spans(spans);
        w.text("This step edits no file.", theme.style(Paint::Dim));
        return;
    }
    let (added, removed) = churn(edits);
    let n = edits.len();
    spans.push(Span::styled(
        format!(" · {n} edit{} · ", if n == 1 { "" } else { "s" }),
        meta,
    ));
    spans.push(Span::styled(
        format!("+{added}"),
        theme.style(Paint::DiffAdded),
    ));
    spans.push(Span::styled(" ", meta));
    spans.push(Span::styled(
        format!("-{removed}"),
        theme.style(Paint::DiffRemoved),
    ));
    w.spans(spans);
}

/// What an edit's status says ([`facts::edit_status`]), and how loudly.
fn status(status: &EditStatus) -> (&'static str, Option<&str>, Paint) {
    let (text, reason) = facts::edit_status(status);
    let role = match facts::edit_concern(status) {
        Concern::None => Paint::DiffAdded,
        Concern::Doubt => Paint::FoldMarker,
        Concern::Failure => Paint::StepError,
    };
    (text, reason, role)
}

fn edit(
    w: &mut Writer,
    edit: &EditOutcome,
    theme: &Theme,
    mode: Mode,
    cancel: &AtomicBool,
) -> Option<()> {
    let path = edit.path.as_deref().unwrap_or("(file unknown)");
    w.rule(
        &edit.label,
        path,
        theme.style(Paint::SectionTitle),
        theme.style(Paint::SectionMeta),
    );
    let (mark, reason, role) = status(&edit.status);
    let style = theme.style(role);
    let badge = if matches!(edit.status, EditStatus::Uninterpreted(_)) {
        // The one mark that must never be missed: the diff is absent, not empty.
        Span::styled(format!("✗ {mark}"), style)
    } else {
        Span::styled(mark.to_string(), style)
    };
    w.spans(vec![badge]);
    if let Some(reason) = reason {
        w.text(reason, theme.style(Paint::Dim));
    }
    if let Some(d) = &edit.diff {
        diff_lines::write_file(w, d, theme, mode.highlight, cancel)?;
    }
    Some(())
}

fn repeated(
    w: &mut Writer,
    run: &RepeatedRun,
    theme: &Theme,
    mode: Mode,
    cancel: &AtomicBool,
) -> Option<()> {
    w.rule(
        "RE-RUN",
        &one_line(&run.command, 60),
        theme.style(Paint::SectionTitle),
        theme.style(Paint::SectionMeta),
    );
    let between = match run.edits_between {
        0 => "no edit between".to_string(),
        1 => "1 editing step between".to_string(),
        n => format!("{n} editing steps between"),
    };
    let (verdict, role) = if run.same_output {
        ("same output", Paint::Dim)
    } else {
        ("output changed", Paint::FoldMarker)
    };
    w.spans(vec![
        Span::styled(verdict, theme.style(role)),
        Span::styled(
            format!(" since step {} · {between}", run.previous_step),
            theme.style(Paint::SectionMeta),
        ),
    ]);
    if run.same_output {
        return Some(());
    }
    let old = format!("output at step {}", run.previous_step);
    let new = format!("output at step {}", run.step);
    diff_lines::write(
        w,
        &run.diff,
        (&old, &new),
        Language::Plain,
        theme,
        mode.highlight,
        cancel,
    )
}

fn context(
    w: &mut Writer,
    trajectory: &Trajectory,
    step: usize,
    theme: &Theme,
    mode: Mode,
    cancel: &AtomicBool,
) -> Option<()> {
    let meta = theme.style(Paint::SectionMeta);
    let Some(ctx) = context_diff(trajectory, step) else {
        w.rule("MODEL INPUT", "", theme.style(Paint::SectionTitle), meta);
        w.text(
            "Not available: this log does not record what the model saw at this step.",
            theme.style(Paint::Dim),
        );
        return Some(());
    };
    let against = if step > 1 {
        format!("vs step {}", step - 1)
    } else {
        "vs an empty input".to_string()
    };
    let exactness = ctx.exactness.map_or("", |e| e.as_str());
    w.rule(
        "MODEL INPUT",
        &format!("{against} · {exactness}"),
        theme.style(Paint::SectionTitle),
        meta,
    );
    w.spans(vec![Span::styled(model_input::message_counts(&ctx), meta)]);
    for change in &ctx.changes {
        if w.full() {
            return Some(());
        }
        let role = match change.change {
            ContextChange::Added => Paint::DiffAdded,
            ContextChange::Removed => Paint::DiffRemoved,
            ContextChange::Rewritten => Paint::FoldMarker,
        };
        let word = model_input::change_word(change.change);
        let at = model_input::position(change);
        let style: Style = theme.style(role);
        w.spans(vec![
            Span::styled(format!("{word:<9} {at:<6} "), style),
            Span::styled(format!("{:<9} ", change.role.as_str()), meta),
            Span::styled(one_line(&change.summary, 200), theme.style(Paint::Text)),
            Span::styled(format!(" ({:+} chars)", change.chars_delta), meta),
        ]);
        if let Some(d) = &change.diff {
            let (old, new) = (
                format!("message {} at step {}", at, step.saturating_sub(1)),
                format!("message {at} at step {step}"),
            );
            diff_lines::write(
                w,
                d,
                (&old, &new),
                Language::Plain,
                theme,
                mode.highlight,
                cancel,
            )?;
        }
    }
    Some(())
}
