//! The fuzzy finder: opening it over trajectories or steps, typing, choosing.

use crate::tui::action::Action;
use crate::tui::document::Page;
use crate::tui::effect::Effect;
use crate::tui::panel::finder::{FinderItem, FinderKind, FinderState, FinderTarget};
use crate::tui::state::{Notice, Overlay, State};
use crate::tui::update::{list, opening};

pub fn open_trajectories(state: &mut State) {
    if state.run.rows.is_empty() {
        state.notice = Some(Notice::info("no trajectories loaded yet"));
        return;
    }
    let items = state
        .run
        .visible
        .iter()
        .map(|&row| {
            let summary = &state.run.rows[row];
            FinderItem {
                text: format!("{}  {}", state.run.label(row), summary.display_source()),
                target: FinderTarget::Row(row),
            }
        })
        .collect();
    state.prompt = None;
    state.overlay = Some(
        FinderState::new(
        FinderKind::Trajectories,
        items,
        )
        .into(),
    );
}

pub fn open_steps(state: &mut State) {
    let Some(t) = state.trajectory.as_ref().filter(|t| t.trajectory.is_some()) else {
        return;
    };
    let items = t
        .steps
        .iter()
        .map(|s| {
            let mark = if s.error { "✗" } else { " " };
            let agent = match (&s.agent, t.multi_agent) {
                (Some(agent), true) => format!("{agent} "),
                _ => String::new(),
            };
            FinderItem {
                text: format!("{:>4} {mark} {agent}{}  {}", s.index, s.tool, s.summary),
                target: FinderTarget::Step(s.index),
            }
        })
        .collect();
    state.overlay = Some(FinderState::new(FinderKind::Steps, items).into());
}

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let page = list::page_height(state);
    let Some(Overlay::Finder(finder)) = state.overlay.as_mut() else {
        return;
    };
    if list::navigate(&mut finder.cursor, action, finder.matches.len(), page) {
        return;
    }
    match action {
        Action::Cancel => state.overlay = None,
        Action::DeleteBackward => {
            finder.input.pop();
            finder.refilter();
        }
        Action::ClearInput => {
            finder.input.clear();
            finder.refilter();
        }
        Action::Confirm => {
            let target = finder.selected_target();
            state.overlay = None;
            match target {
                Some(FinderTarget::Row(row)) => opening::open(state, row, None, fx),
                Some(FinderTarget::Step(step)) => {
                    if let Some(t) = state.trajectory.as_mut() {
                        if let Some(position) = t.position_of(step) {
                            t.select(position);
                        }
                        if !t.page.per_step() {
                            t.page = Page::Step;
                        }
                    }
                }
                None => {}
            }
        }
        _ => {}
    }
}

/// Pasted text, filtered once (not once per character).
pub fn paste(state: &mut State, text: &str) {
    if let Some(Overlay::Finder(finder)) = state.overlay.as_mut() {
        finder
            .input
            .extend(text.chars().filter(|c| !c.is_control()));
        finder.refilter();
    }
}

pub fn type_char(state: &mut State, c: char) {
    if let Some(Overlay::Finder(finder)) = state.overlay.as_mut() {
        finder.input.push(c);
        finder.refilter();
    }
}

#[cfg(test)]
mod tests {
    use crate::tui::msg::Msg;
    use crate::tui::update::testing::{opened, press, run, send};
    use crate::tui::effect::Effect;
    use crate::tui::state::{Overlay, Screen};

    #[test]
    fn the_trajectory_finder_narrows_and_opens() {
        let mut state = run();
        press(&mut state, "<C-p>");
        let Some(Overlay::Finder(finder)) = &state.overlay else {
            panic!("no finder")
        };
        assert_eq!(finder.matches.len(), 3);
        press(&mut state, "b.tr");
        let Some(Overlay::Finder(finder)) = &state.overlay else {
            panic!("no finder")
        };
        assert_eq!(finder.matches.len(), 1);
        let effects = press(&mut state, "<CR>");
        assert!(state.overlay.is_none());
        assert_eq!(state.screen, Screen::Trajectory);
        assert!(effects.iter().any(|e| matches!(e, Effect::LoadTrajectory { source, .. } if source.path.ends_with("b.traj"))));
    }

    #[test]
    fn pasted_text_narrows_the_finder_without_its_line_breaks() {
        let mut state = run();
        press(&mut state, "<C-p>");
        send(&mut state, Msg::Paste("b.t\nr".into()));
        let Some(Overlay::Finder(finder)) = &state.overlay else {
            panic!("no finder")
        };
        assert_eq!(finder.input, "b.tr");
        assert_eq!(finder.matches.len(), 1);
    }

    #[test]
    fn the_step_finder_selects_a_step() {
        let (mut state, _) = opened(30, 1);
        press(&mut state, "farg27");
        press(&mut state, "<CR>");
        assert_eq!(state.trajectory.as_ref().unwrap().step_index(), Some(27));
        press(&mut state, "f<BS><Esc>");
        assert!(state.overlay.is_none());
    }
}
