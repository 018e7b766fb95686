//! The task page: the issue text the agent was given, and the trajectory's details (source,
//! format, model, outcome, totals, loader warnings).

use super::Writer;
use crate::model::Trajectory;
use crate::present::facts;
use crate::text::sanitise;
use crate::tui::theme::{Paint, Theme};
use crate::tui::units;
use ratatui::text::Span;

pub fn write(w: &mut Writer, trajectory: &Trajectory, theme: &Theme) {
    let meta = theme.style(Paint::SectionMeta);
    let title = theme.style(Paint::SectionTitle);
    w.rule("TASK", "", title, meta);
    match trajectory.task.as_deref() {
        Some(task) => w.text(&sanitise(task), theme.style(Paint::Text)),
        None => w.text(
            "The log does not say what the task was.",
            theme.style(Paint::Dim),
        ),
    }
    w.blank();
    w.rule("DETAILS", "", title, meta);
    let usage = trajectory.total_usage();
    let format = facts::format(trajectory);
    let resolved = facts::resolved_explained(trajectory);
    let mut rows = vec![
        ("instance", trajectory.instance_id.clone()),
        ("source", trajectory.display_source()),
        ("format", format),
        (
            "model",
            trajectory.model.clone().unwrap_or_else(|| "-".into()),
        ),
        (
            "exit status",
            trajectory.exit_status.clone().unwrap_or_else(|| "-".into()),
        ),
        ("resolved", resolved.into()),
        (
            "steps",
            format!(
                "{} ({} with errors)",
                crate::present::facts::step_total(trajectory),
                trajectory.error_steps()
            ),
        ),
    ];
    if let Some(cost) = usage.cost {
        rows.push(("cost", units::cost(cost)));
    }
    if usage.tokens_in.is_some() || usage.tokens_out.is_some() {
        let n = |t: Option<u64>| t.map_or("-".into(), units::count);
        rows.push((
            "tokens",
            format!("{} in · {} out", n(usage.tokens_in), n(usage.tokens_out)),
        ));
    }
    if usage.tokens_cached.is_some() || usage.tokens_reasoning.is_some() {
        let n = |t: Option<u64>| t.map_or("-".into(), units::count);
        rows.push((
            "of which",
            format!(
                "{} cached in · {} reasoning out",
                n(usage.tokens_cached),
                n(usage.tokens_reasoning)
            ),
        ));
    }
    if let Some(calls) = usage.api_calls {
        rows.push(("model calls", units::count(calls)));
    }
    if !trajectory.subagent_usage.is_empty() {
        let mut all = usage;
        all.add(&trajectory.subagent_usage);
        rows.push(("+sub-agents", usage_line(&all)));
    }
    if let Some(parent) = &trajectory.parent {
        rows.push(("sub-agent of", parent.display().to_string()));
    }
    if let Some(fork) = &trajectory.fork {
        rows.push((
            "fork of",
            format!("{} at step {}", fork.parent.display(), fork.step),
        ));
    }
    for warning in &trajectory.warnings {
        rows.push(("warning", warning.clone()));
    }
    for (label, value) in rows {
        w.spans(vec![
            Span::styled(format!("{label:<12}"), meta),
            Span::styled(sanitise(&value).into_owned(), theme.style(Paint::Text)),
        ]);
    }
}

/// `$0.12 · 1,204 in · 88 out`: a total with sub-agents, on one row.
fn usage_line(usage: &crate::model::Usage) -> String {
    let n = |t: Option<u64>| t.map_or("-".into(), units::count);
    let tokens = format!("{} in · {} out", n(usage.tokens_in), n(usage.tokens_out));
    match usage.cost {
        Some(cost) => format!("{} · {tokens}", units::cost(cost)),
        None => tokens,
    }
}
