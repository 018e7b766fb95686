//! The step list: index, error mark, search-hit mark, agent, tool, one-line summary; only
//! the visible rows; a scrollbar marking errors and search hits along the whole trajectory.

use super::scrollbar::{self, Mark};
use crate::text::{clip, display_width};
use crate::tui::state::State;
use crate::tui::state::trajectory::TrajectoryState;
use crate::tui::theme::Paint;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

pub fn render(state: &State, t: &TrajectoryState, frame: &mut Frame, area: Rect, bar: Rect) {
    let theme = &state.theme;
    let hits = (state.search.trajectory == t.id).then_some(&state.search.hit_steps);
    let digits = t.steps.len().max(1).to_string().len();
    let tool_width = t.tool_width;
    let agent_width = if t.multi_agent { 10 } else { 0 };
    let height = usize::from(area.height);
    let tallied = state.metrics.index_of(&t.source);
    // The number of rules matched, right-aligned, where the list is wide enough for it.
    let counts = tallied.is_some() && area.width >= 40;
    let mut lines = Vec::with_capacity(height);
    for position in (t.cursor.offset..t.steps.len()).take(height) {
        let step = &t.steps[position];
        let selected = position == t.cursor.selected;
        let base = if selected {
            theme.style(Paint::Text).patch(theme.style(Paint::Selected))
        } else {
            theme.style(Paint::Text)
        };
        let hit = hits.is_some_and(|h| h.contains(&step.index));
        let mut spans = vec![
            Span::styled(
                format!("{:>digits$} ", step.index),
                base.patch(theme.style(Paint::StepIndex)),
            ),
            Span::styled(
                if step.error { "✗" } else { " " },
                base.patch(theme.style(Paint::StepError)),
            ),
            Span::styled(
                if hit { "●" } else { " " },
                base.patch(theme.style(Paint::ScrollbarHit)),
            ),
        ];
        if agent_width > 0 {
            let agent = step.agent.as_deref().unwrap_or("");
            spans.push(Span::styled(
                format!("{:<agent_width$}", clip(agent, agent_width - 1)),
                base.patch(theme.style(Paint::StepAgent)),
            ));
        }
        spans.push(Span::styled(
            format!("{:<tool_width$} ", clip(&step.tool, tool_width)),
            base.patch(theme.style(Paint::StepTool)),
        ));
        let labelled = !state.metrics.labels_at(&t.source, step.index).is_empty();
        let rules = match tallied.filter(|_| counts) {
            Some(i) => state.metrics.tally.rules_at(i, step.index).len(),
            None => 0,
        };
        // `3r`: three rules matched here (the status bar names them for the selected step).
        let mark = match (labelled, rules) {
            (true, _) => " ◆".to_string(),
            (false, 0) => String::new(),
            (false, n) if n < 10 => format!(" {n}r"),
            (false, _) => " +r".to_string(),
        };
        let used = digits + 3 + agent_width + tool_width + 1 + mark.chars().count();
        let room = usize::from(area.width).saturating_sub(used);
        let summary = clip(&step.summary, room);
        let pad = room.saturating_sub(display_width(&summary));
        let summary_role = if step.error {
            Paint::StepError
        } else {
            Paint::StepSummary
        };
        spans.push(Span::styled(
            summary.into_owned(),
            base.patch(theme.style(summary_role)),
        ));
        spans.push(Span::styled(" ".repeat(pad), base));
        if labelled {
            spans.push(Span::styled(
                mark,
                base.patch(theme.style(Paint::ScrollbarHit)),
            ));
        } else if !mark.is_empty() {
            spans.push(Span::styled(mark, base.patch(theme.style(Paint::Dim))));
        }
        lines.push(Line::from(spans));
    }
    super::draw_rows(frame, area, &lines);

    let marks: Vec<(usize, Mark)> = t
        .steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            if hits.is_some_and(|h| h.contains(&s.index)) {
                Some((i, Mark::Hit))
            } else {
                s.error.then_some((i, Mark::Error))
            }
        })
        .collect();
    scrollbar::render(
        theme,
        frame,
        bar,
        t.steps.len(),
        t.cursor.offset,
        height,
        &marks,
    );
}
