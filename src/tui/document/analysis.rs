//! A trajectory's diffs as the diff pages need them: the working-tree reconstruction, the
//! repeated commands and the submission check. Computed once per opened trajectory, by the
//! first diff page built (off the UI thread), and shared by every later build.

use crate::diff::{
    Reconstruction, RepeatedRun, SubmissionCheck, check_submission, repeated_commands,
};
use crate::model::Trajectory;
use crate::tui::theme::{Paint, Theme};
use std::sync::{Arc, OnceLock};

use super::Writer;

#[derive(Debug)]
pub struct Analysis {
    pub reconstruction: Reconstruction,
    pub repeated: Vec<RepeatedRun>,
    pub submission: Option<SubmissionCheck>,
}

impl Analysis {
    /// Linear in the trajectory's size, but it diffs whole files: never on the UI thread.
    pub fn of(trajectory: &Trajectory) -> Analysis {
        let reconstruction = Reconstruction::of(trajectory);
        let submission = check_submission(trajectory, &reconstruction);
        Analysis {
            repeated: repeated_commands(trajectory),
            reconstruction,
            submission,
        }
    }

    /// The re-run of an earlier command at step `step`, if it is one.
    pub fn repeated_at(&self, step: usize) -> Option<&RepeatedRun> {
        self.repeated.iter().find(|r| r.step == step)
    }
}

/// Set once by whichever build gets there first; the rest wait for it or read it.
pub type AnalysisCell = Arc<OnceLock<Analysis>>;

/// What the preview shows before the analysis exists.
pub fn computing(w: &mut Writer, theme: &Theme) {
    w.text(
        "Working out what each step changed…",
        theme.style(Paint::Dim),
    );
}
