//! After every message: clamp selections and scroll to what exists, scroll lists so the
//! selection is visible, and scroll the right pane to a search hit once its rows are known.

use super::list::{detail_height, page_height};
use crate::tui::layout;
use crate::tui::state::{Screen, Scrolled, State};

pub fn settle(state: &mut State) {
    let area = state.area();
    match state.screen {
        Screen::Run => {
            let height = usize::from(layout::run(area).body.height);
            let len = state.run.visible.len();
            state.run.cursor.settle(len, height);
        }
        Screen::Trajectory => settle_trajectory(state),
        Screen::Compare => super::compare::settle(state),
        // Its lists are settled with its contents, in `dashboard::sync`.
        Screen::Dashboard => {}
        // Settled with its rows, in `runs::sync`.
        Screen::Runs => {}
    }
    let page = page_height(state);
    let failures = state.run.failures.len();
    let width = overlay_text_width(state);
    let Some(overlay) = state.overlay.as_mut() else {
        return;
    };
    match overlay.scrolled(failures, width) {
        Scrolled::Rows { cursor, len } => cursor.settle(len, page),
        Scrolled::Text { scroll, lines } => *scroll = (*scroll).min(lines.saturating_sub(page)),
        Scrolled::Fixed => {}
    }
}

/// The width of an overlay window's text.
pub fn overlay_text_width(state: &State) -> usize {
    usize::from(
        layout::overlay_body(layout::overlay(state.area()), true)
            .1
            .width,
    )
}

fn settle_trajectory(state: &mut State) {
    let list_height = usize::from(layout::trajectory(state.area()).list.height);
    let height = detail_height(state);
    let document = state
        .document_key()
        .and_then(|key| state.documents.get(&key).cloned());
    let hit = state
        .trajectory
        .as_ref()
        .and_then(|t| t.pending_hit)
        .and_then(|i| state.search.hits.get(i).copied());
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    t.cursor.settle(t.steps.len(), list_height);
    let Some(document) = document else {
        return;
    };
    if let Some(hit) = hit {
        let row = document.row_of(hit.field, hit.line).unwrap_or(0);
        // Stay put if the hit is in view; else bring it a third of the way down, so the
        // lines before it are in view too.
        if row < t.scroll || row + 2 > t.scroll + height {
            t.scroll = row.saturating_sub(height / 3);
        }
        t.pending_hit = None;
    }
    t.scroll = t.scroll.min(document.len().saturating_sub(height));
}
