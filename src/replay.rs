//! Replay: re-running an agent from a step of a recorded trajectory.
//!
//! The half that does not talk to a model: the scratch copy of the repository
//! ([`Workspace`]), the agent's conventions ([`Dialect`]), reading a model answer or a recorded
//! step as actions ([`parse_answer`], [`recorded`]), carrying actions out ([`Executor`]: bash
//! with timeouts and an output cap, native editor tools, submission, path mapping), and
//! re-running a recorded prefix with a check of every observation ([`replay_prefix`]).
//!
//! On top of it, the live half: what step k's model is sent ([`input`]), the agent loop as a
//! pure state machine ([`agent`]), the fork writer ([`fork`]), and the driver that runs a loop
//! or a resample against a `backend` ([`driver`], the only async part). No terminal, no
//! printing. Input files are only read; the user's repository is never written.
//!
//! [`session`] strings these together for one resample or one continued run, as the CLI
//! and the app both use them. The loop's use, in order:
//! 1. `Dialect::of(&trajectory)`, `detect_root(&trajectory)` (or a root the user names);
//! 2. `Executor::new(dialect, Sandbox::Isolated { workspace, launcher }, root, limits)` with
//!    bubblewrap's words ([`sandbox`]), `Sandbox::Scratch(workspace)` unprotected, or
//!    `Sandbox::Container { launcher }` for `--exec-prefix`;
//! 3. `replay_prefix(&trajectory, k, &mut executor, options, progress)` → [`PrefixReport`];
//! 4. `ForkWriter::create(&trajectory, k, origin, "continue")`, then
//!    `driver::run_live(backend, AgentLoop::new(dialect, limits, input::context_at(..)), ..)`,
//!    which parses each answer, executes it and writes the fork after every step.

mod action;
pub mod agent;
mod dialect;
pub mod driver;
pub mod edit;
mod executor;
mod files;
pub mod fork;
pub mod input;
mod normalise;
mod paths;
mod prefix;
mod recorded;
pub mod sandbox;
pub mod session;
mod shell;
pub(crate) mod template;
mod tools;
mod workspace;

pub use action::{Call, EnvAction, FormatError, from_tool_call, parse_answer, swe_command};
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
