//! The failure-mode dashboard: the tally table with a bar per outcome (the share of the
//! resolved and of the unresolved trajectories with a match, side by side, on one scale),
//! and below it the steps behind the selected row.

use crate::metrics::{Counts, Row, RowKind, Tally};
use crate::text::{clip, display_width, one_line};
use crate::tui::layout;
use crate::tui::state::State;
use crate::tui::state::dashboard::{DashboardState, Focus};
use crate::tui::theme::{Paint, Theme};
use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let d = &state.dashboard;
    let l = layout::dashboard(area, d.rows.len());
    let theme = &state.theme;
    let tally = &state.metrics.tally;
    let groups = Groups::of(tally);
    title(state, frame, l.title);
    frame.render_widget(Paragraph::new(summary(state, &groups, theme)), l.summary);
    let columns = Columns::new(l.header.width, &groups);
    super::draw_rows(frame, l.header, [columns.header(&groups, theme)]);
    if d.rows.is_empty() {
        frame.render_widget(
            Paragraph::new(" no rules to count (all disabled?)").style(theme.style(Paint::Dim)),
            l.rules,
        );
        return;
    }
    let rows = (d.cursor.offset..d.rows.len())
        .take(l.rules.height.into())
        .map(|i| columns.row(&d.rows[i], i == d.cursor.selected, &groups, theme));
    super::draw_rows(frame, l.rules, rows);
    hits_title(state, d, frame, l.hits_title);
    hits(state, d, frame, l.hits);
}

/// Trajectories tallied per outcome, and whether any have a verdict.
struct Groups {
    resolved: u64,
    unresolved: u64,
    unknown: u64,
}

impl Groups {
    fn of(tally: &Tally) -> Groups {
        let (resolved, unresolved, unknown) = tally.outcomes();
        Groups {
            resolved: resolved as u64,
            unresolved: unresolved as u64,
            unknown: unknown as u64,
        }
    }

    fn judged(&self) -> bool {
        self.resolved + self.unresolved > 0
    }

    fn all(&self) -> u64 {
        self.resolved + self.unresolved + self.unknown
    }
}

fn title(state: &State, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let line = super::run::title_line(state, " trajscope · failure modes ");
    frame.render_widget(Paragraph::new(line), area);
    let p = &state.run.progress;
    if !p.finished {
        let text = match p.files_total {
            Some(total) => format!("tallying {}/{total} files ", p.files_done),
            None => "finding files… ".into(),
        };
        frame.render_widget(
            Paragraph::new(text)
                .style(theme.style(Paint::Gauge))
                .alignment(Alignment::Right),
            area,
        );
    }
}

/// `16 trajectories: 8 resolved, 5 unresolved, 3 unknown · 2 labels`.
fn summary(state: &State, groups: &Groups, theme: &Theme) -> Line<'static> {
    let meta = theme.style(Paint::RunSummary);
    let mut spans = vec![Span::styled(
        format!(" {} trajectories", groups.all()),
        theme.style(Paint::Title),
    )];
    if groups.judged() {
        spans.push(Span::styled(": ", meta));
        spans.push(Span::styled(
            format!("{} resolved", groups.resolved),
            theme.style(Paint::Resolved),
        ));
        spans.push(Span::styled(", ", meta));
        spans.push(Span::styled(
            format!("{} unresolved", groups.unresolved),
            theme.style(Paint::Unresolved),
        ));
        if groups.unknown > 0 {
            spans.push(Span::styled(
                format!(", {} unknown", groups.unknown),
                theme.style(Paint::Unknown),
            ));
        }
    } else {
        spans.push(Span::styled(" (no eval results: no verdicts)", meta));
    }
    let labels: usize = state.metrics.labels.iter().map(|s| s.labels().len()).sum();
    if labels > 0 {
        spans.push(Span::styled(format!(" · {labels} labelled steps"), meta));
    }
    if !state.metrics.label_errors.is_empty() {
        spans.push(Span::styled(
            " · labels unreadable",
            theme.style(Paint::RunFailed),
        ));
    }
    Line::from(spans)
}

/// The table's columns at a width: name, counts, and one bar column per outcome group.
struct Columns {
    width: usize,
    name: usize,
    counts: bool,
    bar: usize,
    bars: usize,
}

/// `  13  43%` after each bar.
const FIGURES: usize = 10;

impl Columns {
    fn new(width: u16, groups: &Groups) -> Columns {
        let width = usize::from(width);
        let name = if width >= 100 { 26 } else { 22 };
        let counts = width >= 70;
        let fixed = name + if counts { 7 + 7 + 7 } else { 7 };
        let bars = if groups.judged() { 2 } else { 1 };
        let per_bar = width.saturating_sub(fixed) / bars;
        Columns {
            width,
            name,
            counts,
            bar: per_bar.saturating_sub(FIGURES + 2).max(1),
            bars,
        }
    }

    fn header(&self, groups: &Groups, theme: &Theme) -> Line<'static> {
        let style = theme.style(Paint::RunHeader);
        let mut text = format!(" {:<width$}", "RULE", width = self.name - 1);
        if self.counts {
            text.push_str(&format!("{:>7}{:>7}", "MATCHES", "STEPS"));
        }
        text.push_str(&format!("{:>7}", "TRAJS"));
        let mut spans = vec![Span::styled(text, style)];
        let column = self.bar + FIGURES + 2;
        let headings: Vec<(String, Paint)> = if groups.judged() {
            vec![
                (format!("RESOLVED ({})", groups.resolved), Paint::Resolved),
                (
                    format!("UNRESOLVED ({})", groups.unresolved),
                    Paint::Unresolved,
                ),
            ]
        } else {
            vec![(
                format!("WITH A MATCH (of {})", groups.all()),
                Paint::RunHeader,
            )]
        };
        for (heading, role) in headings {
            let heading = clip(&heading, column.saturating_sub(2)).into_owned();
            spans.push(Span::styled(
                format!("  {heading:<width$}", width = column - 2),
                style.patch(theme.style(role)),
            ));
        }
        Line::from(spans)
    }

    fn row(&self, row: &Row, selected: bool, groups: &Groups, theme: &Theme) -> Line<'static> {
        let base = if selected {
            theme.style(Paint::Text).patch(theme.style(Paint::Selected))
        } else {
            theme.style(Paint::Text)
        };
        let all = row.counts.all;
        let quiet = all.trajectories == 0;
        let text_style = if quiet {
            base.patch(theme.style(Paint::Dim))
        } else {
            base
        };
        let (mark, name_role) = match row.kind {
            RowKind::Label => ("◆", Paint::ScrollbarHit),
            RowKind::Rule(_) => (" ", Paint::Text),
        };
        let name = clip(&one_line(&row.name, 200), self.name - 2).into_owned();
        let mut spans = vec![
            Span::styled(mark, base.patch(theme.style(name_role))),
            Span::styled(format!("{name:<width$}", width = self.name - 1), text_style),
        ];
        let mut numbers = String::new();
        if self.counts {
            numbers.push_str(&format!("{:>7}{:>7}", all.matches, all.steps));
        }
        numbers.push_str(&format!("{:>7}", all.trajectories));
        spans.push(Span::styled(numbers, text_style));
        let cells: Vec<(Counts, u64, Paint)> = if groups.judged() {
            vec![
                (row.counts.resolved, groups.resolved, Paint::Resolved),
                (row.counts.unresolved, groups.unresolved, Paint::Unresolved),
            ]
        } else {
            vec![(all, groups.all(), Paint::Text)]
        };
        for (counts, of, role) in cells.into_iter().take(self.bars) {
            let share = if of == 0 {
                0.0
            } else {
                counts.trajectories as f64 / of as f64
            };
            let bar = bar(share, counts.trajectories > 0, self.bar);
            let figures = if of == 0 {
                format!("{:>width$}", "-", width = FIGURES)
            } else {
                format!(
                    "{:>5} {:>4}",
                    counts.trajectories,
                    format!("{:.0}%", share * 100.0)
                )
            };
            spans.push(Span::styled("  ", base));
            spans.push(Span::styled(bar, base.patch(theme.style(role))));
            spans.push(Span::styled(figures, text_style));
        }
        pad(Line::from(spans), self.width, base)
    }
}

/// A horizontal bar of `width` cells filled to `share`, in eighths of a cell; a sliver
/// when something matched but rounds to nothing.
fn bar(share: f64, any: bool, width: usize) -> String {
    const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    let eighths = (share.clamp(0.0, 1.0) * (width * 8) as f64).round() as usize;
    let eighths = if any { eighths.max(1) } else { eighths };
    let mut text = "█".repeat(eighths / 8);
    text.push_str(PARTS[eighths % 8]);
    let pad = width.saturating_sub(display_width(&text));
    text.push_str(&" ".repeat(pad));
    text
}

fn hits_title(state: &State, d: &DashboardState, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let Some(row) = d.selected_row() else {
        return;
    };
    let all = row.counts.all;
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let what = match row.kind {
        RowKind::Rule(_) => format!(
            "{} in {} of {}",
            plural(all.matches, "match", "matches"),
            plural(all.steps, "step", "steps"),
            plural(all.trajectories, "trajectory", "trajectories")
        ),
        RowKind::Label => format!(
            "label on {} of {}",
            plural(all.steps, "step", "steps"),
            plural(all.trajectories, "trajectory", "trajectories")
        ),
    };
    let description = match row.kind {
        RowKind::Rule(id) => state
            .metrics
            .rules()
            .rule(id)
            .map(|r| r.description.clone())
            .unwrap_or_default(),
        RowKind::Label => "labelled by hand (L on a step)".into(),
    };
    let focus = if d.focus == Focus::Hits {
        theme.style(Paint::Title)
    } else {
        theme.style(Paint::SectionTitle)
    };
    let mut spans = vec![
        Span::styled("── ", theme.style(Paint::Border)),
        Span::styled(one_line(&row.name, 60), focus),
        Span::styled(format!(" · {what}"), theme.style(Paint::SectionMeta)),
    ];
    if !description.is_empty() {
        spans.push(Span::styled(
            format!(" · {}", one_line(&description, 300)),
            theme.style(Paint::Dim),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn hits(state: &State, d: &DashboardState, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let tally = &state.metrics.tally;
    if d.hits.is_empty() {
        let text = if d.selected_row().is_some() {
            " no step matched"
        } else {
            ""
        };
        frame.render_widget(Paragraph::new(text).style(theme.style(Paint::Dim)), area);
        return;
    }
    let id_width = d
        .hits
        .iter()
        .skip(d.hits_cursor.offset)
        .take(area.height.into())
        .filter_map(|h| tally.trajectory(h.trajectory))
        .map(|t| display_width(&t.instance_id))
        .max()
        .unwrap_or(10)
        .clamp(10, 40);
    let step_width = d
        .hits
        .iter()
        .map(|h| h.step)
        .max()
        .unwrap_or(1)
        .to_string()
        .len();
    let lines = (d.hits_cursor.offset..d.hits.len())
        .take(area.height.into())
        .map(|i| {
            let hit = &d.hits[i];
            let selected = d.focus == Focus::Hits && i == d.hits_cursor.selected;
            let base = if selected {
                theme.style(Paint::Text).patch(theme.style(Paint::Selected))
            } else {
                theme.style(Paint::Text)
            };
            let Some(t) = tally.trajectory(hit.trajectory) else {
                return Line::default();
            };
            let (mark, role) = match t.resolved {
                Some(true) => ("✓", Paint::Resolved),
                Some(false) => ("✗", Paint::Unresolved),
                None => ("?", Paint::Unknown),
            };
            let id = clip(&one_line(&t.instance_id, 200), id_width).into_owned();
            let times = if hit.matches > 1 {
                format!("×{}", hit.matches)
            } else {
                String::new()
            };
            let used = 3 + id_width + 6 + step_width + 6;
            let room = usize::from(area.width).saturating_sub(used);
            let source = clip(&t.display_source(), room).into_owned();
            let line = Line::from(vec![
                Span::styled(format!(" {mark} "), base.patch(theme.style(role))),
                Span::styled(format!("{id:<id_width$}"), base),
                Span::styled(
                    format!("  step {:>step_width$}", hit.step),
                    base.patch(theme.style(Paint::StepIndex)),
                ),
                Span::styled(format!(" {times:<5}"), base.patch(theme.style(Paint::Dim))),
                Span::styled(source, base.patch(theme.style(Paint::Dim))),
            ]);
            pad(line, usize::from(area.width), base)
        });
    super::draw_rows(frame, area, lines.collect::<Vec<_>>());
}

/// `line` padded with `style` to `width`, so a selected row is highlighted across.
fn pad(mut line: Line<'static>, width: usize, style: Style) -> Line<'static> {
    let used: usize = line.spans.iter().map(|s| display_width(&s.content)).sum();
    if used < width {
        line.spans
            .push(Span::styled(" ".repeat(width - used), style));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::bar;

    #[test]
    fn bars_fill_in_eighths_and_never_hide_a_match() {
        assert_eq!(bar(1.0, true, 4), "████");
        assert_eq!(bar(0.5, true, 4), "██  ");
        assert_eq!(bar(0.5 + 1.0 / 32.0, true, 4), "██▏ ");
        assert_eq!(bar(0.001, true, 4), "▏   ", "a match shows as a sliver");
        assert_eq!(bar(0.0, false, 4), "    ");
    }
}
