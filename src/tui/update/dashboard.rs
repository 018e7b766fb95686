//! The failure-mode dashboard: opening it, moving through the rules and the steps behind
//! the selected one, opening a trajectory at such a step; and keeping its lists in step with
//! the tally as files load and labels change.

use super::{list, opening};
use crate::metrics::RowKind;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::layout;
use crate::tui::state::dashboard::{Focus, HitRow};
use crate::tui::state::{Notice, Screen, State};
use ratatui::layout::{Position, Rect};

pub fn open(state: &mut State) {
    state.screen = Screen::Dashboard;
    state.overlay = None;
    sync(state);
}

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let l = layout::dashboard(state.area(), state.dashboard.rows.len());
    let d = &mut state.dashboard;
    let moved = match d.focus {
        Focus::Rules => list::navigate(&mut d.cursor, action, d.rows.len(), l.rules.height.into()),
        Focus::Hits => list::navigate(
            &mut d.hits_cursor,
            action,
            d.hits.len(),
            l.hits.height.into(),
        ),
    };
    if moved {
        sync(state);
        return;
    }
    match (action, d.focus) {
        (Action::Back, Focus::Hits) => d.focus = Focus::Rules,
        (Action::Back, Focus::Rules) => state.screen = Screen::Run,
        (Action::SwitchPane, Focus::Rules) | (Action::Open, Focus::Rules) => {
            if d.hits.is_empty() {
                let name = d.selected_row().map_or("", |r| r.name.as_str());
                state.notice = Some(Notice::info(format!("no step matched {name}")));
            } else {
                d.focus = Focus::Hits;
            }
        }
        (Action::SwitchPane, Focus::Hits) => d.focus = Focus::Rules,
        (Action::Open, Focus::Hits) => open_hit(state, fx),
        _ => {}
    }
}

/// Opens the trajectory of the selected hit at its step.
fn open_hit(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(hit) = state.dashboard.selected_hit().cloned() else {
        return;
    };
    let Some(t) = state.metrics.tally.trajectory(hit.trajectory) else {
        return;
    };
    let row = state
        .run
        .rows
        .iter()
        .position(|r| r.path == t.path && r.source_index == t.source_index);
    let Some(row) = row else {
        state.notice = Some(Notice::error(format!(
            "{} is not in the run table",
            t.display_source()
        )));
        return;
    };
    opening::open(state, row, Some(hit.step), fx);
    state.dashboard.opened = state.trajectory.as_ref().map(|t| t.id);
}

/// The wheel moves the selection of the list under the pointer.
pub fn wheel(state: &mut State, at: Position, delta: isize) {
    let l = layout::dashboard(state.area(), state.dashboard.rows.len());
    let d = &mut state.dashboard;
    if l.hits.contains(at) {
        d.hits_cursor.move_by(delta, d.hits.len());
    } else {
        d.cursor.move_by(delta, d.rows.len());
    }
    sync(state);
}

/// A click selects a row; a click on the selected row opens it (its steps, or the step).
pub fn click(state: &mut State, at: Position, fx: &mut Vec<Effect>) {
    let l = layout::dashboard(state.area(), state.dashboard.rows.len());
    let d = &mut state.dashboard;
    let y = |area: Rect| usize::from(at.y - area.y);
    if l.rules.contains(at) {
        let Some(position) = d.cursor.row_at(y(l.rules), d.rows.len()) else {
            return;
        };
        if position == d.cursor.selected && !d.hits.is_empty() {
            d.focus = Focus::Hits;
        } else {
            d.cursor.selected = position;
            d.focus = Focus::Rules;
        }
    } else if l.hits.contains(at) {
        let Some(position) = d.hits_cursor.row_at(y(l.hits), d.hits.len()) else {
            return;
        };
        let again = position == d.hits_cursor.selected && d.focus == Focus::Hits;
        d.hits_cursor.selected = position;
        d.focus = Focus::Hits;
        if again {
            open_hit(state, fx);
            return;
        }
    }
    sync(state);
}

/// Recomputes the table and the selected row's steps when the tally changed or the
/// selection moved. Cheap when nothing did; skipped while the dashboard is not shown.
pub fn sync(state: &mut State) {
    if state.screen != Screen::Dashboard {
        return;
    }
    let generation = state.metrics.generation;
    let area = state.area();
    let d = &mut state.dashboard;
    let stale = d.generation != Some(generation);
    if stale {
        let selected = d.selected_row().map(|r| (r.name.clone(), r.kind.clone()));
        d.rows = state.metrics.tally.rows();
        if let Some(selected) = selected
            && let Some(i) = d
                .rows
                .iter()
                .position(|r| (&r.name, &r.kind) == (&selected.0, &selected.1))
        {
            d.cursor.selected = i;
        }
        d.generation = Some(generation);
    }
    let l = layout::dashboard(area, d.rows.len());
    d.cursor.settle(d.rows.len(), l.rules.height.into());
    let wanted = d.selected_row().map(|r| (r.name.clone(), r.kind.clone()));
    if stale || d.hits_of != wanted {
        let tally = &state.metrics.tally;
        let mut hits: Vec<HitRow> = match &wanted {
            Some((_, RowKind::Rule(id))) => tally.hits(*id).iter().map(HitRow::of).collect(),
            Some((name, RowKind::Label)) => tally.label_hits(name).iter().map(HitRow::of).collect(),
            None => Vec::new(),
        };
        // By instance, then file, then step: the order of the run table.
        hits.sort_by(|a, b| {
            let key = |h: &HitRow| {
                tally
                    .trajectory(h.trajectory)
                    .map(|t| (&t.instance_id, &t.path, t.source_index))
            };
            key(a).cmp(&key(b)).then(a.step.cmp(&b.step))
        });
        // The same row refreshed (more files tallied): keep the selected step selected.
        let keep = (d.hits_of == wanted)
            .then(|| d.selected_hit().cloned())
            .flatten()
            .and_then(|k| hits.iter().position(|h| *h == k));
        if keep.is_none() {
            d.hits_cursor = Default::default();
        }
        d.hits = hits;
        d.hits_cursor.selected = keep.unwrap_or(0);
        d.hits_of = wanted;
        if d.hits.is_empty() {
            d.focus = Focus::Rules;
        }
    }
    d.hits_cursor.settle(d.hits.len(), l.hits.height.into());
}

#[cfg(test)]
mod tests {
    use super::super::testing::{deliver, press, run, send, trajectory};
    use crate::metrics::{RowKind, TrajectoryTally};
    use crate::tui::msg::Msg;
    use crate::tui::state::dashboard::Focus;
    use crate::tui::state::{Screen, State};

    /// The run of `testing::run`, with `a` (resolved, 12 steps) and `b` (unresolved, 40)
    /// tallied: a SyntaxError every fifth step.
    fn tallied() -> State {
        let mut state = run();
        for (name, steps, resolved) in [("a", 12, true), ("b", 40, false)] {
            let mut t = trajectory(&format!("run/{name}.traj"), steps, 3);
            t.instance_id = name.into();
            t.resolved = Some(resolved);
            let tally = TrajectoryTally::of(state.metrics.rules(), &t);
            send(&mut state, Msg::RunTallied(vec![tally]));
        }
        state
    }

    fn row<'a>(state: &'a State, name: &str) -> &'a crate::metrics::Row {
        state
            .dashboard
            .rows
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no row {name}"))
    }

    /// Moves the selection to the row named `name` with `j`.
    fn select(state: &mut State, name: &str) {
        press(state, "g");
        while state.dashboard.selected_row().map(|r| r.name.as_str()) != Some(name) {
            let before = state.dashboard.cursor.selected;
            press(state, "j");
            assert_ne!(before, state.dashboard.cursor.selected, "{name} not found");
        }
    }

    #[test]
    fn m_opens_the_tally_split_by_outcome() {
        let mut state = tallied();
        press(&mut state, "m");
        assert_eq!(state.screen, Screen::Dashboard);
        let syntax = row(&state, "syntax_error");
        // a: steps 5, 10; b: steps 5, 10, …, 40.
        assert_eq!(syntax.counts.all.steps, 2 + 8);
        assert_eq!(syntax.counts.resolved.trajectories, 1);
        assert_eq!(syntax.counts.unresolved.steps, 8);
        press(&mut state, "q");
        assert_eq!(state.screen, Screen::Run);
    }

    #[test]
    fn the_table_follows_the_tally_as_files_are_read() {
        let mut state = run();
        press(&mut state, "m");
        assert!(
            state
                .dashboard
                .rows
                .iter()
                .all(|r| r.counts.all.matches == 0)
        );
        let mut t = trajectory("run/c.traj", 5, 2);
        t.instance_id = "c".into();
        let tally = TrajectoryTally::of(state.metrics.rules(), &t);
        select(&mut state, "syntax_error");
        send(&mut state, Msg::RunTallied(vec![tally]));
        let syntax = row(&state, "syntax_error");
        assert_eq!(syntax.counts.unknown.steps, 1, "c has no verdict");
        assert_eq!(
            state.dashboard.selected_row().map(|r| r.name.as_str()),
            Some("syntax_error"),
            "the selection stays on its row"
        );
        assert_eq!(state.dashboard.hits.len(), 1, "and its steps are listed");
    }

    #[test]
    fn results_read_after_the_tally_are_joined_into_it() {
        let mut state = run();
        let mut t = trajectory("run/late.traj", 5, 2);
        t.instance_id = "late".into();
        let tally = TrajectoryTally::of(state.metrics.rules(), &t);
        send(&mut state, Msg::RunTallied(vec![tally]));
        let mut source = crate::model::ResultsSource {
            scope: "run".into(),
            ..Default::default()
        };
        source.verdicts.insert("late".into(), false);
        send(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: crate::tui::msg::FileOutcome::Results(source),
            },
        );
        press(&mut state, "m");
        assert_eq!(
            row(&state, "syntax_error").counts.unresolved.trajectories,
            1
        );
    }

    #[test]
    fn enter_lists_the_steps_and_opens_one_then_back_returns_here() {
        let mut state = tallied();
        press(&mut state, "m");
        select(&mut state, "syntax_error");
        let steps: Vec<(usize, usize)> = state
            .dashboard
            .hits
            .iter()
            .map(|h| (h.trajectory, h.step))
            .collect();
        assert_eq!(steps.len(), 10);
        assert_eq!(steps[0].1, 5, "a's steps first (by instance), in order");
        press(&mut state, "<CR>");
        assert_eq!(state.dashboard.focus, Focus::Hits);
        let effects = press(&mut state, "j<CR>");
        assert_eq!(state.screen, Screen::Trajectory);
        let t = state.trajectory.as_ref().unwrap();
        assert_eq!(t.source.path.to_str(), Some("run/a.traj"));
        assert_eq!(t.pending_step, Some(10), "opens at the second hit, step 10");
        deliver(&mut state, &effects, trajectory("run/a.traj", 12, 3));
        assert_eq!(state.trajectory.as_ref().unwrap().step_index(), Some(10));
        press(&mut state, "q");
        assert_eq!(
            state.screen,
            Screen::Dashboard,
            "back to where it was opened"
        );
        assert_eq!(state.dashboard.hits_cursor.selected, 1);
        press(&mut state, "<Esc>");
        assert_eq!(state.dashboard.focus, Focus::Rules);
        press(&mut state, "<Esc>");
        assert_eq!(state.screen, Screen::Run);
    }

    #[test]
    fn a_row_without_steps_does_not_take_the_focus() {
        let mut state = tallied();
        press(&mut state, "m");
        select(&mut state, "timeout");
        assert!(state.dashboard.hits.is_empty());
        press(&mut state, "<CR>");
        assert_eq!(state.dashboard.focus, Focus::Rules);
        assert!(
            state
                .notice
                .as_ref()
                .is_some_and(|n| n.text == "no step matched timeout")
        );
        assert!(matches!(
            state.dashboard.selected_row().map(|r| &r.kind),
            Some(RowKind::Rule(_))
        ));
        let effects = press(&mut state, "<Tab>");
        assert!(effects.is_empty());
    }
}
