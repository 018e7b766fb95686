//! The trajectory header: instance, format, model; outcome and totals; the task's first line.

use crate::text::{clip, one_line};
use crate::tui::state::State;
use crate::tui::state::trajectory::TrajectoryState;
use crate::tui::theme::Paint;
use crate::tui::units;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(state: &State, t: &TrajectoryState, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let meta = theme.style(Paint::SectionMeta);
    let sep = || Span::styled(" · ", meta);
    let Some(trajectory) = t.trajectory.as_ref() else {
        let line = Line::from(Span::styled(
            format!(" {}", t.title),
            theme.style(Paint::Title),
        ));
        frame.render_widget(Paragraph::new(line), area);
        return;
    };
    let mut format = match &trajectory.format_detail {
        Some(detail) => format!("{} {detail}", trajectory.format),
        None => trajectory.format.to_string(),
    };
    if let Some(lazy) = &trajectory.lazy {
        // Says for as long as it is open why diffs and replay are not offered.
        format.push_str(&format!(" · lazy, {}", units::bytes(lazy.file_size())));
    }
    let mut first = vec![
        Span::styled(
            format!(" {}", one_line(&trajectory.instance_id, 80)),
            theme.style(Paint::Title),
        ),
        sep(),
        Span::styled(format, meta),
    ];
    if let Some(model) = &trajectory.model {
        first.push(sep());
        first.push(Span::styled(one_line(model, 60), theme.style(Paint::Text)));
    }
    let (resolved, role) = match trajectory.resolved {
        Some(true) => ("✓ resolved", Paint::Resolved),
        Some(false) => ("✗ unresolved", Paint::Unresolved),
        None => ("resolved ?", Paint::Unknown),
    };
    let mut second = vec![
        Span::styled(" exit ", meta),
        Span::styled(
            one_line(trajectory.exit_status.as_deref().unwrap_or("-"), 40),
            theme.style(Paint::Text),
        ),
        sep(),
        Span::styled(resolved, theme.style(role)),
        sep(),
        Span::styled(
            format!("{} steps", crate::present::facts::step_total(trajectory)),
            theme.style(Paint::Text),
        ),
    ];
    if let Some((read, total)) = t.indexing {
        // Every count on this line is of the steps read so far until the index is done.
        second.push(sep());
        second.push(Span::styled(
            format!("indexing {}%", read.saturating_mul(100) / total.max(1)),
            theme.style(Paint::Unknown),
        ));
    }
    let errors = t.steps.iter().filter(|s| s.error).count();
    if errors > 0 {
        second.push(sep());
        second.push(Span::styled(
            match t.indexing {
                Some(_) => format!("{errors}+ with errors"),
                None => format!("{errors} with errors"),
            },
            theme.style(Paint::StepError),
        ));
    }
    let usage = trajectory.total_usage();
    if let Some(cost) = usage.cost {
        second.push(sep());
        second.push(Span::styled(units::cost(cost), meta));
    }
    if usage.tokens_in.is_some() || usage.tokens_out.is_some() {
        let total = usage.tokens_in.unwrap_or(0) + usage.tokens_out.unwrap_or(0);
        second.push(sep());
        second.push(Span::styled(
            format!("{} tokens", units::short(total)),
            meta,
        ));
    }
    if !trajectory.subagent_usage.is_empty() {
        let mut all = usage;
        all.add(&trajectory.subagent_usage);
        let tokens = all.tokens_in.unwrap_or(0) + all.tokens_out.unwrap_or(0);
        let mut text = format!("{} tokens with sub-agents", units::short(tokens));
        if let Some(cost) = all.cost {
            text = format!("{} · {text}", units::cost(cost));
        }
        second.push(sep());
        second.push(Span::styled(text, meta));
    }
    if trajectory.parent.is_some() {
        second.push(sep());
        second.push(Span::styled("sub-agent", theme.style(Paint::StepAgent)));
    }
    let task = trajectory
        .task
        .as_deref()
        .map(|task| one_line(task, usize::from(area.width).saturating_sub(8)))
        .unwrap_or_else(|| match t.indexing {
            // A SWE-agent file's task is in `history`, after the steps.
            Some(_) => "(not read yet)".into(),
            None => "(not recorded)".into(),
        });
    let third = vec![
        Span::styled(" task ", meta),
        Span::styled(
            clip(&task, usize::from(area.width)).into_owned(),
            theme.style(Paint::Dim),
        ),
    ];
    let text = vec![Line::from(first), Line::from(second), Line::from(third)];
    frame.render_widget(Paragraph::new(text), area);
}
