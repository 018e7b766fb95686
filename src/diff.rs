//! Step-by-step diffs: what each step changed in the code (and the working tree it leaves),
//! the submitted patch against that reconstruction, what changed in the model's input,
//! repeated commands' outputs, and one run against another.
//!
//! Pure functions over the model: no printing, no terminal, no async. Every diff is a
//! structured [`FileDiff`] (files → hunks → lines with kinds, `None` for text never seen);
//! rendering is the views' job. Owns nothing of the model or the loaders, and must not
//! change them: it reads `Trajectory` as the loaders left it.
//!
//! Entry points, one per kind of diff:
//! - code: [`Reconstruction::of`] once per trajectory, then `step_edits(k)`, `files_at(k)`,
//!   `cumulative_at(k)`; [`check_submission`] for the submitted patch;
//! - context: [`context_diff`] between step k-1 and k;
//! - repeated commands: [`repeated_commands`];
//! - run against run: [`compare_runs`], with [`localization`] against a gold patch;
//! - step against the gold patch: [`gold_proximity`] (reached the fix, then lost it).

mod agreement;
mod align;
mod context;
mod dataset;
mod delta;
mod edit;
mod gold;
mod interpret;
pub(crate) mod patch;
mod paths;
mod reconstruct;
mod repeat;
pub(crate) mod sed;
pub(crate) mod shell;
mod tree;
mod unified;
mod view;

pub use agreement::{Agreement, FileAgreement, SubmissionCheck, check_submission};
pub use align::{AlignedPair, RunComparison, compare_runs, normalise_action};
pub use context::{ContextChange, ContextDiff, MessageChange, context_diff};
pub use dataset::{DatasetError, GoldPatches, Localization, localization, localize};
pub use edit::{ContextChunk, Edit, EditOp, Uninterpreted};
pub use gold::{FinalSource, GoldProximity, StepGold, gold_proximity};
// Replay reads Llama answers and command lines with the same readers.
pub use interpret::pythonic_calls;
pub use patch::{DiffLine, FileChange, FileDiff, Hunk, LineKind, parse_patch};
pub use paths::{Paths, same_file};
pub use reconstruct::{
    CumulativeChange, EditOutcome, EditStatus, FileSnapshot, Reconstruction, churn,
};
pub use repeat::{RepeatedRun, normalise_command, repeated_commands};
pub use shell::{Pipeline as ShellPipeline, parse as parse_shell};
pub use unified::diff_texts;
