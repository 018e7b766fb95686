//! The two panes of the compare screen as rows: one step's action and observation, or a
//! run's final patch. Built for the rows in view only (`max_rows`), without syntect, so the
//! screen can build them on every frame; error lines and diffs keep their colours.

use super::Writer;
use super::diff_lines;
use super::highlight::Highlighter;
use crate::diff::FileDiff;
use crate::model::Trajectory;
use crate::present::language::{Language, of_action};
use crate::text::sanitise;
use crate::tui::theme::{Paint, Theme};
use ratatui::text::{Line, Span};
use std::sync::atomic::AtomicBool;

/// Step `step` of `t` (1-based): `ACTION`, then `OBSERVATION`; `None` is a gap in the
/// alignment, where the other run took a step this one did not.
pub fn step_pane(
    t: &Trajectory,
    step: Option<usize>,
    width: u16,
    theme: &Theme,
    max_rows: Option<usize>,
) -> Vec<Line<'static>> {
    let mut w = Writer::new(usize::from(width), max_rows);
    let title = theme.style(Paint::SectionTitle);
    let meta = theme.style(Paint::SectionMeta);
    let Some(step) = step.and_then(|k| t.step(k)) else {
        w.text(
            "No step here: the other run took a step this one has no counterpart for.",
            theme.style(Paint::Dim),
        );
        return w.finish().lines;
    };
    w.rule("ACTION", step.tool_name(), title, meta);
    let action = sanitise(&step.action);
    let mut h = Highlighter::new(of_action(step, &action, None), theme, false, false);
    w.continuation(Some(Span::styled("↪ ", theme.style(Paint::Dim))));
    for line in action.lines() {
        if w.full() {
            break;
        }
        w.spans(h.line(line));
    }
    w.continuation(None);
    let lines = step.observation.lines().count();
    w.rule(
        "OBSERVATION",
        &format!("{lines} line{}", if lines == 1 { "" } else { "s" }),
        title,
        meta,
    );
    let mut h = Highlighter::new(Language::Plain, theme, false, true);
    for line in step.observation.lines() {
        if w.full() {
            break;
        }
        w.spans(h.line(&sanitise(line)));
    }
    w.finish().lines
}

/// A run's final patch, file by file.
pub fn patch_pane(
    patch: &[FileDiff],
    width: u16,
    theme: &Theme,
    max_rows: Option<usize>,
) -> Vec<Line<'static>> {
    let mut w = Writer::new(usize::from(width), max_rows);
    if patch.is_empty() {
        w.text("No patch was submitted.", theme.style(Paint::Dim));
        return w.finish().lines;
    }
    let never = AtomicBool::new(false);
    for d in patch {
        if w.full() {
            break;
        }
        let _ = diff_lines::write_file(&mut w, d, theme, false, &never);
    }
    w.finish().lines
}
