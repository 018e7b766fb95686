//! The trajectory screen's keys: moving between steps (errors, same tool, next trajectory),
//! the page and the features it opens, and going back. Opening a trajectory is in
//! `opening.rs`, which the other screens use without coming back here.

use super::opening::open;
use super::{clipboard, list, page, prompt, search};
use crate::tui::action::Action;
use crate::tui::effect::{Effect, JobKey};
use crate::tui::panel::finder::update as finder;
use crate::tui::state::prompt::PromptKind;
use crate::tui::state::{Notice, Screen, State};

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let page_rows = list::page_height(state);
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    let mut cursor = t.cursor;
    if list::navigate(&mut cursor, action, t.steps.len(), page_rows) {
        t.select(cursor.selected);
        return;
    }
    match action {
        Action::Back => back_to_run(state, fx),
        Action::NextError | Action::PreviousError => {
            let forward = action == Action::NextError;
            match t.find_step(forward, |s| s.error) {
                Some(position) => t.select(position),
                None => {
                    let which = if forward { "after" } else { "before" };
                    state.notice = Some(Notice::info(format!(
                        "no step with an error {which} this one"
                    )));
                }
            }
        }
        Action::NextSameTool | Action::PreviousSameTool => {
            let forward = action == Action::NextSameTool;
            let Some(tool) = t.steps.get(t.cursor.selected).map(|s| s.tool.clone()) else {
                return;
            };
            match t.find_step(forward, |s| s.tool == tool) {
                Some(position) => t.select(position),
                None => {
                    let which = if forward { "after" } else { "before" };
                    state.notice = Some(Notice::info(format!("no `{tool}` step {which} this one")));
                }
            }
        }
        Action::NextTrajectory | Action::PreviousTrajectory => {
            let forward = action == Action::NextTrajectory;
            let next = t.row.and_then(|row| state.run.neighbour(row, forward));
            match next {
                Some(row) => open(state, row, None, fx),
                None => {
                    let which = if forward { "last" } else { "first" };
                    state.notice = Some(Notice::info(format!(
                        "this is the {which} trajectory of the run"
                    )));
                }
            }
        }
        Action::FollowSubagent => super::subagent::follow(state, fx),
        Action::Search => prompt::open(state, PromptKind::Search),
        Action::NextHit => search::advance(state, true),
        Action::PreviousHit => search::advance(state, false),
        Action::ClearSearch => state.search.clear(),
        Action::FindStep => finder::open_steps(state),
        Action::ToggleFollow => super::live::toggle_follow(state),
        Action::CopyAction | Action::CopyObservation | Action::OpenInEditor => {
            clipboard::action(state, action, fx);
        }
        Action::LabelStep => super::labels::ask(state),
        Action::UnlabelStep => super::labels::remove(state, fx),
        Action::ExportTrajectory | Action::ExportStep => super::export::action(state, action, fx),
        Action::Replay => crate::tui::panel::replay::update::open(state),
        other => page::action(state, other),
    }
}

/// Back to the run table, with the trajectory's row selected; or to the dashboard when the
/// trajectory was opened from there. A trajectory still being read is given up: a big
/// file's read stops rather than going on behind the run table (opening it again starts
/// afresh).
pub fn back_to_run(state: &mut State, fx: &mut Vec<Effect>) {
    let id = state.trajectory.as_ref().map(|t| t.id);
    let back = state.trajectory.as_ref().map_or(Screen::Run, |t| t.back);
    let row = state.trajectory.as_ref().and_then(|t| t.row);
    if state
        .trajectory
        .as_ref()
        .is_some_and(|t| t.trajectory.is_none() && t.error.is_none())
    {
        fx.push(Effect::Cancel(JobKey::Trajectory));
        state.trajectory = None;
    }
    if back == Screen::Dashboard || (id.is_some() && state.dashboard.opened == id) {
        super::dashboard::open(state);
        return;
    }
    if back == Screen::Compare && state.compare.view.is_some() {
        state.screen = Screen::Compare;
        return;
    }
    state.screen = Screen::Run;
    if let Some(position) = row.and_then(|r| state.run.visible.iter().position(|&i| i == r)) {
        state.run.cursor.selected = position;
        state.run.user_moved = true;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{
        deliver, documents_requested, notice, opened, press, run, send, trajectory,
    };
    use crate::tui::document::Page;
    use crate::tui::effect::{Effect, JobKey};
    use crate::tui::msg::Msg;
    use crate::tui::state::Screen;

    fn step(state: &crate::tui::state::State) -> Option<usize> {
        state.trajectory.as_ref().and_then(|t| t.step_index())
    }

    #[test]
    fn leaving_a_trajectory_still_loading_cancels_its_read() {
        let mut state = run();
        let effects = press(&mut state, "<CR>");
        let first = effects
            .iter()
            .find_map(|e| match e {
                Effect::LoadTrajectory { id, .. } => Some(*id),
                _ => None,
            })
            .unwrap();
        let effects = press(&mut state, "q");
        assert!(matches!(state.screen, Screen::Run));
        assert!(
            matches!(&effects[..], [Effect::Cancel(JobKey::Trajectory)]),
            "{effects:?}"
        );
        // Opening it again reads it again; a late answer to the cancelled read is dropped.
        let again = press(&mut state, "<CR>");
        assert!(
            again
                .iter()
                .any(|e| matches!(e, Effect::LoadTrajectory { .. }))
        );
        send(
            &mut state,
            Msg::TrajectoryLoaded {
                id: first,
                result: Err("late".into()),
            },
        );
        assert_eq!(state.trajectory.as_ref().unwrap().error, None);

        // Leaving a loaded trajectory cancels nothing and keeps it.
        deliver(&mut state, &again, trajectory("run/a.traj", 3, 1));
        let effects = press(&mut state, "q");
        assert!(effects.is_empty(), "{effects:?}");
        assert!(state.trajectory.as_ref().unwrap().trajectory.is_some());
    }

    #[test]
    fn loading_fills_the_step_list_and_asks_for_the_first_page() {
        let (state, effects) = opened(12, 3);
        let t = state.trajectory.as_ref().unwrap();
        assert_eq!(t.steps.len(), 12);
        assert_eq!(step(&state), Some(1));
        assert!(t.steps[4].error && !t.steps[3].error);
        let keys = documents_requested(&effects);
        assert_eq!(keys.len(), 1);
        assert_eq!((keys[0].page, keys[0].step), (Page::Step, 1));
        assert_eq!(
            t.trajectory.as_ref().unwrap().resolved,
            Some(true),
            "joined from the run"
        );
    }

    #[test]
    fn a_late_trajectory_for_an_older_opening_is_dropped() {
        let mut state = run();
        let first = press(&mut state, "<CR>");
        let second = press(&mut state, "]");
        deliver(&mut state, &first, trajectory("run/a.traj", 3, 1));
        assert!(state.trajectory.as_ref().unwrap().trajectory.is_none());
        deliver(&mut state, &second, trajectory("run/b.traj", 5, 1));
        assert_eq!(state.trajectory.as_ref().unwrap().steps.len(), 5);
    }

    #[test]
    fn a_file_that_cannot_be_read_says_why() {
        let mut state = run();
        let effects = press(&mut state, "<CR>");
        let id = match &effects[0] {
            Effect::LoadTrajectory { id, .. } => *id,
            other => panic!("{other:?}"),
        };
        send(
            &mut state,
            Msg::TrajectoryLoaded {
                id,
                result: Err("run/a.traj: gone".into()),
            },
        );
        assert_eq!(
            state.trajectory.as_ref().unwrap().error.as_deref(),
            Some("run/a.traj: gone")
        );
    }

    #[test]
    fn moving_between_steps_errors_and_tools() {
        let (mut state, _) = opened(20, 2);
        press(&mut state, "e");
        assert_eq!(step(&state), Some(5));
        press(&mut state, "e");
        assert_eq!(step(&state), Some(10));
        press(&mut state, "E");
        assert_eq!(step(&state), Some(5));
        // Step 5 is `edit` (tools cycle bash, edit, python): the next edit is step 8.
        press(&mut state, "t");
        assert_eq!(step(&state), Some(8));
        press(&mut state, "T");
        assert_eq!(step(&state), Some(5));
        press(&mut state, "G");
        assert_eq!(step(&state), Some(20));
        press(&mut state, "e");
        assert_eq!(step(&state), Some(20), "no error after the last step");
        assert!(
            notice(&state).contains("no step with an error after"),
            "{}",
            notice(&state)
        );
        press(&mut state, "g");
        assert_eq!(step(&state), Some(1));
        press(&mut state, "<C-d>");
        assert!(step(&state).unwrap() > 5);
    }

    #[test]
    fn next_trajectory_follows_the_run_order_and_back_selects_the_row() {
        let (mut state, _) = opened(3, 1);
        let effects = press(&mut state, "]");
        let path = effects.iter().find_map(|e| match e {
            Effect::LoadTrajectory { source, .. } => Some(source.path.clone()),
            _ => None,
        });
        assert_eq!(path.unwrap().to_str(), Some("run/b.traj"));
        press(&mut state, "q");
        assert_eq!(state.screen, Screen::Run);
        assert_eq!(state.run.cursor.selected, 1, "b is selected in the table");
        press(&mut state, "<CR>");
        assert_eq!(state.screen, Screen::Trajectory);
    }

    #[test]
    fn the_right_pane_is_built_once_per_key() {
        let (mut state, _) = opened(5, 100);
        // Asked for already: no second request while it builds.
        assert!(documents_requested(&press(&mut state, "J")).is_empty());
        let effects = press(&mut state, "j");
        assert_eq!(documents_requested(&effects)[0].step, 2);
        let effects = press(&mut state, "z");
        let keys = documents_requested(&effects);
        assert!(keys[0].unfolded, "unfolding is another document");
        let effects = send(
            &mut state,
            Msg::Resize {
                width: 140,
                height: 40,
            },
        );
        assert!(documents_requested(&effects)[0].width > keys[0].width);
        let effects = press(&mut state, "c");
        assert_eq!(documents_requested(&effects)[0].page, Page::Context);
    }

    #[test]
    fn pages_and_scrolling() {
        let (mut state, effects) = opened(3, 200);
        let request = effects
            .iter()
            .find_map(|e| match e {
                Effect::BuildDocument(r) => Some(r.clone()),
                _ => None,
            })
            .unwrap();
        let never = std::sync::atomic::AtomicBool::new(false);
        let ready = crate::tui::job::build_document(&request, &never).unwrap();
        send(&mut state, ready);
        press(&mut state, "<End>");
        let scroll = state.trajectory.as_ref().unwrap().scroll;
        assert!(
            scroll > 0 && scroll < usize::MAX,
            "clamped to the document: {scroll}"
        );
        press(&mut state, "<Home>");
        assert_eq!(state.trajectory.as_ref().unwrap().scroll, 0);
        press(&mut state, "<Space>");
        assert!(state.trajectory.as_ref().unwrap().scroll > 10);
        press(&mut state, "p");
        let t = state.trajectory.as_ref().unwrap();
        assert_eq!((t.page, t.scroll), (Page::Patch, 0));
        press(&mut state, "p");
        assert_eq!(
            state.trajectory.as_ref().unwrap().page,
            Page::Step,
            "p again goes back"
        );
        press(&mut state, "<Tab><Tab>");
        assert_eq!(state.trajectory.as_ref().unwrap().page, Page::Patch);
        press(&mut state, "<S-Tab>i");
        assert_eq!(state.trajectory.as_ref().unwrap().page, Page::Task);
    }
}
