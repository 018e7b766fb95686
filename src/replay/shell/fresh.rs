//! One `bash -c` per command, started in the repository root, as mini-swe-agent runs them:
//! nothing (`cd`, variables) carries over from one command to the next.

use super::capture::{Arrival, Capped, Capture};
use super::{ShellConfig, ShellError, ShellOutput, kill_group, quote};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub struct Fresh {
    config: ShellConfig,
}

impl Fresh {
    pub fn new(config: ShellConfig) -> Fresh {
        Fresh { config }
    }

    pub fn cwd(&self) -> &str {
        &self.config.cwd
    }

    fn command(&self, script: &str) -> Command {
        if let Some((program, args)) = self.config.launcher.split_first() {
            // In a container the working directory is set by an outer shell, so that the
            // command itself still runs as `bash -c` (its error messages say `bash: line 1`).
            let mut c = Command::new(program);
            c.args(args);
            let mut outer = format!("cd {} || exit 1; ", quote(&self.config.cwd));
            for (k, v) in &self.config.env {
                outer.push_str(&format!("export {k}={}; ", quote(v)));
            }
            outer.push_str("exec bash -c \"$0\"");
            c.args(["bash", "-c", &outer, script]);
            c
        } else {
            let mut c = Command::new("bash");
            c.arg("-c").arg(script).current_dir(&self.config.cwd);
            c.envs(self.config.env.iter().map(|(k, v)| (k, v)));
            c
        }
    }

    pub fn run(
        &mut self,
        script: &str,
        timeout: Option<Duration>,
    ) -> Result<ShellOutput, ShellError> {
        let mut cmd = self.command(script);
        let (reader, writer) = std::io::pipe()?;
        cmd.stdin(Stdio::null())
            .stdout(writer.try_clone()?)
            .stderr(writer)
            .process_group(0);
        let mut child = cmd.spawn().map_err(|source| ShellError::Spawn {
            program: self
                .config
                .launcher
                .first()
                .cloned()
                .unwrap_or("bash".into()),
            source,
        })?;
        // Our copies of the write end must go, or the pipe never reaches end of file.
        drop(cmd);
        let capture = Capture::start(reader);
        let deadline = Instant::now() + timeout.unwrap_or(self.config.timeout);
        let mut out = Capped::new(self.config.output_cap);
        let mut timed_out = false;
        // Like `subprocess.run`, wait until every writer closed the pipe: a background process
        // that keeps it open holds the command until the timeout.
        loop {
            match capture.next(deadline) {
                Arrival::Chunk(chunk) => out.push(&chunk),
                Arrival::Closed => break,
                Arrival::Deadline => {
                    timed_out = true;
                    kill_group(child.id());
                    break;
                }
            }
        }
        let status = child.wait()?;
        Ok(ShellOutput {
            output: out.text(),
            exit_code: if timed_out { None } else { status.code() },
            timed_out,
            dropped_bytes: out.dropped,
        })
    }
}
