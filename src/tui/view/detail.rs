//! The right pane: the visible rows of the current document, with search hits highlighted.
//! Until the highlighted document arrives from its task, the same rows are built plain,
//! only as many as are visible.

use super::scrollbar;
use crate::tui::document::{self, Document, Mode, Page};
use crate::tui::search::Hit;
use crate::tui::state::State;
use crate::tui::state::trajectory::TrajectoryState;
use crate::tui::theme::Paint;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use regex::Regex;
use std::borrow::Cow;
use std::sync::atomic::AtomicBool;

/// The plain preview stops here; deeper scrolls wait for the full build.
const PREVIEW_ROWS: usize = 20_000;

pub fn render(state: &State, t: &TrajectoryState, frame: &mut Frame, area: Rect, bar: Rect) {
    let height = usize::from(area.height);
    let Some(document) = current(state, t.scroll, height) else {
        return;
    };
    let scroll = t.scroll.min(document.len().saturating_sub(height));
    let highlights = Highlights::new(state, t, &document);
    let rows = document
        .lines
        .iter()
        .enumerate()
        .skip(scroll)
        .take(height)
        .map(|(row, line)| highlights.apply(row, line));
    super::draw_rows(frame, area, rows);
    if document.len() > height {
        scrollbar::render(
            &state.theme,
            frame,
            bar,
            document.len(),
            scroll,
            height,
            &[],
        );
    }
}

/// The built document, or a plain preview of the rows in view.
fn current(state: &State, scroll: usize, height: usize) -> Option<Cow<'_, Document>> {
    let key = state.document_key()?;
    if let Some(built) = state.documents.get(&key) {
        return Some(Cow::Borrowed(built.as_ref()));
    }
    let request = state.document_request()?;
    let rows = scroll.saturating_add(height).min(PREVIEW_ROWS);
    document::build(&request, Mode::preview(rows), &AtomicBool::new(false)).map(Cow::Owned)
}

/// Search hits to mark in the visible rows of the step page.
struct Highlights<'a> {
    regex: Option<&'a Regex>,
    current_row: Option<usize>,
    hit: Style,
    current: Style,
}

impl<'a> Highlights<'a> {
    fn new(state: &'a State, t: &TrajectoryState, document: &Document) -> Highlights<'a> {
        let search = &state.search;
        let step = t.step_index();
        let applies = t.page == Page::Step
            && search.trajectory == t.id
            && step.is_some_and(|s| search.hit_steps.contains(&s));
        let current_row = search
            .current
            .and_then(|i| search.hits.get(i))
            .filter(|h: &&Hit| Some(h.step) == step)
            .and_then(|h| document.row_of(h.field, h.line));
        Highlights {
            regex: search.query.as_ref().map(|q| &q.regex).filter(|_| applies),
            current_row,
            hit: state.theme.style(Paint::SearchHit),
            current: state.theme.style(Paint::SearchCurrent),
        }
    }

    fn apply<'l>(&self, row: usize, line: &'l Line<'static>) -> Cow<'l, Line<'static>> {
        let Some(regex) = self.regex else {
            return Cow::Borrowed(line);
        };
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        let ranges: Vec<(usize, usize)> = regex
            .find_iter(&text)
            .filter(|m| m.start() < m.end())
            .map(|m| (m.start(), m.end()))
            .collect();
        if ranges.is_empty() {
            return Cow::Borrowed(line);
        }
        let style = if self.current_row == Some(row) {
            self.current
        } else {
            self.hit
        };
        Cow::Owned(overlay(line, &ranges, style))
    }
}

/// `line` with the byte ranges `ranges` (of its concatenated text) restyled.
fn overlay(line: &Line<'static>, ranges: &[(usize, usize)], style: Style) -> Line<'static> {
    let mut out = Vec::new();
    let mut offset = 0;
    for span in &line.spans {
        let text = span.content.as_ref();
        let (start, end) = (offset, offset + text.len());
        let mut cut = start;
        for &(a, b) in ranges.iter().filter(|&&(a, b)| a < end && b > start) {
            let (a, b) = (a.max(start), b.min(end));
            if a > cut {
                out.push(Span::styled(
                    text[cut - start..a - start].to_string(),
                    span.style,
                ));
            }
            out.push(Span::styled(
                text[a - start..b - start].to_string(),
                span.style.patch(style),
            ));
            cut = b;
        }
        if cut < end {
            out.push(Span::styled(text[cut - start..].to_string(), span.style));
        }
        offset = end;
    }
    Line::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Color;

    #[test]
    fn hits_across_span_boundaries_are_restyled() {
        let red = Style::new().fg(Color::Red);
        let line = Line::from(vec![Span::raw("Syntax"), Span::styled("Error: x", red)]);
        let hit = Style::new().bg(Color::Yellow);
        let out = overlay(&line, &[(4, 11)], hit);
        let parts: Vec<(&str, Style)> = out
            .spans
            .iter()
            .map(|s| (s.content.as_ref(), s.style))
            .collect();
        assert_eq!(
            parts,
            [
                ("Synt", Style::new()),
                ("ax", hit),
                ("Error", red.patch(hit)),
                (": x", red)
            ]
        );
    }
}
