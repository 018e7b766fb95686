//! The normalized trajectory model: what every loader produces and every other layer reads.
//!
//! Pure data. No I/O, no terminal, no async: `formats` fills it, `metrics`, `diff`, `tui`,
//! `replay` and `cli` read it. Step numbers are 1-based everywhere a user can see them
//! (`Step::index`, `--step N`, JSON `step` keys), because that is how agent builders count
//! ("re-run from step k").

mod format;
mod header;
mod label;
mod lazy;
mod message;
mod run;
mod shared_ids;
mod step;
mod summary;
mod trajectory;
mod usage;

pub use format::Format;
pub(crate) use header::derefs_to_header;
pub use header::{JoinTarget, TrajectoryHeader, TrajectoryKey};
pub use label::{LabelKey, labels};
pub use lazy::{LazySteps, LoadedStep, StepSource};
pub use message::{Message, Role, ToolCall};
pub use run::{EvalResults, LoadFailure, Prediction, ResultsSource, Run, normalise_model};
pub use shared_ids::SharedIds;
pub use step::{ContextMessages, Exactness, Step, StepContext, StepKind, ToolResult};
pub(crate) use step::{
    ERROR_HEAD, ERROR_MARKERS, NOT_AN_ERROR, error_marker_finder, observation_reads_as_error,
};
pub use summary::{ForkLink, TrajectorySummary, exit_shown, forced_exit};
pub use trajectory::{
    ForkOrigin, Trajectory, count_patch_lines, instance_id_from_path, patch_files,
};
pub use usage::Usage;
