//! `x` / `X`: export the open trajectory, or its selected step, to a file. The file is
//! written by a job; the status bar then says where it went.

use crate::export::StepRange;
use crate::present::StepBadges;
use crate::tui::action::Action;
use crate::tui::config::ExportFormat;
use crate::tui::effect::{Effect, ExportRequest};
use crate::tui::state::{Notice, State};

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let Some(t) = state.open_trajectory() else {
        return;
    };
    let Some(trajectory) = t.trajectory.clone() else {
        return;
    };
    if let Some((read, total)) = t.indexing {
        // The header of an export counts every step: not known until the index is done.
        state.notice = Some(Notice::info(format!(
            "still indexing the file ({}%): export once it is done",
            read.saturating_mul(100) / total.max(1)
        )));
        return;
    }
    let steps = match action {
        Action::ExportStep => match t.step_index() {
            Some(step) => StepRange::one(step),
            None => return,
        },
        _ => StepRange::All,
    };
    let html = match state.options.export_format {
        ExportFormat::Html => true,
        ExportFormat::Markdown => false,
        // A page to send for a whole trajectory; a step to paste into an issue.
        ExportFormat::Auto => steps.is_all(),
    };
    let Ok(range) = steps.resolve(trajectory.step_count()) else {
        return;
    };
    let badges = StepBadges::collect(
        range,
        |step| state.metrics.rules_at(&t.source, step),
        |step| state.metrics.labels_at(&t.source, step),
    );
    let dir = state.options.export_dir.clone();
    let title = state.trajectory.as_ref().map(|t| t.title.clone());
    fx.push(Effect::Export(Box::new(ExportRequest {
        trajectory,
        steps,
        html,
        badges,
        dir,
        title,
    })));
}
