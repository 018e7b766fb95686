//! A structured diff ([`FileDiff`]) styled for the document: the rows of
//! [`crate::present::for_each_row`] with `---`/`+++` labels and hunk headers in the diff
//! colours, context lines highlighted as the file's language, and the "not seen" rows dim.

use super::highlight::Highlighter;
use super::{Writer, cancelled};
use crate::diff::{FileDiff, LineKind};
use crate::present::language::Language;
use crate::present::{DiffRowKind, for_each_row};
use crate::text::sanitise;
use crate::tui::theme::{Paint, Theme};
use ratatui::text::Span;
use std::sync::atomic::AtomicBool;

/// Writes a file's diff under its own `a/`/`b/` labels, coloured as its file's language.
/// `None` when cancelled.
pub fn write_file(
    w: &mut Writer,
    d: &FileDiff,
    theme: &Theme,
    highlight: bool,
    cancel: &AtomicBool,
) -> Option<()> {
    let (old, new) = d.labels();
    write(
        w,
        d,
        (&old, &new),
        Language::of_path(&d.path),
        theme,
        highlight,
        cancel,
    )
}

/// Why writing a diff stopped before its end.
enum Stop {
    Cancelled,
    Full,
}

/// Writes `d` with the labels `old`/`new`; `lang` colours the context lines (syntect only
/// when `highlight`). `None` when cancelled.
pub fn write(
    w: &mut Writer,
    d: &FileDiff,
    (old, new): (&str, &str),
    lang: Language,
    theme: &Theme,
    highlight: bool,
    cancel: &AtomicBool,
) -> Option<()> {
    let header = theme.style(Paint::DiffHeader);
    let dim = theme.style(Paint::Dim);
    w.continuation(Some(Span::styled("↪ ", dim)));
    let mut highlighter = Highlighter::new(lang, theme, highlight, false);
    let mut written = 0;
    let stopped = for_each_row(d, (old, new), |row| {
        let line_kind = match row.kind {
            DiffRowKind::Header => {
                w.spans(vec![Span::styled(row.text.to_string(), header)]);
                return Ok(());
            }
            DiffRowKind::Hunk => {
                w.spans(vec![Span::styled(
                    row.text.to_string(),
                    theme.style(Paint::DiffHunk),
                )]);
                return Ok(());
            }
            DiffRowKind::Note => {
                w.text(row.text, dim);
                return Ok(());
            }
            DiffRowKind::Context | DiffRowKind::Unseen(LineKind::Context) => LineKind::Context,
            DiffRowKind::Added | DiffRowKind::Unseen(LineKind::Added) => LineKind::Added,
            DiffRowKind::Removed | DiffRowKind::Unseen(LineKind::Removed) => LineKind::Removed,
        };
        written += 1;
        if cancelled(cancel, written) {
            return Err(Stop::Cancelled);
        }
        if w.full() {
            return Err(Stop::Full);
        }
        let role = match line_kind {
            LineKind::Added => Paint::DiffAdded,
            LineKind::Removed => Paint::DiffRemoved,
            LineKind::Context => Paint::DiffContext,
        };
        let sign = Span::styled(
            row.text.get(..1).unwrap_or("").to_string(),
            theme.style(role),
        );
        if let DiffRowKind::Unseen(_) = row.kind {
            w.spans(vec![
                sign,
                Span::styled(row.text.get(1..).unwrap_or("").to_string(), dim),
            ]);
            return Ok(());
        }
        let text = sanitise(row.body());
        // Removed lines are not part of the new file: they would throw the highlighter's
        // state off, so only context and added lines go through it.
        let highlighted = match line_kind {
            LineKind::Removed => None,
            _ => Some(highlighter.line(&text)),
        };
        let mut spans = vec![sign];
        match (line_kind, highlighted) {
            (LineKind::Context, Some(code)) => spans.extend(code),
            _ => spans.push(Span::styled(text.into_owned(), theme.style(role))),
        }
        w.spans(spans);
        Ok(())
    });
    match stopped {
        Err(Stop::Cancelled) => return None,
        // A full page keeps its continuation mark: nothing more is written to it.
        Err(Stop::Full) => return Some(()),
        Ok(()) => {}
    }
    w.continuation(None);
    Some(())
}
