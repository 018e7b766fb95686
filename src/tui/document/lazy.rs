//! What the per-step pages say of a trajectory opened lazily (a file too big to hold whole):
//! while its step is read from the file, when that fails, and where diffs are not offered.

use super::Writer;
use crate::model::Trajectory;
use crate::tui::theme::{Paint, Theme};
use crate::tui::units::bytes;

/// Shown for the instant while the step is read back from the file.
pub fn reading(w: &mut Writer, theme: &Theme, step: usize) {
    w.text(
        &format!("Reading step {step} from the file…"),
        theme.style(Paint::Dim),
    );
}

/// The step could not be read back (the file changed or went away).
pub fn failed(w: &mut Writer, theme: &Theme, message: &str) {
    w.text(message, theme.style(Paint::StepError));
}

/// Diffs replay every step in memory: not for a file opened lazily. Says what to run instead.
pub fn no_diffs(w: &mut Writer, theme: &Theme, size: u64, trajectory: &Trajectory, step: usize) {
    w.text(
        &format!(
            "This trajectory ({}) was opened lazily: its steps are read from the file one at \
             a time, and the diffs need them all in memory.",
            bytes(size)
        ),
        theme.style(Paint::Dim),
    );
    w.blank();
    w.text(
        &format!(
            "trajscope show {} --step {step} --diff",
            trajectory.path.display()
        ),
        theme.style(Paint::Dim),
    );
}
