//! The runs screen: one column per run, one row per instance (`✓` resolved, `✗` not, `?` no
//! verdict, `·` no trajectory, with the step count), the solve counts, and one instance's
//! trajectories side by side, step by step.

use crate::text::{clip, display_width, one_line};
use crate::tui::layout;
use crate::tui::state::State;
use crate::tui::state::runs::{InstanceView, RunsFilter, letter};
use crate::tui::theme::Paint;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let l = layout::runs(area);
    let theme = &state.theme;
    let runs = &state.runs;
    let n = state.run.roots.len();
    let title = match &runs.instance {
        Some(view) => format!("{} in {n} runs", view.instance_id),
        None => format!("{n} runs side by side"),
    };
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(" trajscope ", theme.style(Paint::Title)),
            Span::styled(title, theme.style(Paint::Dim)),
        ])),
        l.title,
    );
    frame.render_widget(Paragraph::new(summary(state)), l.summary);
    // Full paths when they fit, else each run's folder (or file) name.
    let names = |full: bool| -> Vec<String> {
        state
            .run
            .roots
            .iter()
            .map(|root| match root.file_name() {
                Some(name) if !full => name.to_string_lossy().into_owned(),
                _ => root.display().to_string(),
            })
            .collect()
    };
    let mut shown = names(true);
    let width: usize = shown.iter().map(|n| display_width(n) + 6).sum();
    if width > usize::from(l.legend.width) {
        shown = names(false);
    }
    let legend: Vec<Span> = shown
        .into_iter()
        .enumerate()
        .flat_map(|(i, name)| {
            [
                Span::styled(format!(" {} ", letter(i)), theme.style(Paint::TabActive)),
                Span::styled(format!(" {name}  "), theme.style(Paint::Dim)),
            ]
        })
        .collect();
    frame.render_widget(Paragraph::new(Line::from(legend)), l.legend);
    match &runs.instance {
        Some(view) => instance(state, view, frame, l.header, l.body),
        None => table(state, frame, l.header, l.body),
    }
}

/// `3 runs · 3 instances in every run · solved by 0/1/2/3 runs: 1 · 0 · 1 · 1 · filter`.
fn summary(state: &State) -> Line<'static> {
    let theme = &state.theme;
    let runs = &state.runs;
    let (shared, counts) = runs.shared(&state.run);
    let counts: Vec<String> = counts.iter().map(usize::to_string).collect();
    let ks: Vec<String> = (0..counts.len()).map(|k| k.to_string()).collect();
    let filter = match runs.filter {
        RunsFilter::All => String::new(),
        RunsFilter::SolvedBy(k) => format!(" · showing: solved by exactly {k}"),
        RunsFilter::OnlyBy(x) => format!(" · showing: solved only by {}", letter(x)),
    };
    let loading = if state.run.progress.finished {
        ""
    } else {
        " · loading…"
    };
    Line::from(Span::styled(
        format!(
            " {} of {} instances · {shared} in every run · solved by {} runs: {}{filter}{loading}",
            runs.visible.len(),
            runs.rows.len(),
            ks.join("/"),
            counts.join(" · ")
        ),
        theme.style(Paint::RunSummary),
    ))
}

fn table(state: &State, frame: &mut Frame, header: Rect, body: Rect) {
    let theme = &state.theme;
    let runs = &state.runs;
    let n = state.run.roots.len();
    let (first, cell) = layout::runs_columns(body.width, n);
    let buffer = frame.buffer_mut();
    let head = theme.style(Paint::RunHeader);
    buffer.set_stringn(header.x, header.y, " instance", usize::from(first), head);
    for i in 0..n {
        let x = header.x + first + cell * i as u16;
        buffer.set_stringn(x, header.y, letter(i), usize::from(cell), head);
    }
    if runs.visible.is_empty() {
        let text = if runs.rows.is_empty() {
            " no trajectories yet"
        } else {
            " no instance matches the filter (backspace clears it)"
        };
        buffer.set_stringn(
            body.x,
            body.y,
            text,
            usize::from(body.width),
            theme.style(Paint::Dim),
        );
        return;
    }
    let rows = &state.run.rows;
    for (y, position) in (runs.cursor.offset..runs.visible.len())
        .take(usize::from(body.height))
        .enumerate()
    {
        let row = &runs.rows[runs.visible[position]];
        let line_y = body.y + y as u16;
        let base = if position == runs.cursor.selected {
            theme.style(Paint::Text).patch(theme.style(Paint::Selected))
        } else {
            theme.style(Paint::Text)
        };
        buffer.set_style(Rect::new(body.x, line_y, body.width, 1), base);
        let name = clip(&row.instance_id, usize::from(first.saturating_sub(2))).into_owned();
        buffer.set_stringn(body.x + 1, line_y, &name, usize::from(first), base);
        for (i, c) in row.cells.iter().enumerate() {
            let x = body.x + first + cell * i as u16;
            let (text, role) = match c.and_then(|r| rows.get(r)) {
                None => ("·".to_string(), Paint::Dim),
                Some(t) => {
                    let (mark, role) = match t.resolved {
                        Some(true) => ("✓", Paint::Resolved),
                        Some(false) => ("✗", Paint::Unresolved),
                        None => ("?", Paint::Unknown),
                    };
                    (format!("{mark} {}", t.steps), role)
                }
            };
            let style = base.patch(theme.style(role));
            buffer.set_stringn(x, line_y, &text, usize::from(cell), style);
        }
    }
}

/// One instance: a column per run with its outcome and its steps from `view.scroll` down.
fn instance(state: &State, view: &InstanceView, frame: &mut Frame, header: Rect, body: Rect) {
    let theme = &state.theme;
    let n = view.sources.len().max(1);
    let width = body.width / n as u16;
    let Some(loaded) = &view.loaded else {
        frame.render_widget(
            Paragraph::new(format!(
                " reading the trajectories of {}…",
                view.instance_id
            ))
            .style(theme.style(Paint::Dim)),
            body,
        );
        return;
    };
    let buffer = frame.buffer_mut();
    for (i, column) in loaded.iter().enumerate() {
        let x = body.x + width * i as u16;
        let w = usize::from(width.saturating_sub(1));
        let (head, role) = match column {
            None => ("no trajectory".to_string(), Paint::Dim),
            Some(Err(e)) => (format!("unreadable: {e}"), Paint::StepError),
            Some(Ok(t)) => {
                let verdict = view.verdicts.get(i).copied().flatten();
                let (mark, role) = match verdict.or(t.trajectory.resolved) {
                    Some(true) => ("✓", Paint::Resolved),
                    Some(false) => ("✗", Paint::Unresolved),
                    None => ("?", Paint::Unknown),
                };
                (
                    format!(
                        "{mark} {} steps · {}",
                        t.steps.len(),
                        t.trajectory.exit_status.as_deref().unwrap_or("-")
                    ),
                    role,
                )
            }
        };
        let head = format!("{} {head}", letter(i));
        buffer.set_stringn(x, header.y, clip(&head, w), w, theme.style(role));
        let Some(Ok(t)) = column else {
            continue;
        };
        for (y, step) in t
            .steps
            .iter()
            .skip(view.scroll)
            .take(usize::from(body.height))
            .enumerate()
        {
            let index = format!("{:>3} ", step.index);
            let text = one_line(&format!("{} {}", step.tool, step.summary), w);
            let role = if step.error {
                Paint::StepError
            } else {
                Paint::Text
            };
            let line_y = body.y + y as u16;
            buffer.set_stringn(x, line_y, &index, w, theme.style(Paint::StepIndex));
            let rest = w.saturating_sub(display_width(&index));
            buffer.set_stringn(
                x + display_width(&index) as u16,
                line_y,
                clip(&text, rest),
                rest,
                Style::new().patch(theme.style(role)),
            );
        }
    }
}

/// The status bar's place: `RUNS 3/97` or `RUNS instance · step 4`.
pub fn place(state: &State) -> String {
    match &state.runs.instance {
        Some(view) => format!("RUNS {} · from step {}", view.instance_id, view.scroll + 1),
        None => format!(
            "RUNS {}/{}",
            (state.runs.cursor.selected + 1).min(state.runs.visible.len()),
            state.runs.visible.len()
        ),
    }
}
