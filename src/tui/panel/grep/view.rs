//! The run-wide search window: progress, then each trajectory with its matching steps.

use crate::text::clip;
use crate::tui::state::State;
use crate::tui::panel::grep::{GrepLine, GrepState};
use crate::tui::theme::Paint;
use crate::tui::view::popup;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(state: &State, grep: &GrepState, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let title = format!(
        "Search all trajectories for \"{}\"",
        clip(&grep.query.text, 40)
    );
    let (header, list) = popup::window(state, frame, area, &title);
    let progress = if grep.done {
        format!("searched {} files", grep.files_total)
    } else {
        format!("searching {}/{} files…", grep.files_done, grep.files_total)
    };
    let summary = format!(
        "{} · {} with a match · {progress}",
        plural(grep.found.len(), "trajectory", "trajectories").trim_start(),
        plural(grep.step_count(), "step", "steps").trim_start(),
    );
    frame.render_widget(
        Paragraph::new(summary).style(theme.style(Paint::Dim)),
        header,
    );
    let width = usize::from(list.width);
    let lines: Vec<Line> = grep
        .lines
        .iter()
        .enumerate()
        .skip(grep.cursor.offset)
        .take(usize::from(list.height))
        .map(|(i, line)| {
            let base = if i == grep.cursor.selected {
                theme.style(Paint::Text).patch(theme.style(Paint::Selected))
            } else {
                theme.style(Paint::Text)
            };
            let spans = match *line {
                GrepLine::Trajectory(t) => {
                    let found = &grep.found[t];
                    vec![
                        Span::styled(
                            clip(&found.instance_id, width.saturating_sub(16)).into_owned(),
                            base.patch(theme.style(Paint::Title)),
                        ),
                        Span::styled(
                            plural(found.steps.len(), "step", "steps"),
                            base.patch(theme.style(Paint::Dim)),
                        ),
                    ]
                }
                GrepLine::Step(t, s) => {
                    let m = &grep.found[t].steps[s];
                    let label = format!("  step {:<4} {:<11} ", m.step, m.field.name());
                    let room = width.saturating_sub(label.chars().count());
                    let mut spans = vec![Span::styled(
                        label,
                        base.patch(theme.style(Paint::StepIndex)),
                    )];
                    spans.extend(snippet(
                        &clip(&m.snippet, room),
                        grep,
                        base,
                        theme.style(Paint::SearchHit),
                    ));
                    spans
                }
                GrepLine::More(_, n) => vec![Span::styled(
                    format!("    … {n} more steps (open the trajectory, then n)"),
                    base.patch(theme.style(Paint::Dim)),
                )],
            };
            let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
            let mut spans = spans;
            spans.push(Span::styled(" ".repeat(width.saturating_sub(used)), base));
            Line::from(spans)
        })
        .collect();
    if lines.is_empty() {
        let text = if grep.done {
            " no trajectory contains it"
        } else {
            " searching…"
        };
        frame.render_widget(Paragraph::new(text).style(theme.style(Paint::Dim)), list);
    } else {
        frame.render_widget(Paragraph::new(lines), list);
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("  {n} {}", if n == 1 { one } else { many })
}

/// The snippet with the query's matches highlighted.
fn snippet(
    text: &str,
    grep: &GrepState,
    base: ratatui::style::Style,
    hit: ratatui::style::Style,
) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut at = 0;
    for m in grep.query.regex.find_iter(text) {
        if m.start() > at {
            spans.push(Span::styled(text[at..m.start()].to_string(), base));
        }
        spans.push(Span::styled(
            text[m.start()..m.end()].to_string(),
            base.patch(hit),
        ));
        at = m.end();
    }
    if at < text.len() {
        spans.push(Span::styled(text[at..].to_string(), base));
    }
    spans
}
