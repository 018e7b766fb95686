//! Raw Llama-3 prompt logs: the exact text a Llama agent sent to a completions endpoint,
//! `<|begin_of_text|><|start_header_id|>role<|end_header_id|>\n\n…<|eot_id|>` message after
//! message (roles `system`, `user`, `assistant`, `ipython`/`tool`). Agents such as the
//! open-source Llama 3.3 SWE-bench Lite agent save it as `<instance_id>-prompt.txt`.
//!
//! The file is what the model saw, so the context of step k (the k-th assistant message) is
//! exact: every message before it. Tool calls are read from the assistant text ([`calls`]);
//! the observation is the tool messages that follow. This module owns the message framing;
//! it does not judge whether the agent's tools succeeded beyond the `ERROR` lines it wrote.

mod calls;
mod conversation;
mod frames;

use super::LoadError;
use super::text_logs::Out;
use crate::model::{Format, Role, Trajectory};
use conversation::Conversation;
use frames::{Frames, Framing};
use std::path::Path;

const BEGIN: &str = "<|begin_of_text|>";
const HEADER_START: &str = "<|start_header_id|>";
const HEADER_END: &str = "<|end_header_id|>";
const END_OF_TURN: &str = "<|eot_id|>";
const END_OF_MESSAGE: &str = "<|eom_id|>";

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let mut framing = Framing::default();
    framing.advance(bytes, true);
    let mut conversation = Conversation::new(trajectory(path), false);
    for message in framing.done.drain(..) {
        conversation.message(message);
    }
    if conversation.framed() == 0 {
        return Err(no_message(path));
    }
    let (_, trajectory) = conversation.finish(framing.warnings());
    Ok(vec![trajectory])
}

/// A prompt log read as its bytes come, each step let go once it is final and the message
/// pool only counted: what the bounded read holds is the message being read.
pub struct Released<'a> {
    path: &'a Path,
    frames: Frames,
    conversation: Conversation,
}

impl<'a> Released<'a> {
    pub fn new(path: &'a Path) -> Released<'a> {
        Released {
            path,
            frames: Frames::default(),
            conversation: Conversation::new(trajectory(path), true),
        }
    }

    /// Takes the file's next bytes; the steps they finish go to `out`.
    pub fn chunk(&mut self, bytes: &[u8], out: &mut Vec<Out>) {
        self.frames.feed(bytes);
        self.drain(out);
    }

    fn drain(&mut self, out: &mut Vec<Out>) {
        for message in self.frames.framing.done.drain(..) {
            self.conversation.message(message);
        }
        out.extend(self.conversation.released.drain(..).map(Out::Step));
    }

    /// The file has ended: its last steps, then its trajectory, go to `out`.
    pub fn finish(mut self, out: &mut Vec<Out>) -> Result<(), LoadError> {
        self.frames.finish();
        self.drain(out);
        if self.conversation.framed() == 0 {
            return Err(no_message(self.path));
        }
        let (steps, trajectory) = self.conversation.finish(self.frames.framing.warnings());
        out.extend(steps.into_iter().map(Out::Step));
        out.push(Out::Trajectory(Box::new(trajectory)));
        Ok(())
    }
}

/// The trajectory of the log at `path`, before its messages: named after the instance.
fn trajectory(path: &Path) -> Trajectory {
    let mut trajectory = Trajectory::new(path, Format::LlamaPrompt);
    if let Some(id) = trajectory.instance_id.strip_suffix("-prompt") {
        trajectory.instance_id = id.to_string();
    }
    trajectory
}

/// The error for a log without a framed message.
fn no_message(path: &Path) -> LoadError {
    LoadError::invalid(
        path,
        "no `<|start_header_id|>role<|end_header_id|>` message in this Llama prompt log",
    )
}

fn role_of(name: &str, warnings: &mut Vec<String>) -> Role {
    Role::parse(name).unwrap_or_else(|| {
        warnings.push(format!("unknown role `{name}` read as a user message"));
        Role::User
    })
}

/// The agent's own error lines: `ERROR - File … does not exist`, `Result: ERROR - …`.
fn reports_error(content: &str) -> bool {
    content.lines().take(50).any(|line| {
        let line = line.trim_start();
        line.starts_with("ERROR") || line.starts_with("Result: ERROR")
    })
}

fn preview(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let short: String = line.chars().take(80).collect();
    if short.len() < text.len() {
        format!("{short}…")
    } else {
        short
    }
}

#[cfg(test)]
mod tests;
