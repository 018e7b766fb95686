//! One bash process for the whole replay, as SWE-agent keeps it: `cd`, variables and functions
//! persist from one command to the next.
//!
//! Each command is written to a script file through the session itself (a heredoc with a
//! random delimiter) and sourced with stdin from `/dev/null`, so that a command reading stdin
//! or an unbalanced quote cannot swallow the protocol; a sentinel line then carries the exit
//! code and the working directory. A timeout kills the session's process group and starts a
//! new session in the last known directory (variables set before are lost).

use super::capture::{Arrival, Capture};
use super::{ShellConfig, ShellError, ShellOutput, kill_group, quote};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub struct Session {
    config: ShellConfig,
    child: Child,
    stdin: ChildStdin,
    capture: Capture,
    cwd: String,
    nonce: String,
    script: String,
    /// Keeps a local script folder alive as long as the session.
    _dir: Option<tempfile::TempDir>,
}

const TAIL: usize = 1024;

impl Session {
    pub fn start(config: ShellConfig) -> Result<Session, ShellError> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let nonce = format!("{:x}{:x}", std::process::id(), nanos);
        let (dir, script) = if config.launcher.is_empty() {
            let dir = tempfile::Builder::new()
                .prefix("trajscope-shell-")
                .tempdir()?;
            let script = dir.path().join("command.sh").to_string_lossy().into_owned();
            (Some(dir), script)
        } else {
            (None, format!("/tmp/.trajscope-command-{nonce}.sh"))
        };
        let (child, stdin, capture) = spawn(&config)?;
        let mut session = Session {
            cwd: config.cwd.clone(),
            config,
            child,
            stdin,
            capture,
            nonce,
            script,
            _dir: dir,
        };
        session.prepare()?;
        Ok(session)
    }

    pub fn cwd(&self) -> &str {
        &self.cwd
    }

    /// Exports the environment and enters the start directory.
    fn prepare(&mut self) -> Result<(), ShellError> {
        let mut setup = String::new();
        for (k, v) in &self.config.env {
            setup.push_str(&format!("export {k}={}\n", quote(v)));
        }
        setup.push_str(&format!("cd {}\n", quote(&self.cwd.clone())));
        self.run(&setup, Some(Duration::from_secs(30)))?;
        Ok(())
    }

    fn restart(&mut self) -> Result<(), ShellError> {
        kill_group(self.child.id());
        let _ = self.child.wait();
        let (child, stdin, capture) = spawn(&self.config)?;
        self.child = child;
        self.stdin = stdin;
        self.capture = capture;
        self.prepare()
    }

    pub fn run(
        &mut self,
        command: &str,
        timeout: Option<Duration>,
    ) -> Result<ShellOutput, ShellError> {
        let marker = format!("__TRAJSCOPE_DONE_{}__ ", self.nonce);
        let delimiter = format!("__TRAJSCOPE_EOF_{}__", self.nonce);
        let mut body = command.to_string();
        if !body.ends_with('\n') {
            body.push('\n');
        }
        let wrapper = format!(
            "cat > {script} <<'{delimiter}'\n{body}{delimiter}\n. {script} < /dev/null\n__ts_rc=$?\nprintf '\\n{marker}%d %s\\n' \"$__ts_rc\" \"$PWD\"\n",
            script = quote(&self.script),
        );
        if self.stdin.write_all(wrapper.as_bytes()).is_err() || self.stdin.flush().is_err() {
            self.restart()?;
            return Ok(died("the shell session had ended; a new one was started"));
        }
        let deadline = Instant::now() + timeout.unwrap_or(self.config.timeout);
        let mut kept: Vec<u8> = Vec::new();
        let mut tail: Vec<u8> = Vec::new();
        let mut stream_len = 0usize;
        loop {
            match self.capture.next(deadline) {
                Arrival::Chunk(chunk) => {
                    stream_len += chunk.len();
                    let room = self.config.output_cap.saturating_sub(kept.len());
                    kept.extend_from_slice(&chunk[..room.min(chunk.len())]);
                    tail.extend_from_slice(&chunk);
                    if tail.len() > TAIL {
                        tail.drain(..tail.len() - TAIL);
                    }
                    if let Some(done) = self.finished(&marker, &kept, &tail, stream_len) {
                        return Ok(done);
                    }
                }
                Arrival::Closed => {
                    let code = self.child.wait().ok().and_then(|s| s.code());
                    let mut out = self.output(&kept, stream_len, None);
                    out.exit_code = code;
                    self.restart()?;
                    return Ok(out);
                }
                Arrival::Deadline => {
                    let mut out = self.output(&kept, stream_len, None);
                    out.timed_out = true;
                    out.exit_code = None;
                    self.restart()?;
                    return Ok(out);
                }
            }
        }
    }

    /// The result once the sentinel line is complete in `tail`.
    fn finished(
        &mut self,
        marker: &str,
        kept: &[u8],
        tail: &[u8],
        stream_len: usize,
    ) -> Option<ShellOutput> {
        let at = find(tail, marker.as_bytes())?;
        let line_end = at + tail[at..].iter().position(|&b| b == b'\n')?;
        let line = String::from_utf8_lossy(&tail[at + marker.len()..line_end]).into_owned();
        let (code, cwd) = line.split_once(' ').unwrap_or((&line, ""));
        // The sentinel's own leading newline is not the command's output.
        let start = stream_len - tail.len() + at;
        let mut out = self.output(kept, start.saturating_sub(1), None);
        out.exit_code = code.trim().parse().ok();
        if !cwd.is_empty() {
            self.cwd = cwd.to_string();
        }
        Some(out)
    }

    /// The command's output: the first `len` bytes of the stream, as far as they were kept.
    fn output(&self, kept: &[u8], len: usize, code: Option<i32>) -> ShellOutput {
        let shown = len.min(kept.len());
        let mut text = String::from_utf8_lossy(&kept[..shown]).into_owned();
        // Errors name the script file; the agents' shells say `bash`.
        text = text.replace(&format!("{}: ", self.script), "bash: ");
        let dropped = len - shown;
        if dropped > 0 {
            text.push_str(&format!(
                "\n[trajscope: {dropped} more bytes of output were dropped (output cap {} bytes)]\n",
                self.config.output_cap
            ));
        }
        ShellOutput {
            output: text,
            exit_code: code,
            timed_out: false,
            dropped_bytes: dropped,
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        kill_group(self.child.id());
        let _ = self.child.wait();
    }
}

fn died(why: &str) -> ShellOutput {
    ShellOutput {
        output: format!("[trajscope: {why}]"),
        ..ShellOutput::default()
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn spawn(config: &ShellConfig) -> Result<(Child, ChildStdin, Capture), ShellError> {
    let mut cmd = match config.launcher.split_first() {
        Some((program, args)) => {
            let mut c = Command::new(program);
            c.args(args).args(["bash", "--norc", "--noprofile"]);
            c
        }
        None => {
            let mut c = Command::new("bash");
            c.args(["--norc", "--noprofile"]).current_dir(&config.cwd);
            c
        }
    };
    let (reader, writer) = std::io::pipe()?;
    cmd.stdin(Stdio::piped())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .process_group(0);
    let mut child = cmd.spawn().map_err(|source| ShellError::Spawn {
        program: config.launcher.first().cloned().unwrap_or("bash".into()),
        source,
    })?;
    drop(cmd);
    let stdin = child.stdin.take().ok_or_else(|| {
        ShellError::Io(std::io::Error::other("the shell's stdin was not captured"))
    })?;
    Ok((child, stdin, Capture::start(reader)))
}
