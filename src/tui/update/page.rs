//! The right pane of the trajectory screen: which page it shows, scrolling, folding.

use super::list::detail_height;
use crate::tui::action::Action;
use crate::tui::document::Page;
use crate::tui::state::State;

pub fn action(state: &mut State, action: Action) {
    let height = detail_height(state);
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    match action {
        Action::ScrollDown => t.scroll = t.scroll.saturating_add(1),
        Action::ScrollUp => t.scroll = t.scroll.saturating_sub(1),
        Action::ScrollPageDown => {
            t.scroll = t.scroll.saturating_add(height.saturating_sub(2).max(1))
        }
        Action::ScrollPageUp => t.scroll = t.scroll.saturating_sub(height.saturating_sub(2).max(1)),
        Action::ScrollTop => t.scroll = 0,
        Action::ScrollBottom => t.scroll = usize::MAX,
        Action::ShowStep => show(state, Page::Step),
        Action::ShowContext => show(state, Page::Context),
        Action::ShowPatch => show(state, Page::Patch),
        Action::ShowTask => show(state, Page::Task),
        Action::ShowDiff => show(state, Page::Diff),
        Action::ShowTree => show(state, Page::Tree),
        Action::NextPage | Action::PreviousPage => {
            let n = Page::ALL.len();
            let here = Page::ALL.iter().position(|&p| p == t.page).unwrap_or(0);
            let next = if action == Action::NextPage {
                (here + 1) % n
            } else {
                (here + n - 1) % n
            };
            show(state, Page::ALL[next]);
        }
        Action::ToggleFold => {
            if t.page != Page::Step {
                return;
            }
            if let Some(step) = t.step_index()
                && !t.unfolded.remove(&step)
            {
                t.unfolded.insert(step);
            }
        }
        _ => {}
    }
}

/// Shows `page`; showing the page already shown goes back to the step.
pub fn show(state: &mut State, page: Page) {
    if let Some(t) = state.trajectory.as_mut() {
        let page = if t.page == page && page != Page::Step {
            Page::Step
        } else {
            page
        };
        if t.page != page {
            t.page = page;
            t.scroll = 0;
            t.pending_hit = None;
        }
    }
}
