//! The working-tree page at a step: every file touched so far with what is known of it
//! (saying "content unknown" rather than inventing it), the change of each edited file from
//! the start to this step, and whether the submitted patch agrees with the edits the log
//! shows.

use super::analysis::Analysis;
use super::diff_lines;
use super::{Mode, Writer};
use crate::diff::{Agreement, FileSnapshot, SubmissionCheck};
use crate::present::facts;
use crate::present::language::Language;
use crate::text::display_width;
use crate::tui::theme::{Paint, Theme};
use ratatui::text::Span;
use std::sync::atomic::AtomicBool;

pub fn write(
    w: &mut Writer,
    analysis: &Analysis,
    step: usize,
    theme: &Theme,
    mode: Mode,
    cancel: &AtomicBool,
) -> Option<()> {
    let r = &analysis.reconstruction;
    let files = r.files_at(step);
    let title = theme.style(Paint::SectionTitle);
    let meta = theme.style(Paint::SectionMeta);
    let edited = files.iter().filter(|f| f.edited).count();
    w.spans(vec![
        Span::styled(
            format!("Working tree after step {step}"),
            theme.style(Paint::Title),
        ),
        Span::styled(
            format!(
                " · {} file{} seen, {edited} edited",
                files.len(),
                if files.len() == 1 { "" } else { "s" }
            ),
            meta,
        ),
    ]);
    w.blank();
    w.rule("FILES", "as far as the log shows them", title, meta);
    if files.is_empty() {
        w.text("No file seen or edited yet.", theme.style(Paint::Dim));
    }
    let column = files
        .iter()
        .map(|f| display_width(&f.path))
        .max()
        .unwrap_or(0)
        .min(40);
    for f in &files {
        file_row(w, f, column, theme);
    }
    w.blank();
    w.rule("CHANGE", &format!("start → step {step}"), title, meta);
    let changes = r.cumulative_at(step);
    if changes.is_empty() {
        w.text("No file changed yet.", theme.style(Paint::Dim));
    }
    for change in &changes {
        if w.full() {
            return Some(());
        }
        match &change.diff {
            Some(d) => {
                // The diff repeats its own note; only a different one (a doubt) is added.
                if let Some(note) = change.note.as_ref().filter(|n| d.note.as_ref() != Some(*n)) {
                    w.text(
                        &format!("! {}: {note}", change.path),
                        theme.style(Paint::FoldMarker),
                    );
                }
                diff_lines::write_file(w, d, theme, mode.highlight, cancel)?;
            }
            None => w.spans(vec![
                Span::styled(change.path.clone(), theme.style(Paint::Text)),
                Span::styled(
                    format!(
                        "  content unknown: {}",
                        change
                            .note
                            .as_deref()
                            .unwrap_or("the log does not show it")
                            .trim_start_matches("unknown: ")
                    ),
                    theme.style(Paint::FoldMarker),
                ),
            ]),
        }
    }
    w.blank();
    submission(
        w,
        analysis.submission.as_ref(),
        step,
        r.steps(),
        theme,
        mode,
        cancel,
    )
}

/// `path  edited · 40 lines, 12 seen`, with a doubt or a lost track under it.
fn file_row(w: &mut Writer, f: &FileSnapshot, column: usize, theme: &Theme) {
    let state = facts::file_knowledge(f);
    let role = if f.edited { "edited" } else { "viewed" };
    let pad = column.saturating_sub(display_width(&f.path));
    w.spans(vec![
        Span::styled(
            format!("{}{} ", f.path, " ".repeat(pad)),
            theme.style(Paint::Text),
        ),
        Span::styled(
            format!("{role} · {state}"),
            theme.style(if f.edited {
                Paint::StepTool
            } else {
                Paint::SectionMeta
            }),
        ),
    ]);
    if let Some(lost) = &f.lost {
        w.text(
            &format!("  lost track: {lost}"),
            theme.style(Paint::FoldMarker),
        );
    } else if let Some(doubt) = &f.doubt {
        w.text(
            &format!("  in doubt: {doubt}"),
            theme.style(Paint::FoldMarker),
        );
    }
}

fn submission(
    w: &mut Writer,
    check: Option<&SubmissionCheck>,
    step: usize,
    last: usize,
    theme: &Theme,
    mode: Mode,
    cancel: &AtomicBool,
) -> Option<()> {
    let title = theme.style(Paint::SectionTitle);
    let meta = theme.style(Paint::SectionMeta);
    let Some(check) = check else {
        w.rule("SUBMISSION", "", title, meta);
        w.text("No patch was submitted.", theme.style(Paint::Dim));
        return Some(());
    };
    let (agree, differ, unknown) = check.counts();
    w.rule(
        "SUBMISSION",
        &format!("{agree} agree, {differ} differ, {unknown} unknown"),
        title,
        meta,
    );
    if step < last {
        w.text(
            &format!("The submitted patch against the tree after the last step ({last})."),
            theme.style(Paint::Dim),
        );
    }
    let column = check
        .files
        .iter()
        .map(|f| display_width(&f.path))
        .max()
        .unwrap_or(0)
        .min(40);
    for f in &check.files {
        let (text, role) = match &f.agreement {
            Agreement::Agrees => ("✓ agrees".to_string(), Paint::DiffAdded),
            Agreement::Differs(why) => (format!("✗ DIFFERS: {why}"), Paint::StepError),
            Agreement::Unknown(why) => (format!("? unknown: {why}"), Paint::FoldMarker),
            Agreement::NotSubmitted => ("edited, not in the submission".into(), Paint::Dim),
            Agreement::NotInLog => (
                "in the submission; the log shows no edit of it".into(),
                Paint::FoldMarker,
            ),
        };
        let pad = column.saturating_sub(display_width(&f.path));
        w.spans(vec![
            Span::styled(
                format!("{}{} ", f.path, " ".repeat(pad)),
                theme.style(Paint::Text),
            ),
            Span::styled(text, theme.style(role)),
        ]);
        if let Some(m) = &f.mismatch {
            diff_lines::write(
                w,
                m,
                ("reconstruction", "submission"),
                Language::of_path(&m.path),
                theme,
                mode.highlight,
                cancel,
            )?;
        }
    }
    Some(())
}
