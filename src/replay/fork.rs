//! Writing a fork: the trajectory a replay produces, saved after every step so that an
//! interrupted replay loses at most the step in flight.
//!
//! The fork is trajscope's own format (the serialised [`Trajectory`], read back by
//! `formats::trajscope`): the parent's steps before the fork point, then the live steps, each
//! with the exact context that was sent, and [`ForkOrigin`] naming the parent file and step,
//! the backend, the model and the settings. It is written next to the parent as
//! `STEM.fork-kK-N.trajscope.json`, N the first number no file uses yet. When the parent is a
//! SWE-agent or mini-swe-agent log, a copy in that agent's own shape is written too (see
//! [`native`]), in the hidden folder `.trajscope-native/` beside it so that a folder walk
//! (which skips hidden folders) counts the fork once.
//!
//! Every write goes to a temporary file in the target folder and is renamed over the target;
//! the first write of a fork refuses to replace any existing file. The parent file is never
//! opened for writing. Keys never reach a fork: the settings come from
//! `BackendConfig::settings_json`, which holds only the name of the key's variable.

mod native;

pub use native::NativeShape;

use crate::model::{Exactness, ForkOrigin, Format, Message, Step, StepContext, Trajectory, Usage};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ForkError {
    #[error("fork {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("fork {path}: cannot serialise: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("no free fork name next to {parent} (tried up to {tries})")]
    NoFreeName { parent: PathBuf, tries: usize },
}

/// One live step, as the fork records it.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveStep {
    /// The messages sent to the model, exactly (after any edit).
    pub context: Vec<Message>,
    /// The model's answer (an assistant message; may be partial after a failure).
    pub answer: Message,
    /// The messages that went back to the model after the answer (observations, a format
    /// error): the next context continues with them. Empty for a resample.
    pub replies: Vec<Message>,
    pub thought: String,
    pub action: String,
    pub observation: String,
    pub exit_code: Option<i64>,
    pub failed: bool,
    pub usage: Usage,
    pub duration_s: Option<f64>,
    /// The answer was written by hand (`--edit-answer`), not the model's.
    pub edited: bool,
}

impl LiveStep {
    /// A step that sent `context` and got `answer`, with nothing executed yet.
    pub fn new(context: Vec<Message>, answer: Message) -> LiveStep {
        LiveStep {
            context,
            answer,
            replies: Vec::new(),
            thought: String::new(),
            action: String::new(),
            observation: String::new(),
            exit_code: None,
            failed: false,
            usage: Usage::default(),
            duration_s: None,
            edited: false,
        }
    }
}

/// A fork being written.
#[derive(Debug)]
pub struct ForkWriter {
    path: PathBuf,
    native: Option<(PathBuf, NativeShape)>,
    fork: Trajectory,
    /// The live conversation so far, as ids into `fork.messages`.
    conversation: Vec<u32>,
    /// The parent's own JSON, for the native copy's configuration (`info.config`, …).
    parent_json: serde_json::Value,
}

const MAX_TRIES: usize = 10_000;

impl ForkWriter {
    /// Starts a fork of `parent` at 1-based step `step` and writes it (the parent's steps
    /// before `step`, no live step yet). `label` names the mode (`continue`, `resample`).
    pub fn create(
        parent: &Trajectory,
        step: usize,
        origin: ForkOrigin,
        label: &str,
    ) -> Result<ForkWriter, ForkError> {
        let fork = prefix_fork(parent, step, origin, label);
        let dir = parent
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let stem = stem(&parent.path);
        let shape = NativeShape::of(parent.format);
        let parent_json = if shape.is_some() {
            std::fs::read(&parent.path)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok())
                .unwrap_or(serde_json::Value::Null)
        } else {
            serde_json::Value::Null
        };
        let mut writer = ForkWriter {
            path: PathBuf::new(),
            native: None,
            fork,
            conversation: Vec::new(),
            parent_json,
        };
        for n in 1..=MAX_TRIES {
            let name = format!("{stem}.fork-k{step}-{n}");
            let path = dir.join(format!("{name}.trajscope.json"));
            let native = shape.map(|s| {
                (
                    dir.join(".trajscope-native")
                        .join(format!("{name}{}", s.extension())),
                    s,
                )
            });
            if native.as_ref().is_some_and(|(p, _)| p.exists()) {
                continue;
            }
            writer.path = path.clone();
            writer.fork.path = path.clone();
            let bytes = writer.bytes()?;
            match write_new(&path, &bytes) {
                Ok(()) => {
                    writer.native = native;
                    writer.write_native(true)?;
                    return Ok(writer);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(source) => return Err(ForkError::Io { path, source }),
            }
        }
        Err(ForkError::NoFreeName {
            parent: parent.path.clone(),
            tries: MAX_TRIES,
        })
    }

    /// The fork file (trajscope format).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The copy in the parent agent's own format, when there is one.
    pub fn native_path(&self) -> Option<&Path> {
        self.native.as_ref().map(|(p, _)| p.as_path())
    }

    /// The fork as written last.
    pub fn trajectory(&self) -> &Trajectory {
        &self.fork
    }

    /// Appends a live step and writes the fork.
    pub fn push_step(&mut self, step: LiveStep) -> Result<(), ForkError> {
        self.record(step);
        self.write()
    }

    /// Notes something about the fork (an adaptation of the request, a divergence), written
    /// with the next write.
    pub fn warn(&mut self, warning: impl Into<String>) {
        self.fork.warnings.push(warning.into());
    }

    /// Sets the live conversation before any live step (the context the first request
    /// sends) and writes the fork, so that even a run whose first request fails leaves a
    /// native copy holding the replayed prefix.
    pub fn start_conversation(&mut self, context: Vec<Message>) -> Result<(), ForkError> {
        self.conversation.clear();
        for message in context {
            let id = self.fork.push_message(message);
            self.conversation.push(id);
        }
        self.write()
    }

    /// Records why the live part ended (`status` and the reason, already free of keys):
    /// under the fork's settings (`ended`), and as a warning when it is a failure.
    pub fn record_end(&mut self, status: &str, detail: &str) {
        if let Some(settings) = self
            .fork
            .fork
            .as_mut()
            .and_then(|o| o.settings.as_object_mut())
        {
            settings.insert(
                "ended".into(),
                serde_json::json!({"status": status, "detail": detail}),
            );
        }
        if matches!(status, "BackendError" | "EnvironmentError" | "Cancelled") {
            self.warn(format!("the live run ended: {status}: {detail}"));
        }
    }

    /// Records how the run ended and writes the fork.
    pub fn finish(
        &mut self,
        exit_status: &str,
        submission: Option<String>,
    ) -> Result<(), ForkError> {
        self.fork.exit_status = Some(exit_status.to_string());
        self.fork.submission = submission;
        self.write()
    }

    fn record(&mut self, live: LiveStep) {
        // The live context usually extends the last one by the last answer and its replies;
        // only what is new goes into the pool. An edited context starts afresh.
        let known: Vec<&Message> = self
            .conversation
            .iter()
            .filter_map(|&i| self.fork.messages.get(i as usize))
            .collect();
        let extends = known.len() <= live.context.len()
            && known.iter().zip(&live.context).all(|(a, b)| *a == b);
        if !extends {
            self.conversation.clear();
        }
        for message in live.context.iter().skip(self.conversation.len()) {
            let id = self.fork.push_message(message.clone());
            self.conversation.push(id);
        }
        let context = StepContext::list(Exactness::Exact, self.conversation.clone());
        let id = self.fork.push_message(live.answer.clone());
        self.conversation.push(id);
        for reply in &live.replies {
            let id = self.fork.push_message(reply.clone());
            self.conversation.push(id);
        }
        let index = self.fork.steps.len() + 1;
        self.fork.usage.add(&live.usage);
        self.fork.steps.push(Step {
            index,
            thought: live.thought,
            action: live.action,
            tool_calls: live.answer.tool_calls.clone(),
            observation: live.observation,
            response: live.answer.content.clone(),
            exit_code: live.exit_code,
            failed: live.failed,
            usage: live.usage,
            duration_s: live.duration_s,
            context: Some(context),
            edited: live.edited,
            ..Step::default()
        });
    }

    /// The live conversation: the last context, answer and replies.
    pub fn conversation(&self) -> Vec<&Message> {
        self.conversation
            .iter()
            .filter_map(|&i| self.fork.messages.get(i as usize))
            .collect()
    }

    fn bytes(&self) -> Result<Vec<u8>, ForkError> {
        serde_json::to_vec_pretty(&self.fork).map_err(|source| ForkError::Json {
            path: self.path.clone(),
            source,
        })
    }

    fn write(&mut self) -> Result<(), ForkError> {
        let bytes = self.bytes()?;
        replace(&self.path, &bytes).map_err(|source| ForkError::Io {
            path: self.path.clone(),
            source,
        })?;
        self.write_native(false)
    }

    fn write_native(&self, first: bool) -> Result<(), ForkError> {
        let Some((path, shape)) = &self.native else {
            return Ok(());
        };
        let conversation = self.conversation();
        let value = shape.render(&self.fork, &conversation, &self.parent_json);
        let bytes = serde_json::to_vec_pretty(&value).map_err(|source| ForkError::Json {
            path: path.clone(),
            source,
        })?;
        let io = |source| ForkError::Io {
            path: path.clone(),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        if first {
            write_new(path, &bytes).map_err(io)
        } else {
            replace(path, &bytes).map_err(io)
        }
    }
}

/// The fork before any live step: the parent's steps `1..step`, their contexts copied into
/// the fork's own message pool.
fn prefix_fork(parent: &Trajectory, step: usize, origin: ForkOrigin, label: &str) -> Trajectory {
    let mut fork = Trajectory::new(parent.path.clone(), Format::Trajscope);
    fork.instance_id = parent.instance_id.clone();
    fork.format_detail = Some(format!("{label} fork of {}", parent.format.name()));
    fork.agent = parent.agent.clone();
    fork.model = origin.model.clone().or_else(|| parent.model.clone());
    fork.task = parent.task.clone();
    let mut remap: HashMap<u32, u32> = HashMap::new();
    for recorded in parent.steps.iter().take(step.saturating_sub(1)) {
        let mut copy = recorded.clone();
        if let Some(context) = &recorded.context {
            let ids: Vec<u32> = context
                .ids(&parent.messages)
                .filter_map(|id| {
                    if let Some(&new) = remap.get(&id) {
                        return Some(new);
                    }
                    let message = parent.messages.get(id as usize)?.clone();
                    let new = fork.push_message(message);
                    remap.insert(id, new);
                    Some(new)
                })
                .collect();
            copy.context = Some(StepContext::list(context.exactness, ids));
        }
        fork.usage.add(&copy.usage);
        fork.steps.push(copy);
    }
    fork.fork = Some(origin);
    fork
}

/// The parent's file name without the extensions trajectory files use.
fn stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "trajectory".into());
    for suffix in [
        ".trajscope.json",
        ".traj.json",
        ".traj",
        ".jsonl",
        ".json",
        ".txt",
        ".md",
    ] {
        if let Some(stem) = name.strip_suffix(suffix)
            && !stem.is_empty()
        {
            return stem.to_string();
        }
    }
    name
}

fn temp_in(path: &Path, bytes: &[u8]) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".trajscope-fork-").suffix(".tmp");
    // A fork is an ordinary log file, readable like the one it came from (not the 0600 of a
    // temporary file).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let mut temp = builder.tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    Ok(temp)
}

/// Writes `bytes` to `path`, which must not exist yet (`AlreadyExists` otherwise).
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    temp_in(path, bytes)?
        .persist_noclobber(path)
        .map(drop)
        .map_err(|e| e.error)
}

/// Replaces `path` (a file this writer made) with `bytes` in one rename.
fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    temp_in(path, bytes)?
        .persist(path)
        .map(drop)
        .map_err(|e| e.error)
}

#[cfg(test)]
mod tests;
