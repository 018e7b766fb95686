//! The tab titles above the right pane, the shown one highlighted.

use crate::tui::layout;
use crate::tui::state::State;
use crate::tui::state::trajectory::TrajectoryState;
use crate::tui::theme::Paint;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Paragraph;

pub fn render(state: &State, t: &TrajectoryState, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    for (page, rect) in layout::tabs(area) {
        let role = if page == t.page {
            Paint::TabActive
        } else {
            Paint::TabInactive
        };
        frame.render_widget(
            Paragraph::new(layout::tab_label_in(page, rect.width)).style(theme.style(role)),
            rect,
        );
    }
}
