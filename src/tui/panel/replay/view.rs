//! The replay panel: the form (or the confirmation, or how the run went) on top; below it the
//! recorded answer of the step on the left and the live output on the right, following its
//! end as tokens stream in.

use crate::text::{sanitise, wrap};
use crate::tui::action::Action;
use crate::tui::layer::Layer;
use crate::tui::state::State;
use crate::tui::panel::replay::{FormField, Mode, Phase, ReplayPanel};
use crate::tui::theme::Paint;
use crate::tui::view::{draw_rows, popup};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

pub fn render(state: &State, p: &ReplayPanel, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let title = format!("Replay from step {} · {}", p.step, p.trajectory.instance_id);
    let (header, body) = popup::window(state, frame, area, &title);
    let context = match &p.input {
        Ok(input) => {
            let mut text = format!(
                "Context at step {}: {} ({} messages)",
                p.step,
                input.exactness.as_str().to_uppercase(),
                input.messages.len()
            );
            if let Some(note) = &input.note {
                text.push_str(&format!(": {note}"));
            }
            Span::styled(text, theme.style(Paint::SectionMeta))
        }
        Err(e) => Span::styled(e.clone(), theme.style(Paint::StatusError)),
    };
    draw_rows(frame, header, [Line::from(context)]);

    let top = top_lines(state, p, body.width);
    let top_height = (top.len() as u16).min(body.height / 2);
    let [top_area, rule, columns, keys] = Layout::vertical([
        Constraint::Length(top_height),
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(body);
    draw_rows(frame, top_area, top);
    let rule_line = Line::styled(
        "─".repeat(usize::from(rule.width)),
        theme.style(Paint::Border),
    );
    draw_rows(frame, rule, [rule_line]);
    let [left, gap, right] = Layout::horizontal([
        Constraint::Percentage(40),
        Constraint::Length(1),
        Constraint::Min(10),
    ])
    .areas(columns);
    for y in gap.y..gap.bottom() {
        frame
            .buffer_mut()
            .set_string(gap.x, y, "│", theme.style(Paint::Border));
    }
    draw_rows(frame, left, recorded_lines(state, p, left.width));
    let live = live_lines(state, p, right.width);
    let height = usize::from(right.height);
    let newest = live.len().saturating_sub(height);
    let skip = newest.saturating_sub(p.scroll);
    draw_rows(frame, right, live.into_iter().skip(skip));
    let mut key_line = key_line(state, p);
    if newest > skip {
        key_line.spans.push(Span::styled(
            format!("  ▼ {} newer rows", newest - skip),
            theme.style(Paint::SectionMeta),
        ));
    }
    draw_rows(frame, keys, [key_line]);
}

/// The form, the confirmation, or the outcome, with any error.
fn top_lines(state: &State, p: &ReplayPanel, width: u16) -> Vec<Line<'static>> {
    let theme = &state.theme;
    let mut lines = Vec::new();
    match &p.phase {
        Phase::Form => {
            for field in p.fields() {
                let selected = field == p.field;
                let marker = if selected { "▸ " } else { "  " };
                let label = Span::styled(
                    format!("{marker}{:<10} ", field.label()),
                    theme.style(if selected {
                        Paint::Selected
                    } else {
                        Paint::SectionTitle
                    }),
                );
                let (value, help) = field_value(p, field);
                lines.push(Line::from(vec![
                    label,
                    Span::styled(value, theme.style(Paint::Text)),
                    Span::styled(format!("  {help}"), theme.style(Paint::Dim)),
                ]));
            }
        }
        Phase::Confirm => {
            let warning = format!(
                "Continue runs the agent's commands for real, in a scratch copy of {}",
                p.workspace
            );
            push_wrapped(&mut lines, &warning, width, theme.style(Paint::StatusError));
            let prefix = match p.step {
                1 => "nothing to replay first".to_string(),
                2 => "step 1 replayed there first".to_string(),
                k => format!("steps 1-{} replayed there first", k - 1),
            };
            let sandbox = if p.sandbox {
                let mut s = format!(
                    "Sandbox: bubblewrap · writable: the scratch copy only · home hidden · network {}",
                    if p.network { "ON" } else { "off" }
                );
                if !p.binds.is_empty() {
                    let binds: Vec<String> =
                        p.binds.iter().map(|b| b.display().to_string()).collect();
                    s.push_str(&format!(" · read-only: {}", binds.join(" ")));
                }
                s
            } else {
                "NO SANDBOX: the commands run as you, with your files, network and environment"
                    .to_string()
            };
            let style = if p.sandbox {
                Paint::Text
            } else {
                Paint::StatusError
            };
            push_wrapped(&mut lines, &sandbox, width, theme.style(style));
            let planned = crate::replay::plan(
                &p.trajectory,
                &crate::replay::Dialect::of(&p.trajectory),
                p.step,
            );
            let acting: Vec<_> = planned.iter().filter(|s| s.needs_repository).collect();
            let mut commands = acting
                .iter()
                .take(3)
                .map(|s| format!("{}: {}", s.step, s.action.lines().next().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(" · ");
            if acting.len() > 3 {
                commands.push_str(&format!(" · … {} more", acting.len() - 3));
            }
            if !commands.is_empty() {
                push_wrapped(
                    &mut lines,
                    &format!("First commands: {commands}"),
                    width,
                    theme.style(Paint::Dim),
                );
            }
            let answer = if p.edited_answer.is_some() {
                format!(", your edited answer at step {}", p.step)
            } else {
                String::new()
            };
            let question = format!(
                "({prefix}: {} recorded steps re-run{answer}, then up to {} live steps with {}). Run it? y/n",
                acting.len(),
                p.max_steps,
                p.backend_name().unwrap_or("?")
            );
            push_wrapped(&mut lines, &question, width, theme.style(Paint::Text));
        }
        Phase::Running { cancelling, .. } => {
            let what = if *cancelling {
                "cancelling…".to_string()
            } else {
                format!(
                    "{} with {} · streaming · {} cancels",
                    p.mode.name(),
                    p.backend_name().unwrap_or("?"),
                    state.keymap.key_name(Layer::Replay, Action::Back)
                )
            };
            lines.push(Line::styled(what, theme.style(Paint::Gauge)));
        }
        Phase::Done => {
            if let Some(outcome) = &p.outcome {
                lines.push(Line::styled(outcome.clone(), theme.style(Paint::Title)));
            }
            for fork in &p.forks {
                lines.push(Line::styled(
                    format!("fork: {}", fork.display()),
                    theme.style(Paint::Text),
                ));
            }
        }
    }
    if let Some(error) = &p.error {
        let error = format!("✗ {}", error.replace('\n', " "));
        push_wrapped(&mut lines, &error, width, theme.style(Paint::StatusError));
    }
    lines
}

fn field_value(p: &ReplayPanel, field: FormField) -> (String, String) {
    match field {
        FormField::Backend => match p.backends.get(p.backend) {
            Some((name, describe)) => (
                format!("‹ {name} ›"),
                format!("{describe} ({} of {})", p.backend + 1, p.backends.len()),
            ),
            None => ("none".into(), "no backend configured".into()),
        },
        FormField::Mode => (
            format!("‹ {} ›", p.mode.name()),
            match p.mode {
                Mode::Resample => "ask again for this step's answer; nothing runs".into(),
                Mode::Continue => "replay steps before it, then the model acts".into(),
            },
        ),
        FormField::Samples => (format!("‹ {} ›", p.samples), "answers to ask for".into()),
        FormField::MaxSteps => (
            format!("‹ {} ›", p.max_steps),
            "live model calls before it stops".into(),
        ),
        FormField::Workspace => (
            if p.workspace.is_empty() {
                "(none)".into()
            } else {
                p.workspace.clone()
            },
            "enter: type the repository path (at its starting state)".into(),
        ),
        FormField::Sandbox => (
            format!("‹ {} ›", if p.sandbox { "bubblewrap" } else { "none" }),
            if p.sandbox {
                "only the scratch copy is writable; home, /tmp, network hidden".into()
            } else {
                "commands run as you, unprotected".into()
            },
        ),
        FormField::Network => (
            format!("‹ {} ›", if p.network { "on" } else { "off" }),
            "whether sandboxed commands may reach the network".into(),
        ),
        FormField::Answer => (
            match &p.edited_answer {
                Some(a) => {
                    let first = a.content.lines().find(|l| !l.trim().is_empty());
                    let first: String = first.unwrap_or("(tool calls)").chars().take(48).collect();
                    format!("edited: {first}")
                }
                None => "the model's".into(),
            },
            "enter or a: write this step's answer yourself; it runs instead".into(),
        ),
        FormField::Context => (
            if p.edited { "edited" } else { "as recorded" }.into(),
            "enter or e: edit it in $EDITOR (JSON messages)".into(),
        ),
    }
}

fn recorded_lines(state: &State, p: &ReplayPanel, width: u16) -> Vec<Line<'static>> {
    let theme = &state.theme;
    let mut lines = vec![Line::styled(
        format!("RECORDED · step {}", p.step),
        theme.style(Paint::SectionTitle),
    )];
    match &p.recorded {
        Some(text) => push_wrapped(&mut lines, text, width, theme.style(Paint::Text)),
        None => lines.push(Line::styled(
            "(past the last step: nothing recorded)",
            theme.style(Paint::Dim),
        )),
    }
    lines
}

fn live_lines(state: &State, p: &ReplayPanel, width: u16) -> Vec<Line<'static>> {
    let theme = &state.theme;
    let mut lines = Vec::new();
    if p.blocks.is_empty() && p.log.is_empty() {
        lines.push(Line::styled("LIVE", theme.style(Paint::SectionTitle)));
        lines.push(Line::styled(
            "the model's answers stream in here",
            theme.style(Paint::Dim),
        ));
    }
    for line in &p.log {
        push_wrapped(&mut lines, line, width, theme.style(Paint::SectionMeta));
    }
    for block in &p.blocks {
        lines.push(Line::styled(
            format!("── {} ", block.title),
            theme.style(Paint::SectionTitle),
        ));
        push_wrapped(&mut lines, &block.text, width, theme.style(Paint::Text));
        let note_style = theme.style(if block.failed {
            Paint::StepError
        } else {
            Paint::SectionMeta
        });
        for note in &block.notes {
            push_wrapped(&mut lines, note, width, note_style);
        }
    }
    lines
}

fn push_wrapped(lines: &mut Vec<Line<'static>>, text: &str, width: u16, style: Style) {
    let clean = sanitise(text);
    for line in clean.lines() {
        for piece in wrap(line, usize::from(width)) {
            lines.push(Line::styled(piece.to_string(), style));
        }
    }
}

/// The keys of this phase, from the keymap.
fn key_line(state: &State, p: &ReplayPanel) -> Line<'static> {
    let theme = &state.theme;
    let keys: &[(Action, &str)] = match p.phase {
        Phase::Form => &[
            (Action::Down, "field"),
            (Action::Increase, "change"),
            (Action::Start, "start"),
            (Action::EditContext, "edit context"),
            (Action::Back, "close"),
        ],
        Phase::Confirm => &[(Action::Yes, "run"), (Action::No, "back")],
        Phase::Running { .. } => &[
            (Action::Back, "cancel"),
            (Action::ScrollPageUp, "scroll back"),
        ],
        Phase::Done => &[
            (Action::Compare, "compare fork with original"),
            (Action::Start, "again"),
            (Action::ScrollPageUp, "scroll back"),
            (Action::Back, "close"),
        ],
    };
    let mut spans = Vec::new();
    for (action, what) in keys {
        let Some(key) = state.keymap.hint(Layer::Replay, *action) else {
            continue;
        };
        spans.push(Span::styled(
            format!(" {key}"),
            theme.style(Paint::StatusKey),
        ));
        spans.push(Span::styled(format!(" {what} "), theme.style(Paint::Dim)));
    }
    Line::from(spans)
}
