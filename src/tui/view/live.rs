//! What the live watch adds to the screens: in the run table, `● running` in the exit column
//! of a trajectory still being written and `⚠` before an alerted instance; in the summary
//! line, how many are running and alerted; in the status bar, polling, follow mode and new
//! steps below the cursor.

use crate::model::TrajectorySummary;
use crate::text::one_line;
use crate::tui::state::run::Column;
use crate::tui::state::{Screen, State};
use crate::tui::theme::Paint;
use crate::tui::update::live::unseen_steps;
use ratatui::text::Span;

/// The run table's cell for `row` (named `label` in the table) and `column` when the watch
/// has something to say.
pub fn cell(
    state: &State,
    row: &TrajectorySummary,
    label: &str,
    column: Column,
) -> Option<(String, Option<Paint>)> {
    if !state.live.active && state.live.running.is_empty() && state.live.alerts.is_empty() {
        return None;
    }
    let key = (row.path.clone(), row.source_index);
    match column {
        Column::Exit if state.live.is_running(&key) => {
            Some(("● running".into(), Some(Paint::Gauge)))
        }
        Column::Instance if !state.live.alerts_of(&key).is_empty() => Some((
            format!("⚠ {}", one_line(label, 200)),
            Some(Paint::StepError),
        )),
        _ => None,
    }
}

/// ` · 2 running · ⚠ 3 alerts` for the run's summary line.
pub fn summary(state: &State) -> Vec<Span<'static>> {
    let theme = &state.theme;
    let mut spans = Vec::new();
    let running = state.live.running.len();
    if running > 0 {
        spans.push(Span::styled(
            format!(" · {running} running"),
            theme.style(Paint::Gauge),
        ));
    }
    let alerts = state.live.alert_count();
    if alerts > 0 {
        spans.push(Span::styled(
            format!(" · ⚠ {alerts} alert{}", if alerts == 1 { "" } else { "s" }),
            theme.style(Paint::StepError),
        ));
    }
    spans
}

/// The status bar's live part: `▼ 3 new` (scrolled up), `follow off`, `⚠ 2`, `polling`.
pub fn status(state: &State) -> Vec<Span<'static>> {
    let live = &state.live;
    let theme = &state.theme;
    let mut spans = Vec::new();
    if state.screen == Screen::Trajectory {
        let unseen = unseen_steps(state);
        if unseen > 0 {
            spans.push(Span::styled(
                format!(" ▼ {unseen} new step{}", if unseen == 1 { "" } else { "s" }),
                theme.style(Paint::StatusNotice),
            ));
        }
        if live.active && !live.follow {
            spans.push(Span::styled(
                " follow off",
                theme.style(Paint::StatusNotice),
            ));
        }
        if let Some(t) = state.trajectory.as_ref() {
            let alerts = live.alerts_of(&(t.source.path.clone(), t.source.index));
            if let Some(last) = alerts.last() {
                spans.push(Span::styled(
                    format!(" ⚠ {} @{}", last.rule, last.step),
                    theme.style(Paint::StatusError),
                ));
            }
        }
    } else {
        let alerts = live.alert_count();
        if alerts > 0 {
            spans.push(Span::styled(
                format!(" ⚠ {alerts}"),
                theme.style(Paint::StatusError),
            ));
        }
    }
    if live.polling.is_some() {
        spans.push(Span::styled(" ⟳ polling", theme.style(Paint::StatusNotice)));
    } else if live.stopped.is_some() {
        spans.push(Span::styled(
            " not watching",
            theme.style(Paint::StatusError),
        ));
    }
    spans
}
