//! The trajectory screen: header, step list, divider, tabs and the right pane.

use super::{detail, header, steps, tabs};
use crate::tui::action::Action;
use crate::tui::layer::Layer;
use crate::tui::layout;
use crate::tui::state::State;
use crate::tui::theme::Paint;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let l = layout::trajectory(area);
    let Some(t) = state.trajectory.as_ref() else {
        return;
    };
    header::render(state, t, frame, l.header);
    super::scrollbar::render(&state.theme, frame, l.list_bar, 0, 0, 0, &[]);
    tabs::render(state, t, frame, l.tabs);
    if let Some(error) = &t.error {
        let text = format!(" Could not read this trajectory:\n {error}");
        frame.render_widget(
            Paragraph::new(text).style(state.theme.style(Paint::StepError)),
            l.detail,
        );
        return;
    }
    if t.trajectory.is_none() {
        let text = format!(" reading {}…", t.source.path.display());
        frame.render_widget(
            Paragraph::new(text).style(state.theme.style(Paint::Dim)),
            l.detail,
        );
        return;
    }
    steps::render(state, t, frame, l.list, l.list_bar);
    if t.steps.is_empty() && t.page.per_step() {
        let key = |action| state.keymap.key_name(Layer::Trajectory, action);
        let text = format!(
            " This log holds no steps. The task and details are under {}, the patch under {}.",
            key(Action::ShowTask),
            key(Action::ShowPatch)
        );
        frame.render_widget(
            Paragraph::new(text).style(state.theme.style(Paint::Dim)),
            l.detail,
        );
        return;
    }
    let (marks, detail) = super::marks::split(state, l.detail);
    if let Some((marks, area)) = marks {
        super::marks::render(state, &marks, frame, area);
    }
    let bar = Rect {
        y: detail.y,
        height: detail.height,
        ..l.detail_bar
    };
    detail::render(state, t, frame, detail, bar);
}
