//! Comparing two runs: marking trajectories in the run table, choosing what to compare the
//! selected one with, the comparison arriving, and moving on the compare screen (pairs,
//! divergences, the panes' scroll, the patches).

use super::list;
use crate::model::Format;
use crate::tui::action::Action;
use crate::tui::document::compare as panes;
use crate::tui::effect::Effect;
use crate::tui::layer::Layer;
use crate::tui::layout;
use crate::tui::state::compare::{CompareView, CompareWith, Compared};
use crate::tui::state::trajectory::TrajectoryRef;
use crate::tui::state::{Notice, Screen, State};
use crate::tui::theme::Theme;
use std::sync::Arc;

/// The mark key in the run table: marks (or unmarks) the selected trajectory.
pub fn mark(state: &mut State) {
    let Some(row) = state.run.selected_row() else {
        return;
    };
    let id = state.run.label(row).to_string();
    let compare = state.keymap.key_name(Layer::Run, Action::Compare);
    let text = if state.compare.toggle(row) {
        match state.compare.marked.len() {
            1 => format!("marked {id}: select another trajectory and press {compare} to compare"),
            _ => format!("marked {id} (2 marked): {compare} compares them"),
        }
    } else {
        format!("unmarked {id}")
    };
    state.notice = Some(Notice::info(text));
}

/// `c` in the run table: compares the two marked trajectories, the marked one with the
/// selected one, the selected one with the same instance elsewhere in the run (another
/// opened run first), or a fork with the trajectory it was forked from.
pub fn open(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(selected) = state.run.selected_row() else {
        return;
    };
    let marked = state.compare.marked.clone();
    let (a, b) = match marked[..] {
        [x, y] => (x, Some(y)),
        [x] if x != selected => (x, Some(selected)),
        _ => match other_for(state, selected) {
            Ok(other) => (selected, other),
            Err(why) => {
                state.notice = Some(Notice::info(why));
                return;
            }
        },
    };
    let rows = &state.run.rows;
    let reference = |row: usize| TrajectoryRef {
        path: rows[row].path.clone(),
        index: rows[row].source_index,
    };
    let (a_ref, b_other) = (
        reference(a),
        match b {
            Some(b) => CompareWith::Trajectory(reference(b)),
            None => CompareWith::ForkParent,
        },
    );
    // The rows' labels: unique, the part that tells them apart at the end.
    let title = |row: usize| state.run.label(row).to_string();
    let titles = [
        title(a),
        b.map_or_else(|| "the original of this fork".to_string(), title),
    ];
    let resolved = [rows[a].resolved, b.and_then(|b| rows[b].resolved)];
    let id = state.next_id();
    let mut view = CompareView::opening(id, titles);
    view.resolved = resolved;
    state.compare.view = Some(view);
    state.compare.marked.clear();
    state.screen = Screen::Compare;
    fx.push(Effect::LoadCompare {
        id,
        a: a_ref,
        b: b_other,
    });
}

/// A fork the replay panel just wrote, against its original, opened where they first part
/// ways; Back returns to the trajectory.
pub fn open_fork(
    state: &mut State,
    fork: std::path::PathBuf,
    instance: &str,
    fx: &mut Vec<Effect>,
) {
    let id = state.next_id();
    let name = fork
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut view = CompareView::opening(
        id,
        [
            format!("{instance} · {name}"),
            "the original of this fork".to_string(),
        ],
    );
    view.back = Screen::Trajectory;
    state.compare.view = Some(view);
    state.screen = Screen::Compare;
    fx.push(Effect::LoadCompare {
        id,
        a: TrajectoryRef {
            path: fork,
            index: None,
        },
        b: CompareWith::ForkParent,
    });
}

/// With nothing else marked: `Some(row)` of the same instance (in another root first),
/// `None` for a fork's parent, or why there is nothing to compare with.
fn other_for(state: &State, selected: usize) -> Result<Option<usize>, String> {
    let rows = &state.run.rows;
    let this = &rows[selected];
    if this.format == Format::Trajscope {
        return Ok(None);
    }
    let root_of = |row: usize| {
        state
            .run
            .roots
            .iter()
            .position(|root| rows[row].path.starts_with(root))
    };
    let same: Vec<usize> = (0..rows.len())
        .filter(|&r| r != selected && rows[r].instance_id == this.instance_id)
        .collect();
    let elsewhere: Vec<usize> = same
        .iter()
        .copied()
        .filter(|&r| root_of(r) != root_of(selected))
        .collect();
    let candidates = if elsewhere.is_empty() {
        same
    } else {
        elsewhere
    };
    let mark = state.keymap.key_name(Layer::Run, Action::Mark);
    let compare = state.keymap.key_name(Layer::Run, Action::Compare);
    match candidates[..] {
        [one] => Ok(Some(one)),
        [] => Err(format!(
            "no other trajectory of {} here: mark one ({mark}), select another, press {compare}",
            this.instance_id
        )),
        _ => Err(format!(
            "{} other trajectories of {}: mark one ({mark}), then press {compare} on this one",
            candidates.len(),
            this.instance_id
        )),
    }
}

pub fn loaded(state: &mut State, id: u64, result: Result<Arc<Compared>, String>) {
    let Some(view) = state.compare.view.as_mut().filter(|v| v.id == id) else {
        return;
    };
    match result {
        Ok(compared) => {
            // Open where the runs first part ways: that is what the user came to see.
            let first = compared
                .comparison
                .pairs
                .iter()
                .position(|p| !p.same)
                .unwrap_or(0);
            view.compared = Some(compared);
            view.error = None;
            view.select(first);
        }
        Err(error) => view.error = Some(error),
    }
}

pub fn action(state: &mut State, action: Action) {
    let l = layout::compare(state.area());
    let (list_rows, pane_rows) = (usize::from(l.list.height), usize::from(l.panes[0].height));
    let Some(view) = state.compare.view.as_mut() else {
        state.screen = Screen::Run;
        return;
    };
    let mut cursor = view.cursor;
    if list::navigate(&mut cursor, action, view.pairs().len(), list_rows) {
        view.select(cursor.selected);
        return;
    }
    let page = pane_rows.saturating_sub(2).max(1);
    let scrolls = matches!(
        action,
        Action::ScrollDown | Action::ScrollPageDown | Action::ScrollBottom
    );
    match action {
        Action::Back => state.screen = view.back,
        Action::NextDivergence | Action::PreviousDivergence => {
            let forward = action == Action::NextDivergence;
            match view.find_divergence(forward) {
                Some(position) => view.select(position),
                None => {
                    let which = if forward { "after" } else { "before" };
                    state.notice = Some(Notice::info(format!("no divergence {which} this one")));
                }
            }
        }
        Action::TogglePatches => {
            view.patches = !view.patches;
            view.scroll = 0;
        }
        Action::ScrollDown => view.scroll = view.scroll.saturating_add(1),
        Action::ScrollUp => view.scroll = view.scroll.saturating_sub(1),
        Action::ScrollPageDown => view.scroll = view.scroll.saturating_add(page),
        Action::ScrollPageUp => view.scroll = view.scroll.saturating_sub(page),
        Action::ScrollTop => view.scroll = 0,
        Action::ScrollBottom => view.scroll = usize::MAX,
        _ => {}
    }
    if scrolls {
        let longest = longest_pane(view, &l, &state.theme);
        view.scroll = view.scroll.min(longest.saturating_sub(pane_rows));
    }
}

/// Rows of the longer of the two panes as they are shown now.
fn longest_pane(view: &CompareView, l: &layout::CompareLayout, theme: &Theme) -> usize {
    let Some(c) = view.compared.as_ref() else {
        return 0;
    };
    let pair = view.selected_pair();
    let [wa, wb] = [l.panes[0].width, l.panes[1].width];
    let (a, b) = if view.patches {
        (
            panes::patch_pane(&c.comparison.patch_a, wa, theme, None),
            panes::patch_pane(&c.comparison.patch_b, wb, theme, None),
        )
    } else {
        (
            panes::step_pane(&c.a, pair.and_then(|p| p.a), wa, theme, None),
            panes::step_pane(&c.b, pair.and_then(|p| p.b), wb, theme, None),
        )
    };
    a.len().max(b.len())
}

/// Keeps the pair list's selection visible.
pub fn settle(state: &mut State) {
    let rows = usize::from(layout::compare(state.area()).list.height);
    if let Some(view) = state.compare.view.as_mut() {
        let len = view.pairs().len();
        view.cursor.settle(len, rows);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{notice, press, run, send, summary, trajectory};
    use crate::tui::effect::Effect;
    use crate::tui::msg::{FileOutcome, Msg};
    use crate::tui::state::Screen;
    use crate::tui::state::compare::{CompareWith, Compared};
    use std::sync::Arc;

    fn load_request(effects: &[Effect]) -> Option<(u64, String, CompareWith)> {
        effects.iter().find_map(|e| match e {
            Effect::LoadCompare { id, a, b } => {
                Some((*id, a.path.display().to_string(), b.clone()))
            }
            _ => None,
        })
    }

    #[test]
    fn mark_then_compare_loads_both_and_opens_at_the_first_divergence() {
        let mut state = run();
        press(&mut state, "v");
        assert_eq!(state.compare.marked.len(), 1);
        assert!(state.notice.as_ref().unwrap().text.contains("marked a"));
        let effects = press(&mut state, "jc");
        let (id, a, b) = load_request(&effects).expect("a comparison is loaded");
        assert_eq!(a, "run/a.traj");
        assert!(matches!(b, CompareWith::Trajectory(r) if r.path.to_str() == Some("run/b.traj")));
        assert_eq!(state.screen, Screen::Compare);
        assert!(state.compare.marked.is_empty(), "marks are used up");

        // Steps 1-3 the same, then b goes another way.
        let a = trajectory("run/a.traj", 6, 1);
        let mut b = trajectory("run/b.traj", 6, 1);
        b.steps[3].action = "something else entirely".into();
        b.steps[4].action = "and more".into();
        let compared = Arc::new(Compared::new(a, b));
        let first = compared.comparison.pairs.iter().position(|p| !p.same);
        send(
            &mut state,
            Msg::CompareLoaded {
                id,
                result: Ok(compared),
            },
        );
        let view = state.compare.view.as_ref().unwrap();
        assert_eq!(Some(view.cursor.selected), first);
        assert!(first.is_some_and(|f| f >= 3), "{first:?}");
        press(&mut state, "g");
        assert_eq!(state.compare.view.as_ref().unwrap().cursor.selected, 0);
        press(&mut state, "n");
        assert_eq!(
            Some(state.compare.view.as_ref().unwrap().cursor.selected),
            first,
            "n jumps to the divergence"
        );
        press(&mut state, "Gn");
        assert!(
            notice(&state).contains("no divergence after"),
            "{}",
            notice(&state)
        );
        press(&mut state, "p");
        assert!(state.compare.view.as_ref().unwrap().patches);
        press(&mut state, "q");
        assert_eq!(state.screen, Screen::Run);
    }

    #[test]
    fn the_same_instance_in_another_root_is_found_without_marks() {
        let mut state = run();
        state.run.roots = vec!["run".into(), "other".into()];
        let mut elsewhere = summary("b", 9, 0.1, None);
        elsewhere.path = "other/b.traj".into();
        send(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: FileOutcome::Trajectories(vec![elsewhere]),
            },
        );
        // Rows sort by instance: a, b, b (other), c.
        let effects = press(&mut state, "jc");
        let (_, a, b) = load_request(&effects).expect("compared");
        assert_eq!(a, "run/b.traj");
        assert!(matches!(b, CompareWith::Trajectory(r) if r.path.to_str() == Some("other/b.traj")));
    }

    #[test]
    fn nothing_to_compare_with_says_so() {
        let mut state = run();
        let effects = press(&mut state, "c");
        assert!(load_request(&effects).is_none());
        assert_eq!(state.screen, Screen::Run);
        assert!(
            notice(&state).contains("no other trajectory of a"),
            "{}",
            notice(&state)
        );
    }

    #[test]
    fn a_fork_is_compared_with_its_original() {
        let mut state = run();
        let mut fork = summary("d", 4, 0.1, None);
        fork.format = crate::model::Format::Trajscope;
        send(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: FileOutcome::Trajectories(vec![fork]),
            },
        );
        let effects = press(&mut state, "Gc");
        let (_, a, b) = load_request(&effects).expect("compared");
        assert_eq!((a.as_str(), b), ("run/d.traj", CompareWith::ForkParent));
    }

    #[test]
    fn a_failed_comparison_says_why() {
        let mut state = run();
        let effects = press(&mut state, "vjc");
        let (id, _, _) = load_request(&effects).unwrap();
        send(
            &mut state,
            Msg::CompareLoaded {
                id,
                result: Err("run/b.traj: gone".into()),
            },
        );
        assert_eq!(
            state.compare.view.as_ref().unwrap().error.as_deref(),
            Some("run/b.traj: gone")
        );
    }
}
