//! Which steps an update brings: each step is announced new once, and again (marked
//! updated) only when a step already announced was completed since. `trajscope watch` prints
//! these; the writer tests count them.

use super::followed::{FileUpdate, FollowedFile, TrajectoryChange};
use crate::model::{Step, Trajectory};

/// One step to announce.
#[derive(Debug, Clone, Copy)]
pub struct Announced<'a> {
    /// The trajectory's position in its file (0-based).
    pub index: usize,
    pub trajectory: &'a Trajectory,
    pub step: &'a Step,
    /// Announced before, and completed since (a response whose tool result came later).
    pub updated: bool,
}

impl TrajectoryChange {
    /// For a change that brings steps: the trajectory's index, the first step (1-based) that
    /// is new or changed, and how many steps it had before (those from the first changed on
    /// are updates). `None` for a removed trajectory.
    pub fn steps_brought(&self) -> Option<(usize, usize, usize)> {
        match *self {
            TrajectoryChange::Added { index } | TrajectoryChange::Replaced { index } => {
                Some((index, 1, 0))
            }
            TrajectoryChange::Grew {
                index,
                first_changed,
                previous_steps,
            } => Some((index, first_changed, previous_steps)),
            TrajectoryChange::Removed { .. } => None,
        }
    }
}

/// The steps `update` brings, read from `file` (which must still hold its trajectories: call
/// this before [`FollowedFile::release`]).
pub fn announced<'a>(update: &FileUpdate, file: &'a FollowedFile) -> Vec<Announced<'a>> {
    let mut out = Vec::new();
    for change in &update.changes {
        let Some((index, from, shown_before)) = change.steps_brought() else {
            continue;
        };
        let Some(trajectory) = file.trajectories().get(index) else {
            continue;
        };
        for step in trajectory.steps.iter().skip(from.saturating_sub(1)) {
            out.push(Announced {
                index,
                trajectory,
                step,
                updated: step.index <= shown_before,
            });
        }
    }
    out
}
