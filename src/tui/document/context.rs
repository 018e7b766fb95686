//! The context page: the messages the model received at a step, marked EXACT (as stored in
//! the log) or RECONSTRUCTED (rebuilt from the history, may differ).

use super::{Writer, cancelled};
use crate::model::{Exactness, Role, Step, Trajectory};
use crate::text::sanitise;
use crate::tui::theme::{Paint, Theme};
use crate::tui::units;
use ratatui::text::Span;
use std::sync::atomic::AtomicBool;

pub fn write(
    w: &mut Writer,
    trajectory: &Trajectory,
    step: &Step,
    theme: &Theme,
    cancel: &AtomicBool,
) -> Option<()> {
    let messages = step.context_messages(&trajectory.messages);
    let meta = theme.style(Paint::SectionMeta);
    let title = Span::styled(
        format!("Model input at step {} ", step.index),
        theme.style(Paint::Title),
    );
    let Some(context) = &step.context else {
        w.spans(vec![title]);
        w.blank();
        if trajectory.lazy.is_some() {
            // 0.x contexts are rebuilt from `history`, which a lazy open does not decode.
            w.text(
                &format!(
                    "Not rebuilt: this trajectory was opened lazily, and its contexts are rebuilt from the log's history, which is read only when the file is read whole: trajscope show {} --step {} --context",
                    trajectory.path.display(),
                    step.index
                ),
                theme.style(Paint::Dim),
            );
        } else {
            w.text(
                "Not available: this log does not record what the model saw at this step.",
                theme.style(Paint::Dim),
            );
        }
        return Some(());
    };
    let bytes: usize = messages.iter().map(|m| m.content.len()).sum();
    let (badge, role, explanation) = match context.exactness {
        Exactness::Exact => (" EXACT ", Paint::ContextExact, "as stored in the log"),
        Exactness::Reconstructed => (
            " RECONSTRUCTED ",
            Paint::ContextReconstructed,
            "rebuilt from the history; it may differ from what the model saw",
        ),
    };
    w.spans(vec![
        title,
        Span::styled(badge, theme.style(role)),
        Span::styled(
            format!(
                " {} messages · {} · {explanation}",
                messages.len(),
                units::bytes(bytes as u64)
            ),
            meta,
        ),
    ]);
    let mut lines_seen = 0;
    for (i, message) in messages.iter().enumerate() {
        if w.full() {
            break;
        }
        w.blank();
        if message.compaction {
            w.rule(
                "── COMPACTED ──",
                "the messages before this one were replaced by this summary",
                theme.style(Paint::SectionTitle),
                meta,
            );
        }
        let role_style = theme.style(match message.role {
            Role::System => Paint::RoleSystem,
            Role::User => Paint::RoleUser,
            Role::Assistant => Paint::RoleAssistant,
            Role::Tool => Paint::RoleTool,
        });
        let mut detail = Vec::new();
        if let Some(agent) = &message.agent {
            detail.push(agent.clone());
        }
        if let Some(name) = &message.name {
            detail.push(name.clone());
        }
        let lines = message.content.lines().count();
        detail.push(format!("{lines} line{}", if lines == 1 { "" } else { "s" }));
        w.rule(
            &format!("[{}] {}", i + 1, message.role.as_str()),
            &detail.join(" · "),
            role_style,
            meta,
        );
        let content = sanitise(&message.content);
        for line in content.lines() {
            lines_seen += 1;
            if cancelled(cancel, lines_seen) {
                return None;
            }
            w.text(line, theme.style(Paint::Text));
            if w.full() {
                break;
            }
        }
        for call in &message.tool_calls {
            w.spans(vec![
                Span::styled("→ ", meta),
                Span::styled(call.name.clone(), theme.style(Paint::StepTool)),
                Span::styled(
                    format!("({})", sanitise(&call.arguments)),
                    theme.style(Paint::Text),
                ),
            ]);
        }
    }
    Some(())
}
