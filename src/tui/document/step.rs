//! The step page: a line of facts (tool, error, exit code, time, tokens, cost), then the
//! step's parts as `present::sections` orders and titles them, code highlighted, long
//! observations folded.

use super::highlight::Highlighter;
use super::{Mode, Writer, cancelled};
use crate::metrics::Field;
use crate::model::{Step, StepKind, Trajectory};
use crate::present::language::{Language, of_action, of_step_observation};
use crate::present::sections::{Section, SectionKind, sections};
use crate::text::sanitise;
use crate::tui::theme::{Paint, Theme};
use crate::tui::units;
use ratatui::text::Span;
use std::sync::atomic::AtomicBool;

/// `fold` is the line count above which an observation is folded, and the key that unfolds
/// it (named in the fold marker).
#[allow(clippy::too_many_arguments)]
pub fn write(
    w: &mut Writer,
    trajectory: &Trajectory,
    step: &Step,
    theme: &Theme,
    fold: Option<usize>,
    unfold_key: &str,
    mode: Mode,
    cancel: &AtomicBool,
) -> Option<()> {
    facts(w, trajectory, step, theme);
    if let Some(log) = &step.subagent {
        w.spans(vec![
            Span::styled("sub-agent log ", theme.style(Paint::SectionMeta)),
            Span::styled(
                sanitise(&log.display().to_string()).into_owned(),
                theme.style(Paint::Text),
            ),
            Span::styled(
                " (follow_subagent opens it)",
                theme.style(Paint::SectionMeta),
            ),
        ]);
    }
    for section in sections(step) {
        match section.kind {
            SectionKind::User | SectionKind::Compaction | SectionKind::Thought => {
                prose(w, section, theme);
            }
            SectionKind::Action => {
                let action = section.text;
                let lang = of_action(step, &sanitise(action), None);
                w.blank();
                w.rule(
                    section.kind.heading(),
                    &lang.label(),
                    theme.style(Paint::SectionTitle),
                    theme.style(Paint::SectionMeta),
                );
                w.begin_field(Field::Action);
                body(w, action, lang, theme, None, "", mode, false, cancel)?;
            }
            SectionKind::Observation => {
                // Counted and sanitised line by line, never whole: the preview of a 10 MB
                // observation must cost only what it shows.
                let observation = &step.observation;
                w.blank();
                let lines = observation.lines().count();
                let lang = of_step_observation(step);
                let mut detail = lang.label();
                if lines > 1 {
                    let count = format!("{} lines", units::count(lines as u64));
                    detail = if detail.is_empty() {
                        count
                    } else {
                        format!("{detail} · {count}")
                    };
                }
                let title_role = if step.is_error() {
                    Paint::StepError
                } else {
                    Paint::SectionTitle
                };
                w.rule(
                    SectionKind::Observation.heading(),
                    &detail,
                    theme.style(title_role),
                    theme.style(Paint::SectionMeta),
                );
                w.begin_field(Field::Observation);
                if observation.trim().is_empty() {
                    w.text(
                        SectionKind::Observation.when_blank(),
                        theme.style(Paint::Dim),
                    );
                    continue;
                }
                let fold = fold.filter(|&limit| lines > limit);
                body(
                    w,
                    observation,
                    lang,
                    theme,
                    fold,
                    unfold_key,
                    mode,
                    true,
                    cancel,
                )?;
            }
        }
    }
    Some(())
}

/// A part shown as written: a person's message, the summary a compaction left, a thought.
fn prose(w: &mut Writer, section: Section<'_>, theme: &Theme) {
    let kind = section.kind;
    w.blank();
    w.rule(
        kind.heading(),
        kind.detail(),
        theme.style(Paint::SectionTitle),
        theme.style(Paint::SectionMeta),
    );
    w.begin_field(kind.field());
    let text = sanitise(section.text);
    if text.trim().is_empty() {
        w.text(kind.when_blank(), theme.style(Paint::Dim));
    }
    for (i, line) in text.lines().enumerate() {
        w.source_line(i);
        w.text(line, theme.style(Paint::Text));
    }
}

/// `Step 5/40 · bash · ✗ error · exit 1 · 1.23s · 1,204 → 88 tokens · $0.0123`.
fn facts(w: &mut Writer, trajectory: &Trajectory, step: &Step, theme: &Theme) {
    let meta = theme.style(Paint::SectionMeta);
    let sep = || Span::styled(" · ", meta);
    let mut spans = vec![Span::styled(
        format!(
            "Step {}/{}",
            step.index,
            crate::present::facts::step_total(trajectory)
        ),
        theme.style(Paint::Title),
    )];
    if let Some(agent) = step
        .agent
        .as_ref()
        .filter(|_| trajectory.agents().len() > 1)
    {
        spans.push(sep());
        spans.push(Span::styled(agent.clone(), theme.style(Paint::StepAgent)));
    }
    if step.kind != StepKind::Agent || step.tool.is_some() {
        spans.push(sep());
        spans.push(Span::styled(
            step.tool_name().to_string(),
            theme.style(Paint::StepTool),
        ));
    }
    if step.is_error() {
        spans.push(sep());
        spans.push(Span::styled("✗ error", theme.style(Paint::StepError)));
    }
    let mut facts = Vec::new();
    if let Some(code) = step.exit_code {
        facts.push(format!("exit {code}"));
    }
    if let Some(d) = step.duration_s {
        facts.push(units::seconds(d));
    }
    match (step.usage.tokens_in, step.usage.tokens_out) {
        (Some(i), Some(o)) => {
            facts.push(format!("{} → {} tokens", units::count(i), units::count(o)))
        }
        (Some(i), None) => facts.push(format!("{} tokens in", units::count(i))),
        (None, Some(o)) => facts.push(format!("{} tokens out", units::count(o))),
        (None, None) => {}
    }
    if let Some(cost) = step.usage.cost {
        facts.push(units::cost(cost));
    }
    if let Some(ts) = &step.timestamp {
        facts.push(units::local_time(ts));
    }
    for fact in facts {
        spans.push(sep());
        spans.push(Span::styled(fact, meta));
    }
    w.spans(spans);
}

/// The lines of a field as logged, each sanitised and coloured as `lang`, with the middle
/// folded away when `fold` is set (the head two thirds and the tail third of `fold` lines
/// stay visible). Lines are numbered as in the sanitised field, which search uses: sanitising
/// never adds or removes a line break.
#[allow(clippy::too_many_arguments)]
fn body(
    w: &mut Writer,
    text: &str,
    lang: Language,
    theme: &Theme,
    fold: Option<usize>,
    unfold_key: &str,
    mode: Mode,
    observation: bool,
    cancel: &AtomicBool,
) -> Option<()> {
    let mut highlighter = Highlighter::new(lang, theme, mode.highlight, observation);
    w.continuation(Some(Span::styled("↪ ", theme.style(Paint::Dim))));
    let total = if fold.is_some() {
        text.lines().count()
    } else {
        0
    };
    let (head, tail_from) = match fold {
        Some(limit) => (limit * 2 / 3, total - limit / 3),
        None => (usize::MAX, usize::MAX),
    };
    for (i, line) in text.lines().enumerate() {
        if cancelled(cancel, i) {
            w.continuation(None);
            return None;
        }
        if w.full() {
            break;
        }
        if i == head {
            w.source_line(i);
            let hidden = tail_from - head;
            w.spans(vec![Span::styled(
                format!(
                    "··· {} lines folded · {unfold_key} unfolds ···",
                    units::count(hidden as u64)
                ),
                theme.style(Paint::FoldMarker),
            )]);
        }
        if i >= head && i < tail_from {
            continue;
        }
        w.source_line(i);
        let spans = highlighter.line(&sanitise(line));
        w.spans(spans);
    }
    w.continuation(None);
    Some(())
}
