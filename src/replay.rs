//! Replay, the half that does not talk to a model: the scratch copy of the repository
//! ([`Workspace`]), the agent's conventions ([`Dialect`]), reading a model answer or a recorded
//! step as actions ([`parse_answer`], [`recorded`]), carrying actions out ([`Executor`]: bash
//! with timeouts and an output cap, native editor tools, submission, path mapping), and
//! re-running a recorded prefix with a check of every observation ([`replay_prefix`]).
//!
//! It knows nothing of model backends, the terminal UI or async runtimes: the agent loop that
//! drives a live model (and the fork writer) sits on top of this layer. Input files are only
//! read; the user's repository is never written.
//!
//! The loop's use, in order:
//! 1. `Dialect::of(&trajectory)`, `detect_root(&trajectory)` (or a root the user names);
//! 2. `Executor::new(dialect, Sandbox::Scratch(Workspace::create(path)?), root, limits)`, or
//!    `Sandbox::Container { launcher }` for `--exec-prefix`;
//! 3. `replay_prefix(&trajectory, k, &mut executor, options, progress)` → [`PrefixReport`];
//! 4. per model answer: `parse_answer(executor.dialect(), &message)` → calls, or a
//!    [`FormatError`] whose message goes back to the model; `executor.execute(&call.action)`
//!    → [`Observation`] (its `submitted` ends the run).

mod action;
pub mod agent;
mod dialect;
pub mod driver;
mod executor;
mod files;
pub mod fork;
pub mod input;
mod normalise;
mod paths;
mod prefix;
mod recorded;
mod shell;
mod template;
mod tools;
mod workspace;

pub use action::{Action, Call, FormatError, from_tool_call, parse_answer, swe_command};
pub use dialect::{Agent, Dialect};
pub use executor::{ExecError, Executor, Limits, Observation, Sandbox, Support, support};
pub use normalise::{normalise, short_diff};
pub use paths::{PathMap, RootGuess, detect_root};
pub use prefix::{
    PlannedStep, PrefixOptions, PrefixReport, StepOutcome, StepReplay, environment_programs, plan,
    replay_prefix,
};
pub use recorded::{Recorded, documented_commands, recorded};
pub use shell::ShellError;
pub use tools::Generation;
pub use workspace::{CopyKind, Workspace, WorkspaceError};
