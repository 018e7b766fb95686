//! The rules a step matched and its labels, in a line each above the step page:
//! `rules  syntax_error · error_after_tool_call` / `labels ◆ wrong file localized`.

use crate::text::{display_width, one_line};
use crate::tui::state::State;
use crate::tui::state::metrics::StepMarks;
use crate::tui::theme::Paint;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// The marks of the shown step and the rows they take at the top of `detail`, and what is
/// left of `detail` for the page.
pub fn split(state: &State, detail: Rect) -> (Option<(StepMarks, Rect)>, Rect) {
    let Some(marks) = StepMarks::of_page(state) else {
        return (None, detail);
    };
    let rows = marks.rows().min(detail.height);
    let top = Rect {
        height: rows,
        ..detail
    };
    let rest = Rect {
        y: detail.y + rows,
        height: detail.height - rows,
        ..detail
    };
    (Some((marks, top)), rest)
}

pub fn render(state: &State, marks: &StepMarks, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let meta = theme.style(Paint::SectionMeta);
    let width = usize::from(area.width);
    let mut lines = Vec::new();
    if !marks.rules.is_empty() {
        let names: Vec<(Option<Span<'static>>, String)> = marks
            .rules
            .iter()
            .map(|rule| (None, one_line(rule, 60)))
            .collect();
        lines.push(line(
            " rules  ",
            names,
            width,
            theme.style(Paint::StepTool),
            meta,
        ));
    }
    if !marks.labels.is_empty() {
        let names = marks
            .labels
            .iter()
            .map(|label| {
                let mark = Span::styled("◆ ", theme.style(Paint::ScrollbarHit));
                (Some(mark), one_line(label, 80))
            })
            .collect();
        lines.push(line(
            " labels ",
            names,
            width,
            theme.style(Paint::Title),
            meta,
        ));
    }
    super::draw_rows(frame, area, &lines);
}

/// `title name · name · …+2`: as many names as fit in `width`, and how many did not.
fn line(
    title: &'static str,
    names: Vec<(Option<Span<'static>>, String)>,
    width: usize,
    style: Style,
    meta: Style,
) -> Line<'static> {
    let total = names.len();
    let mut spans = vec![Span::styled(title, meta)];
    let mut used = display_width(title);
    for (i, (mark, name)) in names.into_iter().enumerate() {
        let sep = if i > 0 { " · " } else { "" };
        let mark_width = mark.as_ref().map_or(0, |m| display_width(&m.content));
        let more = format!(" …+{}", total - i);
        let need = display_width(sep) + mark_width + display_width(&name);
        let last = i + 1 == total;
        if used + need + if last { 0 } else { more.len() } > width && i > 0 {
            spans.push(Span::styled(more, meta));
            break;
        }
        used += need;
        spans.push(Span::styled(sep, meta));
        spans.extend(mark);
        spans.push(Span::styled(name, style));
    }
    Line::from(spans)
}
