//! The run screen: title and loading gauge, the summary line, and the visible rows of the
//! table of trajectories.

use super::phases;
use crate::model::TrajectorySummary;
use crate::text::{clip, display_width, one_line};
use crate::tui::action::Action;
use crate::tui::layer::Layer;
use crate::tui::layout;
use crate::tui::state::State;
use crate::tui::state::run::{Column, RunState};
use crate::tui::theme::{Paint, Theme};
use crate::tui::units;
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{LineGauge, Paragraph};

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let l = layout::run(area);
    let run = &state.run;
    let theme = &state.theme;
    title(state, frame, l.title);
    let mut line = summary(run, theme, usize::from(l.summary.width));
    line.spans.extend(super::live::summary(state));
    frame.render_widget(Paragraph::new(line), l.summary);
    let columns = layout::run_columns(l.header, state.run.exit_width);
    header(run, theme, frame, &columns);
    if run.visible.is_empty() {
        frame.render_widget(
            Paragraph::new(empty_message(state)).style(theme.style(Paint::Dim)),
            l.body,
        );
        return;
    }
    let height = usize::from(l.body.height);
    for (y, position) in (run.cursor.offset..run.visible.len())
        .take(height)
        .enumerate()
    {
        let index = run.visible[position];
        let row = &run.rows[index];
        let selected = position == run.cursor.selected;
        let base = if selected {
            theme.style(Paint::Text).patch(theme.style(Paint::Selected))
        } else {
            theme.style(Paint::Text)
        };
        let line_y = l.body.y + y as u16;
        let buffer = frame.buffer_mut();
        buffer.set_style(Rect::new(l.body.x, line_y, l.body.width, 1), base);
        // Cells are written straight into the buffer: a widget per cell would cost more
        // than the whole table.
        for (column, rect) in &columns {
            let (text, role) = super::live::cell(state, row, run.label(index), *column)
                .or_else(|| phases::cell(state, row, *column, rect.width))
                .unwrap_or_else(|| cell(run, row, run.label(index), *column));
            let style = base.patch(role.map_or(Style::new(), |r| theme.style(r)));
            let text = clip(&text, usize::from(rect.width));
            let x = if is_numeric(*column) {
                rect.right().saturating_sub(display_width(&text) as u16)
            } else {
                rect.x
            };
            buffer.set_stringn(x, line_y, &text, usize::from(rect.width), style);
        }
    }
}

/// The run's title line: `name` (` trajscope `, or the dashboard's) and the folders opened.
pub(super) fn title_line(state: &State, name: &'static str) -> Line<'static> {
    let theme = &state.theme;
    let roots: Vec<String> = state
        .run
        .roots
        .iter()
        .map(|r| r.display().to_string())
        .collect();
    Line::from(vec![
        Span::styled(name, theme.style(Paint::Title)),
        Span::styled(roots.join(", "), theme.style(Paint::Dim)),
    ])
}

fn title(state: &State, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    frame.render_widget(Paragraph::new(title_line(state, " trajscope ")), area);
    let p = &state.run.progress;
    if p.finished {
        let n = state.run.failures.len();
        if n > 0 {
            let note = format!(
                "{n} file{} could not be read · {} lists ",
                if n == 1 { "" } else { "s" },
                state
                    .keymap
                    .key_name(Layer::Global, Action::OpenPanel(Layer::Failures))
            );
            frame.render_widget(
                Paragraph::new(note)
                    .style(theme.style(Paint::RunFailed))
                    .alignment(Alignment::Right),
                area,
            );
        }
        return;
    }
    let width = (area.width / 2).min(60);
    let gauge_area = Rect::new(area.right() - width, area.y, width, 1);
    let (ratio, label) = match p.files_total {
        // A dataset's shard lists its rows long before it counts as read.
        Some(total) if total > 0 && p.rows_streamed > 0 => (
            p.files_done as f64 / total as f64,
            format!(
                "loading {} rows, file {}/{}",
                units::count(state.run.rows.len() as u64),
                (p.files_done + 1).min(total),
                total
            ),
        ),
        Some(total) if total > 0 => (
            if p.bytes_total > 0 {
                p.bytes_done as f64 / p.bytes_total as f64
            } else {
                p.files_done as f64 / total as f64
            },
            format!(
                "loading {}/{} files {}",
                p.files_done,
                total,
                units::bytes(p.bytes_done)
            ),
        ),
        _ => (0.0, "finding files…".to_string()),
    };
    let gauge = LineGauge::default()
        .ratio(ratio.clamp(0.0, 1.0))
        .label(label)
        .filled_style(theme.style(Paint::Gauge))
        .unfilled_style(theme.style(Paint::Dim));
    frame.render_widget(gauge, gauge_area);
}

/// `12 trajectories · resolved 3/10 (30%) · cost $1.23 · mean 14.2 steps · 1 file failed`.
fn summary(run: &RunState, theme: &Theme, width: usize) -> Line<'static> {
    let t = &run.totals;
    let meta = theme.style(Paint::RunSummary);
    let mut spans = Vec::new();
    let shown = if t.shown == run.rows.len() && run.applied.is_empty() {
        format!(" {} trajectories", t.shown)
    } else {
        format!(
            " {} of {} trajectories (filter: {})",
            t.shown,
            run.rows.len(),
            run.filter
        )
    };
    spans.push(Span::styled(shown, theme.style(Paint::Title)));
    if t.judged > 0 {
        let rate = 100.0 * t.resolved as f64 / t.judged as f64;
        spans.push(Span::styled(" · resolved ", meta));
        spans.push(Span::styled(
            format!("{}/{} ({rate:.0}%)", t.resolved, t.judged),
            theme.style(Paint::Resolved),
        ));
        spans.push(Span::styled(
            format!(" · from {}", verdict_files(run)),
            meta,
        ));
    } else if run.rows.iter().any(|r| r.resolved.is_some()) {
        spans.push(Span::styled(" · no verdict among these", meta));
    } else if run.results.sources.iter().any(|s| !s.verdicts.is_empty()) {
        let n = run
            .results
            .sources
            .iter()
            .filter(|s| !s.verdicts.is_empty())
            .count();
        spans.push(Span::styled(
            format!(
                " · resolved unknown ({n} result file{}, none matched)",
                if n == 1 { "" } else { "s" }
            ),
            meta,
        ));
    } else {
        spans.push(Span::styled(" · resolved unknown (no eval results)", meta));
    }
    if t.with_cost > 0 {
        spans.push(Span::styled(
            format!(" · cost {}", units::cost(t.cost)),
            meta,
        ));
    }
    // The mean steps is what gives way first where the line is narrow.
    let used: usize = spans.iter().map(|s| display_width(&s.content)).sum();
    let mean = format!(
        " · mean {:.1} steps",
        t.steps as f64 / t.shown.max(1) as f64
    );
    if t.shown > 0 && used + display_width(&mean) <= width {
        spans.push(Span::styled(mean, meta));
    }
    Line::from(spans)
}

/// The results files verdicts come from, short: `results.json`, `a/results.json +2 more`,
/// or `the logs` when every verdict is the trajectory's own.
fn verdict_files(run: &RunState) -> String {
    let Some(first) = run.verdict_files.first() else {
        return "the logs".into();
    };
    let short = run
        .roots
        .iter()
        .find_map(|r| first.strip_prefix(r).ok())
        .filter(|p| !p.as_os_str().is_empty())
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| {
            let parts: Vec<String> = first
                .components()
                .rev()
                .take(2)
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            parts.into_iter().rev().collect::<Vec<_>>().join("/")
        });
    match run.verdict_files.len() {
        1 => short,
        n => format!("{short} +{} more", n - 1),
    }
}

fn header(run: &RunState, theme: &Theme, frame: &mut Frame, columns: &[(Column, Rect)]) {
    for (column, rect) in columns {
        let sorted = run.sort.column == *column;
        let width = usize::from(rect.width);
        // The arrow always shows: the title is what gets shortened.
        let title = if sorted {
            let arrow = if run.sort.descending { '▼' } else { '▲' };
            format!("{}{arrow}", clip(column.title(), width.saturating_sub(1)))
        } else {
            column.title().to_string()
        };
        let style = theme.style(if sorted {
            Paint::RunSorted
        } else {
            Paint::RunHeader
        });
        let alignment = if is_numeric(*column) {
            Alignment::Right
        } else {
            Alignment::Left
        };
        let text = clip(&title, width).into_owned();
        frame.render_widget(
            Paragraph::new(text).style(style).alignment(alignment),
            *rect,
        );
    }
}

fn is_numeric(column: Column) -> bool {
    matches!(
        column,
        Column::Steps | Column::Cost | Column::Tokens | Column::Patch | Column::Errors
    )
}

fn cell(
    run: &RunState,
    row: &TrajectorySummary,
    label: &str,
    column: Column,
) -> (String, Option<Paint>) {
    match column {
        Column::Instance => match &row.fork_of {
            Some(link) => (
                format!("└ fork@{} {}", link.step, one_line(label, 200)),
                Some(Paint::SectionMeta),
            ),
            None => (one_line(label, 200), None),
        },
        Column::Format => (row.format.name().to_string(), Some(Paint::Dim)),
        Column::Steps => (row.steps.to_string(), None),
        Column::Exit => (
            one_line(row.exit_shown().as_deref().unwrap_or("-"), 60),
            None,
        ),
        Column::Resolved => match row.resolved {
            Some(true) => ("✓ yes".into(), Some(Paint::Resolved)),
            Some(false) => ("✗ no".into(), Some(Paint::Unresolved)),
            None => ("?".into(), Some(Paint::Unknown)),
        },
        Column::Cost => (
            row.usage.cost.map_or("-".into(), |c| run.cost_cell(c)),
            None,
        ),
        Column::Tokens => {
            let total = row.usage.tokens_in.unwrap_or(0) + row.usage.tokens_out.unwrap_or(0);
            let known = row.usage.tokens_in.is_some() || row.usage.tokens_out.is_some();
            (
                if known {
                    units::short(total)
                } else {
                    "-".into()
                },
                None,
            )
        }
        Column::Patch => (row.patch_lines.to_string(), None),
        Column::Errors if row.error_steps > 0 => {
            (row.error_steps.to_string(), Some(Paint::StepError))
        }
        Column::Errors => ("0".into(), Some(Paint::Dim)),
        // Drawn from the tally by `phases::cell`; blank until the rules have run.
        Column::Phases => (String::new(), None),
    }
}

fn empty_message(state: &State) -> String {
    let run = &state.run;
    if !run.progress.finished {
        " reading files…".into()
    } else if !run.rows.is_empty() {
        format!(
            " no trajectory matches the filter `{}` ({} clears it)",
            run.filter,
            state.keymap.key_name(Layer::Run, Action::ClearFilter)
        )
    } else if !run.failures.is_empty() {
        format!(
            " no trajectories could be read: {} lists the files and why",
            state
                .keymap
                .key_name(Layer::Global, Action::OpenPanel(Layer::Failures))
        )
    } else {
        " no trajectories found here".into()
    }
}
