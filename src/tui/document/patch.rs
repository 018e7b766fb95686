//! The patch page: the final submitted patch as a coloured diff, with a count of files and
//! added and removed lines.

use super::highlight::diff_style;
use super::{Writer, cancelled};
use crate::model::Trajectory;
use crate::text::sanitise;
use crate::tui::theme::{Paint, Theme};
use ratatui::text::Span;
use std::sync::atomic::AtomicBool;

pub fn write(
    w: &mut Writer,
    trajectory: &Trajectory,
    theme: &Theme,
    cancel: &AtomicBool,
) -> Option<()> {
    let Some(patch) = trajectory
        .submission
        .as_deref()
        .filter(|p| !p.trim().is_empty())
    else {
        w.spans(vec![Span::styled("Final patch", theme.style(Paint::Title))]);
        w.blank();
        let status = trajectory.exit_status.as_deref().unwrap_or("unknown");
        w.text(
            &format!("No patch was submitted (exit status: {status})."),
            theme.style(Paint::Dim),
        );
        return Some(());
    };
    let patch = sanitise(patch);
    let files = patch
        .lines()
        .filter(|l| l.starts_with("diff --git"))
        .count();
    let added = patch
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .count();
    let removed = patch
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .count();
    let meta = theme.style(Paint::SectionMeta);
    w.spans(vec![
        Span::styled("Final patch", theme.style(Paint::Title)),
        Span::styled(
            format!(" · {files} file{} · ", if files == 1 { "" } else { "s" }),
            meta,
        ),
        Span::styled(format!("+{added}"), theme.style(Paint::DiffAdded)),
        Span::styled(" ", meta),
        Span::styled(format!("-{removed}"), theme.style(Paint::DiffRemoved)),
    ]);
    w.blank();
    w.continuation(Some(Span::styled("↪ ", theme.style(Paint::Dim))));
    for (i, line) in patch.lines().enumerate() {
        if cancelled(cancel, i) {
            return None;
        }
        if w.full() {
            break;
        }
        w.spans(vec![Span::styled(
            line.to_string(),
            diff_style(line, theme),
        )]);
    }
    Some(())
}
