//! A structured diff ([`FileDiff`]) as coloured rows: `---`/`+++` labels, hunk headers,
//! added and removed lines in the diff colours, context lines highlighted as the file's
//! language, and runs of lines the log never showed folded into one "not seen" row.

use super::highlight::Highlighter;
use super::lang::Lang;
use super::{Writer, cancelled};
use crate::diff::{FileChange, FileDiff, LineKind};
use crate::text::sanitise;
use crate::tui::theme::{Role, Theme};
use ratatui::text::Span;
use std::sync::atomic::AtomicBool;

/// The `---`/`+++` labels of a file's diff, as `git diff` writes them.
pub fn labels(d: &FileDiff) -> (String, String) {
    d.labels()
}

/// The language of a file, from its extension, for highlighting context lines.
pub fn file_lang(path: &str) -> Lang {
    match std::path::Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
    {
        Some(extension) => Lang::code(extension),
        None => Lang::Plain,
    }
}

/// Writes `d` with the labels `old`/`new`; `lang` colours the context lines (syntect only
/// when `highlight`). `None` when cancelled.
pub fn write(
    w: &mut Writer,
    d: &FileDiff,
    (old, new): (&str, &str),
    lang: Lang,
    theme: &Theme,
    highlight: bool,
    cancel: &AtomicBool,
) -> Option<()> {
    let header = theme.style(Role::DiffHeader);
    let dim = theme.style(Role::Dim);
    w.continuation(Some(Span::styled("↪ ", dim)));
    w.spans(vec![Span::styled(format!("--- {old}"), header)]);
    w.spans(vec![Span::styled(format!("+++ {new}"), header)]);
    if let Some(note) = &d.note {
        w.text(&format!("({note})"), dim);
    }
    let mut highlighter = Highlighter::new(lang, theme, highlight, false);
    let mut written = 0;
    for hunk in &d.hunks {
        w.spans(vec![Span::styled(
            hunk.header(),
            theme.style(Role::DiffHunk),
        )]);
        let mut i = 0;
        while i < hunk.lines.len() {
            written += 1;
            if cancelled(cancel, written) {
                return None;
            }
            if w.full() {
                return Some(());
            }
            let line = &hunk.lines[i];
            let (sign, role) = match line.kind {
                LineKind::Added => ('+', Role::DiffAdded),
                LineKind::Removed => ('-', Role::DiffRemoved),
                LineKind::Context => (' ', Role::DiffContext),
            };
            let Some(text) = &line.text else {
                let run = hunk.lines[i..]
                    .iter()
                    .take_while(|l| l.text.is_none() && l.kind == line.kind)
                    .count();
                let what = if run == 1 {
                    "1 line".to_string()
                } else {
                    format!("{run} lines")
                };
                w.spans(vec![
                    Span::styled(sign.to_string(), theme.style(role)),
                    Span::styled(format!(" … {what} not seen in the log"), dim),
                ]);
                i += run;
                continue;
            };
            let text = sanitise(text);
            // Removed lines are not part of the new file: they would throw the highlighter's
            // state off, so only context and added lines go through it.
            let highlighted = match line.kind {
                LineKind::Removed => None,
                _ => Some(highlighter.line(&text)),
            };
            let mut spans = vec![Span::styled(sign.to_string(), theme.style(role))];
            match (line.kind, highlighted) {
                (LineKind::Context, Some(code)) => spans.extend(code),
                _ => spans.push(Span::styled(text.into_owned(), theme.style(role))),
            }
            w.spans(spans);
            i += 1;
        }
    }
    if d.hunks.is_empty() && d.note.is_none() {
        let what = if d.change == FileChange::Created {
            "(empty file)"
        } else {
            "(no change)"
        };
        w.text(what, dim);
    }
    w.continuation(None);
    Some(())
}
