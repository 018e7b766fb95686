//! Running the agent's shell commands: each in a fresh `bash -c` in the repository root
//! (mini-swe-agent, Codex, Inspect), or all in one long-lived bash session that keeps `cd`,
//! variables and functions between commands (SWE-agent, OpenHands, Claude Code).
//!
//! Both modes merge stdout and stderr into one stream, as the agents do, stop a command at its
//! timeout by killing its whole process group, and keep at most `output_cap` bytes of output.
//! With a launcher (`docker exec -i NAME`) the shell runs inside a container the user started;
//! a timeout then kills the local client, and what it started in the container may live on.
//! The launcher is also how commands reach bubblewrap (`replay::sandbox`): without one, they
//! run with the user's rights, and containing them is not this module's business.

mod capture;
mod fresh;
mod session;

use std::time::Duration;
use thiserror::Error;

pub use fresh::Fresh;
pub use session::Session;

/// Why a command could not be run at all (as opposed to running and failing).
#[derive(Debug, Error)]
pub enum ShellError {
    #[error("could not start `{program}`: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("shell I/O failed: {0}")]
    Io(#[from] std::io::Error),
}

/// How commands run.
#[derive(Debug, Clone)]
pub struct ShellConfig {
    /// Words put before `bash`: empty to run locally, `["docker", "exec", "-i", "NAME"]` to run
    /// in a container.
    pub launcher: Vec<String>,
    /// Where commands start (the repository root, as the machine sees it).
    pub cwd: String,
    /// Extra environment variables (mini-swe-agent's `PAGER=cat` and friends).
    pub env: Vec<(String, String)>,
    pub timeout: Duration,
    pub output_cap: usize,
}

/// The variables the agents set so that tools do not page, animate or colour their output.
pub fn quiet_env() -> Vec<(String, String)> {
    [
        ("PAGER", "cat"),
        ("MANPAGER", "cat"),
        ("GIT_PAGER", "cat"),
        ("LESS", "-R"),
        ("PIP_PROGRESS_BAR", "off"),
        ("TQDM_DISABLE", "1"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// What one command did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShellOutput {
    /// stdout and stderr interleaved, lossily decoded, at most `output_cap` bytes of it.
    pub output: String,
    /// `None` when the command was killed (timeout) or the session died.
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// Bytes of output beyond the cap that were read and dropped.
    pub dropped_bytes: usize,
}

/// A way of running commands.
pub enum Shell {
    Fresh(Fresh),
    Session(Session),
}

impl Shell {
    pub fn fresh(config: ShellConfig) -> Shell {
        Shell::Fresh(Fresh::new(config))
    }

    pub fn session(config: ShellConfig) -> Result<Shell, ShellError> {
        Ok(Shell::Session(Session::start(config)?))
    }

    /// Runs `command` (a bash script, possibly several lines).
    pub fn run(&mut self, command: &str) -> Result<ShellOutput, ShellError> {
        match self {
            Shell::Fresh(f) => f.run(command, None),
            Shell::Session(s) => s.run(command, None),
        }
    }

    /// The directory the next command starts in.
    pub fn cwd(&self) -> &str {
        match self {
            Shell::Fresh(f) => f.cwd(),
            Shell::Session(s) => s.cwd(),
        }
    }
}

/// `word` quoted for bash.
pub fn quote(word: &str) -> String {
    if !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | ':' | '=' | ',')
        })
    {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Kills a process group, ignoring a group that is already gone.
fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: killpg only sends a signal; a stale pid at worst signals nothing.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests;
