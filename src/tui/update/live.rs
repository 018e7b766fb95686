//! The live watch's reports: rows of the run replaced in place as their files change, new
//! files becoming new rows, trajectories still being written marked, alerts flagged; the
//! open trajectory refreshed with follow mode (the cursor stays on the newest step while it
//! is on the last one; otherwise new steps are only announced). `F` toggles follow.

use super::opening;
use crate::tui::effect::Effect;
use crate::tui::msg::{LiveFile, LiveMsg, Msg};
use crate::tui::state::live::{LiveKey, QUIET_AFTER};
use crate::tui::state::trajectory::LoadedTrajectory;
use crate::tui::state::{Notice, Screen, State};
use std::path::Path;
use std::sync::Arc;

pub fn message(state: &mut State, msg: LiveMsg, fx: &mut Vec<Effect>) {
    match msg {
        LiveMsg::Started { polling } => {
            state.live.active = true;
            state.live.stopped = None;
            state.live.polling = polling;
        }
        LiveMsg::Stopped(reason) => {
            state.live.active = false;
            state.notice = Some(Notice::error(format!("live watch stopped: {reason}")));
            state.live.stopped = Some(reason);
        }
        LiveMsg::File(file) => file_changed(state, file, fx),
        LiveMsg::Quiet { key, change } => {
            if state.live.running.get(&key) == Some(&change) {
                state.live.running.remove(&key);
            }
        }
    }
}

/// Whether rows of `path` come from the live watch: the initial load's (older) reading of
/// the same file must not replace them.
pub fn owns(state: &State, path: &Path) -> bool {
    state.live.files.contains(path)
}

fn file_changed(state: &mut State, file: LiveFile, fx: &mut Vec<Effect>) {
    let LiveFile {
        path,
        trajectories,
        removed,
    } = file;
    state.live.files.insert(path.clone());
    if !removed {
        state.run.failures.retain(|f| f.path != path);
    }
    let open = state
        .trajectory
        .as_ref()
        .map(|t| t.source.clone())
        .filter(|s| s.path == path);
    let mut kept: Vec<Option<usize>> = Vec::new();
    let mut fired = Vec::new();
    let mut open_update = None;
    let mut tallies = Vec::with_capacity(trajectories.len());
    for live in trajectories {
        tallies.push(live.tally);
        let mut summary = live.summary;
        let run: Vec<&Path> = state.run.rows.iter().map(|r| r.path.as_path()).collect();
        state
            .run
            .results
            .apply_among(std::slice::from_mut(&mut summary), &run);
        let index = summary.source_index;
        let key: LiveKey = (path.clone(), index);
        kept.push(index);
        let existing = state
            .run
            .rows
            .iter()
            .position(|r| r.path == path && r.source_index == index);
        let changed = match existing {
            Some(row) => {
                let changed = state.run.rows[row] != summary;
                state.run.rows[row] = summary.clone();
                changed
            }
            None => {
                state.run.rows.push(summary.clone());
                true
            }
        };
        if summary.exit_status.is_some() {
            state.live.running.remove(&key);
        } else if changed {
            state.live.changes += 1;
            let change = state.live.changes;
            state.live.running.insert(key.clone(), change);
            fx.push(Effect::Later {
                after: QUIET_AFTER,
                msg: Box::new(Msg::Live(LiveMsg::Quiet {
                    key: key.clone(),
                    change,
                })),
            });
        }
        for firing in live.alerts {
            fired.push((summary.instance_id.clone(), firing.clone()));
            state
                .live
                .alerts
                .entry(key.clone())
                .or_default()
                .push(firing);
        }
        if open.as_ref().is_some_and(|s| s.index == index) {
            open_update = Some(live.loaded);
        }
    }
    let gone =
        |r: &crate::model::TrajectorySummary| r.path == path && !kept.contains(&r.source_index);
    if state.run.rows.iter().any(gone) {
        state.run.rows.retain(|r| !gone(r));
        state
            .live
            .running
            .retain(|(p, i), _| p != &path || kept.contains(i));
        state
            .live
            .alerts
            .retain(|(p, i), _| p != &path || kept.contains(i));
    }
    renumber_open_row(state);
    state.run.refresh();
    retally(state, &path, &kept, tallies);

    if let Some(loaded) = open_update {
        refresh_open(state, &loaded, fx);
    }
    if let Some((instance, firing)) = fired.last() {
        let more = if fired.len() > 1 {
            format!(" (+{} more)", fired.len() - 1)
        } else {
            String::new()
        };
        state.notice = Some(Notice::error(format!(
            "⚠ alert {} at step {} of {instance}{more}",
            firing.rule, firing.step
        )));
    }
    if state.open_single && state.trajectory.is_none() && state.run.rows.len() == 1 {
        opening::open(state, 0, None, fx);
    }
}

/// The file's trajectories counted anew on the dashboard: their tallies replace the earlier
/// ones (the load's, or the last change's), and those the file no longer holds are dropped,
/// so that every count grows with the steps and ends where `stats` on the file would.
fn retally(
    state: &mut State,
    path: &Path,
    kept: &[Option<usize>],
    tallies: Vec<crate::metrics::TrajectoryTally>,
) {
    let gone: Vec<crate::metrics::TrajectoryKey> = state
        .metrics
        .tally
        .trajectories()
        .iter()
        .filter(|t| t.path == path && !kept.contains(&t.source_index))
        .map(|t| t.key().clone())
        .collect();
    for key in &gone {
        state.metrics.tally.remove(key);
    }
    // As the load's tallies arrive: results joined, labels counted again, views told.
    super::metrics::tallied(state, tallies);
}

/// Rows moved when others were removed: the open trajectory's row is found again.
fn renumber_open_row(state: &mut State) {
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    t.row = state.run.row_of(&t.source);
}

/// The open trajectory grew or was rewritten: show the new version, keeping the selected
/// step, or following the newest.
fn refresh_open(state: &mut State, loaded: &Arc<LoadedTrajectory>, fx: &mut Vec<Effect>) {
    let id = state.next_id();
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    let before = t.steps.len();
    let was_loaded = t.trajectory.is_some();
    let on_last = t.cursor.selected + 1 >= before;
    // A new id: documents built for the old version (a step that was completed since, the
    // patch) are not reused.
    t.id = id;
    opening::loaded(state, id, Ok(Box::new(LoadedTrajectory::clone(loaded))), fx);
    let follow = state.live.follow;
    let Some(t) = state.trajectory.as_mut() else {
        return;
    };
    let after = t.steps.len();
    if !was_loaded || after <= before {
        return;
    }
    if follow && on_last {
        t.select(after - 1);
    } else {
        let source = t.source.clone();
        let live = &mut state.live;
        if live.unseen_in.as_ref() != Some(&source) {
            live.unseen = 0;
            live.unseen_in = Some(source);
        }
        live.unseen += after - before;
    }
}

/// Steps below the cursor that arrived while it was not following.
pub fn unseen_steps(state: &State) -> usize {
    let Some(t) = state.trajectory.as_ref() else {
        return 0;
    };
    if state.live.unseen_in.as_ref() != Some(&t.source) {
        return 0;
    }
    let below = t.steps.len().saturating_sub(t.cursor.selected + 1);
    state.live.unseen.min(below)
}

/// `F`: follow on (jumping to the newest step) or off.
pub fn toggle_follow(state: &mut State) {
    state.live.follow = !state.live.follow;
    state.live.unseen = 0;
    if state.live.follow {
        if let Some(t) = state
            .trajectory
            .as_mut()
            .filter(|_| state.screen == Screen::Trajectory)
            && !t.steps.is_empty()
        {
            t.select(t.steps.len() - 1);
        }
        state.notice = Some(Notice::info(
            "follow on: the newest step stays selected as steps arrive",
        ));
    } else {
        state.notice = Some(Notice::info(
            "follow off: new steps are counted in the status bar",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{opened, press, run, send, trajectory};
    use super::QUIET_AFTER;
    use crate::metrics::Firing;
    use crate::model::{Trajectory, TrajectorySummary};
    use crate::tui::effect::Effect;
    use crate::tui::msg::{LiveFile, LiveMsg, LiveTrajectory, Msg};
    use crate::tui::state::State;
    use crate::tui::state::live::LiveKey;
    use crate::tui::state::trajectory::LoadedTrajectory;
    use std::path::PathBuf;
    use std::sync::Arc;

    fn live(t: Trajectory, alerts: Vec<Firing>) -> LiveTrajectory {
        let (rules, _) = crate::metrics::Matcher::new(crate::metrics::RuleSet::defaults().rules);
        LiveTrajectory {
            summary: TrajectorySummary::of(&t),
            tally: crate::metrics::TrajectoryTally::of(&rules, &t),
            loaded: Arc::new(LoadedTrajectory::new(t)),
            alerts,
        }
    }

    fn file(path: &str, trajectories: Vec<LiveTrajectory>) -> Msg {
        Msg::Live(LiveMsg::File(LiveFile {
            path: PathBuf::from(path),
            trajectories,
            removed: false,
        }))
    }

    /// `a` as the agent has written it so far: `n` steps, no exit status yet.
    fn a_growing(n: usize) -> Trajectory {
        let mut t = trajectory("run/a.traj", n, 3);
        t.instance_id = "a".into();
        t
    }

    fn selected(state: &State) -> Option<usize> {
        state.trajectory.as_ref().and_then(|t| t.step_index())
    }

    #[test]
    fn on_the_last_step_the_cursor_follows_the_newest() {
        let (mut state, _) = opened(5, 3);
        press(&mut state, "G");
        assert_eq!(selected(&state), Some(5));
        send(
            &mut state,
            file("run/a.traj", vec![live(a_growing(7), vec![])]),
        );
        assert_eq!(selected(&state), Some(7));
        assert_eq!(super::unseen_steps(&state), 0);
        let t = state.trajectory.as_ref().unwrap();
        assert_eq!(t.steps.len(), 7);
        assert_eq!(t.trajectory.as_ref().unwrap().steps.len(), 7);
    }

    #[test]
    fn scrolled_up_the_view_stays_and_new_steps_are_counted() {
        let (mut state, _) = opened(5, 3);
        press(&mut state, "G");
        press(&mut state, "kk");
        assert_eq!(selected(&state), Some(3));
        send(
            &mut state,
            file("run/a.traj", vec![live(a_growing(6), vec![])]),
        );
        send(
            &mut state,
            file("run/a.traj", vec![live(a_growing(8), vec![])]),
        );
        assert_eq!(selected(&state), Some(3), "the view does not move");
        assert_eq!(super::unseen_steps(&state), 3);
        // Moving down past them uses them up.
        press(&mut state, "jjjj");
        assert_eq!(super::unseen_steps(&state), 1);
        press(&mut state, "G");
        assert_eq!(super::unseen_steps(&state), 0);
    }

    #[test]
    fn f_turns_follow_off_and_on() {
        let (mut state, _) = opened(5, 3);
        press(&mut state, "G");
        press(&mut state, "F");
        assert!(!state.live.follow);
        send(
            &mut state,
            file("run/a.traj", vec![live(a_growing(6), vec![])]),
        );
        assert_eq!(selected(&state), Some(5), "not following");
        assert_eq!(super::unseen_steps(&state), 1);
        press(&mut state, "F");
        assert!(state.live.follow);
        assert_eq!(
            selected(&state),
            Some(6),
            "follow on jumps to the newest step"
        );
        send(
            &mut state,
            file("run/a.traj", vec![live(a_growing(9), vec![])]),
        );
        assert_eq!(selected(&state), Some(9));
    }

    #[test]
    fn steps_already_shown_are_kept_when_the_file_is_caught_mid_write() {
        // The watch sends nothing for a torn read; a shorter rewrite (history changed) is
        // shown as it is, with the cursor kept inside it.
        let (mut state, _) = opened(5, 3);
        press(&mut state, "G");
        send(
            &mut state,
            file("run/a.traj", vec![live(a_growing(3), vec![])]),
        );
        let t = state.trajectory.as_ref().unwrap();
        assert_eq!(t.steps.len(), 3);
        assert_eq!(selected(&state), Some(3));
    }

    /// The quiet timer of each change, from the effects of one update.
    fn quiet_timers(effects: &[Effect]) -> Vec<(LiveKey, u64)> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Later { after, msg } => {
                    assert_eq!(*after, QUIET_AFTER);
                    match &**msg {
                        Msg::Live(LiveMsg::Quiet { key, change }) => Some((key.clone(), *change)),
                        other => panic!("unexpected timer {other:?}"),
                    }
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_trajectory_quiet_since_its_last_change_is_no_longer_running() {
        // Formats such as Claude Code never write an exit status: quiet ends the mark.
        let mut state = run();
        let key = (PathBuf::from("run/a.traj"), None);
        let first = quiet_timers(&send(
            &mut state,
            file("run/a.traj", vec![live(a_growing(3), vec![])]),
        ));
        assert_eq!(first.len(), 1);
        let second = quiet_timers(&send(
            &mut state,
            file("run/a.traj", vec![live(a_growing(4), vec![])]),
        ));
        assert_eq!(second.len(), 1);
        assert!(second[0].1 > first[0].1);
        // The first change's timer fires: a later change came, so it is still running.
        let (k, change) = first[0].clone();
        send(&mut state, Msg::Live(LiveMsg::Quiet { key: k, change }));
        assert!(state.live.is_running(&key));
        // The last change's timer fires with nothing after it: no longer running.
        let (k, change) = second[0].clone();
        send(&mut state, Msg::Live(LiveMsg::Quiet { key: k, change }));
        assert!(!state.live.is_running(&key));
        // A report with nothing new sets no timer and does not mark it again.
        let same = send(
            &mut state,
            file("run/a.traj", vec![live(a_growing(4), vec![])]),
        );
        assert!(quiet_timers(&same).is_empty());
        assert!(!state.live.is_running(&key));
    }

    #[test]
    fn rows_update_in_place_new_files_appear_and_running_is_marked() {
        let mut state = run();
        let rows = state.run.rows.len();
        // `a` grows (no exit status yet): same row, new numbers, marked running.
        send(
            &mut state,
            file("run/a.traj", vec![live(a_growing(20), vec![])]),
        );
        assert_eq!(state.run.rows.len(), rows);
        let a = state
            .run
            .rows
            .iter()
            .find(|r| r.instance_id == "a")
            .unwrap();
        assert_eq!(a.steps, 20);
        assert_eq!(a.resolved, None, "no eval result joined for it");
        let key = (PathBuf::from("run/a.traj"), None);
        assert!(state.live.is_running(&key));
        assert_eq!(state.run.totals.steps, 20 + 40 + 7, "totals follow");

        // A new file: a new row.
        let mut d = trajectory("run/d.traj", 2, 1);
        d.instance_id = "d".into();
        send(&mut state, file("run/d.traj", vec![live(d, vec![])]));
        assert_eq!(state.run.rows.len(), rows + 1);
        assert!(state.live.is_running(&(PathBuf::from("run/d.traj"), None)));

        // `a` finishes: no longer running.
        let mut done = a_growing(21);
        done.exit_status = Some("submitted".into());
        send(&mut state, file("run/a.traj", vec![live(done, vec![])]));
        assert!(!state.live.is_running(&key));

        // The initial load's older reading of a live file is ignored.
        send(
            &mut state,
            Msg::RunFile {
                bytes: 1,
                outcome: crate::tui::msg::FileOutcome::Trajectories(vec![
                    super::super::testing::summary("d", 1, 0.0, None),
                ]),
            },
        );
        assert_eq!(state.run.rows.len(), rows + 1);

        // Removed: its row goes.
        send(
            &mut state,
            Msg::Live(LiveMsg::File(LiveFile {
                path: PathBuf::from("run/d.traj"),
                trajectories: Vec::new(),
                removed: true,
            })),
        );
        assert_eq!(state.run.rows.len(), rows);
    }

    #[test]
    fn an_alert_flags_the_row_and_the_status_bar() {
        let mut state = run();
        let firing = Firing {
            rule: "syntax_errors_in_a_row".into(),
            description: String::new(),
            step: 15,
        };
        send(
            &mut state,
            file("run/a.traj", vec![live(a_growing(15), vec![firing])]),
        );
        let key = (PathBuf::from("run/a.traj"), None);
        assert_eq!(state.live.alerts_of(&key).len(), 1);
        let notice = state.notice.as_ref().unwrap();
        assert!(notice.error);
        assert_eq!(
            notice.text,
            "⚠ alert syntax_errors_in_a_row at step 15 of a"
        );
    }

    #[test]
    fn polling_is_remembered_for_the_status_bar() {
        let mut state = run();
        send(
            &mut state,
            Msg::Live(LiveMsg::Started {
                polling: Some("/mnt/x is on a network filesystem".into()),
            }),
        );
        assert!(state.live.active);
        assert!(state.live.polling.is_some());
    }
}
