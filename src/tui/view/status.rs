//! The bottom line: where you are, search count or a notice, and the keys that work here.
//! While typing, it is the input line.

use crate::text::{clip, display_width};
use crate::tui::action::Action;
use crate::tui::layer::Layer;
use crate::tui::state::{Screen, State};
use crate::tui::theme::Paint;
use crate::tui::units;
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let bar = theme.style(Paint::StatusBar);
    if let Some(prompt) = &state.prompt {
        let label = prompt.kind.label();
        let mut spans = vec![
            Span::styled(label, theme.style(Paint::StatusKey)),
            Span::styled(prompt.input.clone(), bar),
        ];
        // A term that does not parse says so where it is typed (the last good filter stays).
        if prompt.kind == crate::tui::state::prompt::PromptKind::Filter
            && let Some(error) = &state.run.filter_error
        {
            spans.push(Span::styled(
                format!("  ✗ {error}"),
                theme.style(Paint::StatusError),
            ));
        }
        let line = Line::from(spans);
        frame.render_widget(Paragraph::new(line).style(bar), area);
        let x = display_width(label) + display_width(&prompt.input[..prompt.cursor]);
        let x = area.x + (x as u16).min(area.width.saturating_sub(1));
        frame.set_cursor_position(Position::new(x, area.y));
        return;
    }
    let mut left = vec![Span::styled(
        format!(" {} ", place(state)),
        theme.style(Paint::StatusPlace),
    )];
    left.extend(super::live::status(state));
    if let Some(notice) = &state.notice {
        let role = if notice.error {
            Paint::StatusError
        } else {
            Paint::StatusNotice
        };
        left.push(Span::styled(format!(" {}", notice.text), theme.style(role)));
    } else if let Some(info) = search_info(state) {
        left.push(Span::styled(
            format!(" {info}"),
            theme.style(Paint::StatusNotice),
        ));
    }
    let used: usize = left.iter().map(|s| display_width(&s.content)).sum();
    let room = usize::from(area.width).saturating_sub(used + 2);
    let hints = hints(state, room);
    let pad = usize::from(area.width).saturating_sub(
        used + hints
            .iter()
            .map(|s| display_width(&s.content))
            .sum::<usize>(),
    );
    left.push(Span::styled(" ".repeat(pad), bar));
    left.extend(hints);
    frame.render_widget(Paragraph::new(Line::from(left)).style(bar), area);
}

/// `RUN 12` or `3/12 django__django-11099 · step 5/40`.
fn place(state: &State) -> String {
    match (state.screen, state.trajectory.as_ref()) {
        (Screen::Trajectory, Some(t)) => {
            let position = t
                .row
                .and_then(|r| state.run.visible.iter().position(|&i| i == r))
                .map(|p| format!("{}/{} ", p + 1, state.run.visible.len()))
                .unwrap_or_default();
            let step = match t.step_index() {
                // `250+` while only the first steps of a big file are read.
                Some(i) => match t.indexing {
                    Some(_) => format!(" · step {i}/{}+", t.steps.len()),
                    None => format!(" · step {i}/{}", t.steps.len()),
                },
                None => String::new(),
            };
            let marks = t
                .step_index()
                .map(|i| step_marks(state, &t.source, i))
                .unwrap_or_default();
            format!("{position}{}{step}{marks}", clip(&t.title, 40))
        }
        (Screen::Dashboard, _) => {
            let d = &state.dashboard;
            match d.focus {
                crate::tui::state::dashboard::Focus::Rules => {
                    format!("FAILURE MODES {}/{}", d.cursor.selected + 1, d.rows.len())
                }
                crate::tui::state::dashboard::Focus::Hits => format!(
                    "FAILURE MODES · step {}/{}",
                    d.hits_cursor.selected + 1,
                    d.hits.len()
                ),
            }
        }
        (Screen::Compare, _) => super::compare::place(state),
        (Screen::Runs, _) => super::runs::place(state),
        _ => match state.compare.marked.len() {
            0 => format!("RUN {}", state.run.visible.len()),
            n => format!("RUN {} · {n} marked", state.run.visible.len()),
        },
    }
}

/// ` · 3 rules · 1 label`: what matched at the selected step.
fn step_marks(
    state: &State,
    source: &crate::tui::state::trajectory::TrajectoryRef,
    step: usize,
) -> String {
    let rules = state.metrics.rules_at(source, step).len();
    let labels = state.metrics.labels_at(source, step).len();
    let mut text = String::new();
    if rules > 0 {
        text.push_str(&format!(
            " · {rules} rule{}",
            if rules == 1 { "" } else { "s" }
        ));
    }
    if labels > 0 {
        text.push_str(&format!(
            " · {labels} label{}",
            if labels == 1 { "" } else { "s" }
        ));
    }
    text
}

/// `/error 3/17 in 5 steps` while a search is active in the trajectory view.
fn search_info(state: &State) -> Option<String> {
    let query = state.search.query.as_ref()?;
    if state.screen != Screen::Trajectory {
        return None;
    }
    let literal = if query.literal { " (literal)" } else { "" };
    let s = &state.search;
    let count = if s.running {
        "searching…".to_string()
    } else if s.hits.is_empty() {
        "no match".to_string()
    } else {
        let total = if s.hits.len() >= crate::tui::search::MAX_HITS {
            format!("{}+", units::count(s.hits.len() as u64))
        } else {
            units::count(s.hits.len() as u64)
        };
        let current = s.current.map_or("-".to_string(), |c| (c + 1).to_string());
        let steps = s.hit_steps.len();
        format!(
            "{current}/{total} in {steps} step{}",
            if steps == 1 { "" } else { "s" }
        )
    };
    Some(format!("/{}{literal} {count}", clip(&query.text, 30)))
}

/// The keys worth knowing in the layer that has the keys, most important first, as many
/// as fit.
fn hints(state: &State, room: usize) -> Vec<Span<'static>> {
    let layer = state.layers()[0];
    let wanted = layer.hints();
    let theme = &state.theme;
    let mut spans = Vec::new();
    let mut used = 0;
    for &(action, label) in wanted {
        let key = state
            .keymap
            .hint(layer, action)
            .or_else(|| state.keymap.hint(Layer::Global, action));
        let Some(mut key) = key else {
            continue;
        };
        if action == Action::Down
            && let Some(up) = state.keymap.hint(layer, Action::Up)
        {
            key = format!("{key}/{up}");
        }
        let width = display_width(&key) + display_width(label) + 3;
        if used + width > room {
            break;
        }
        used += width;
        spans.push(Span::styled(
            format!(" {key}"),
            theme.style(Paint::StatusKey),
        ));
        spans.push(Span::styled(
            format!(" {label} "),
            theme.style(Paint::StatusBar),
        ));
    }
    spans
}
