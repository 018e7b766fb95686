//! Reading a JSON or JSON Lines file of any format in bounded memory. The file is sniffed
//! from its first bytes, then read once in chunks through [`slim::Slimmer`], which keeps its
//! structure and short strings and leaves, for each long string, a placeholder naming its
//! bytes. The format's own reader parses that slim text, so every format (Claude Code,
//! Codex and the other JSON Lines logs, OpenHands event lists, chat messages, …) is read by
//! the code that reads it whole, with the same steps, numbering, contexts and warnings.
//!
//! The trajectory then keeps its slim steps and message pool, packed ([`packed`]; a record
//! reader's steps packed as it lets each go), behind a
//! [`crate::model::StepSource`]: a step is shown with its strings read back from the file
//! ([`inflate`]), after checking the file is the one that was read. What this leaves out, by
//! design: a walk over the steps ([`Trajectory::visit_steps`], search, tallies) reads each
//! step's strings but not the messages of its context; a step's context is read back up to
//! [`CONTEXT_CAP`] bytes, the oldest messages past it as previews; and a string a reader
//! cuts or rewrites (a title from the first prompt) is shown as far as it was read.

mod append;
mod inflate;
mod packed;
mod part;
mod records;
mod slim;
mod traces;
mod visit;

pub use append::AppendedLog;
pub use part::{Part, Progress};
pub use traces::{trace_at, trace_summaries, visit_traces};
pub use visit::{StepAt, step_at, summaries, visit};

use super::load::{Loaded, load_bytes_with};
use super::task::{cut_at_close, task_from_prompt};
use super::{Detail, LoadError};
use crate::model::{Format, LazySteps, LoadedStep, Message, Step, StepSource, Trajectory};
use inflate::Inflater;
use packed::{PackedPool, PackedSteps};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// String literals longer than this (quotes included) are left in the file.
pub const SLIM_ABOVE: usize = 512;
/// Formats whose readers look inside long texts (mini-swe-agent takes the action from the
/// middle of the model's answer and the exit code from the observation's markup) or match
/// them against each other (SWE-agent finds each step's answer in `history` by its action,
/// Inspect matches model events to the sample's messages): placeholders would change what
/// they read, so these are read as before (SWE-agent files this big open through their own
/// scan), unless their record reader reads each record back whole ([`WHOLE_RECORDS`]).
const COMPARES_TEXTS: &[Format] = &[Format::SweAgent, Format::MiniSweAgent, Format::InspectAi];
/// Formats among [`COMPARES_TEXTS`] whose record reader reads each record back whole
/// before reading it (mini-swe-agent's messages, [`records`]): read that way, they are
/// indexed as the others are.
const WHOLE_RECORDS: &[Format] = &[Format::MiniSweAgent];
/// Formats where a later record may still change a step that is not the last one read (a
/// Codex token count goes to the model step it follows, a Kimi cancellation or a chat
/// log's tool answer to a step before the latest): the start of such a file does not hold
/// its first steps as the whole file has them, so a part of it gives only the steps the
/// reader has let go, which no later record changes ([`open_part`]).
const LATE_RECORDS: &[Format] = &[
    Format::Codex,
    Format::KimiCli,
    Format::CopilotCli,
    Format::Droid,
    Format::HfTrace,
    Format::ChatMessages,
    // A Cursor tool result answers its call by id, in whichever step still waits for it; a
    // Gemini CLI message is re-written under its id up to 64 messages later (JSON Lines), and
    // an `error` message fails the last model step, which a user turn may follow.
    Format::Cursor,
    Format::GeminiCli,
];
/// Formats whose task is the issue inside wrappers of the first prompt ([`task_from_prompt`]):
/// when that prompt was slimmed, the wrappers may have been in the part left in the file.
const WRAPPED_TASKS: &[Format] = &[Format::OpenHands, Format::ChatMessages];

/// The task of a wrapped prompt, from what the reader took for it read back whole: the whole
/// prompt (the opening wrapper was not seen) or the text after the opening wrapper (the
/// closing one was not seen).
fn redo_task(read_back: &str) -> String {
    let task = task_from_prompt(read_back);
    if task != read_back.trim() {
        return task;
    }
    cut_at_close(read_back).unwrap_or(task)
}

/// Bytes read per chunk.
const CHUNK: usize = 1 << 20;
/// Bytes of context messages read back in full with a step; older ones come as previews.
pub const CONTEXT_CAP: u64 = 32 << 20;
/// A single string read back longer than this is shown as a preview (its first bytes).
const STRING_CAP: u64 = 256 << 20;

/// Whether the file at `path` is JSON or JSON Lines, from its first bytes: what this
/// module reads.
pub fn is_json(path: &Path) -> bool {
    let mut head = [0u8; 512];
    let Ok(n) = File::open(path).and_then(|mut f| f.read(&mut head)) else {
        return false;
    };
    let head = &head[..n];
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    matches!(
        head.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// The slim text of `path` (see [`slim`]), or an error naming the file and the line where
/// even the slim text outgrew the memory budget (a line that is one huge structure).
pub fn slim_file(path: &Path, threshold: usize) -> Result<Vec<u8>, LoadError> {
    let mut file = File::open(path).map_err(|err| LoadError::io(path, err))?;
    let budget = super::memory_budget().unwrap_or(u64::MAX);
    let mut slimmer = slim::Slimmer::new(threshold);
    let mut buffer = vec![0; CHUNK];
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|err| LoadError::io(path, err))?;
        if n == 0 {
            break;
        }
        slimmer.feed(&buffer[..n]);
        if slimmer.out.len() as u64 > budget {
            let line = memchr::memchr_iter(b'\n', &slimmer.out).count() + 1;
            return Err(line_budget_error(path, line, budget));
        }
    }
    Ok(slimmer.finish())
}

/// The error for a value starting on `line` whose slimmed text outgrows `budget`.
fn line_budget_error(path: &Path, line: usize, budget: u64) -> LoadError {
    LoadError::invalid(
        path,
        format!(
            "line {line}: a JSON value whose structure alone (its long strings left \
             in the file) outgrows the memory budget of {budget} bytes \
             ({}); it cannot be read here",
            super::BUDGET_ENV
        ),
    )
}

/// The trajectories of `path` read from its slim text: record by record where the format
/// allows ([`records`]), else the slim text read whole by the format's reader (not when
/// only a `part` of it is read: `None`).
///
/// A record reader lets each step go as it finishes, into `released` (packed there at once,
/// so that the index never holds the slim steps as values); the trajectory keeps the
/// others, numbered after those. With the trajectories: whether a record reader read them.
fn read_slim(
    path: &Path,
    threshold: usize,
    part: &mut Part,
    released: &mut PackedSteps,
    settled: &mut PackedPool,
) -> Result<Option<(Vec<Trajectory>, bool)>, LoadError> {
    let file = File::open(path).map_err(|err| LoadError::io(path, err))?;
    let size = file
        .metadata()
        .map_err(|err| LoadError::io(path, err))?
        .len();
    let whole = part.limit >= size;
    let mut source = part.reader(file);
    let mut pack = |step: Step| {
        released
            .push(step)
            .map_err(|err| LoadError::invalid(path, format!("packing its steps: {err}")))
    };
    let mut pack_pool = |messages: Vec<Message>| {
        settled
            .extend(messages)
            .map_err(|err| LoadError::invalid(path, format!("packing its messages: {err}")))
    };
    if let Some(trajectories) = records::read_releasing(
        path,
        &mut source,
        threshold,
        whole,
        &mut pack,
        &mut pack_pool,
    )? {
        return Ok(Some((trajectories, true)));
    }
    if !whole {
        return Ok(None);
    }
    let slim = slim_file(path, threshold)?;
    match load_bytes_with(path, &slim, Detail::Full)? {
        Loaded::Trajectories(trajectories) => Ok(Some((trajectories, false))),
        Loaded::Results(_) => Ok(None),
    }
}

/// Opens `path` in bounded memory: its trajectories with their steps left in the file
/// (each a [`Trajectory::lazy`]). `None` when it is not JSON, or holds eval results: read
/// it the usual way.
pub fn open(path: &Path, threshold: usize) -> Result<Option<Vec<Trajectory>>, LoadError> {
    open_part(path, threshold, &mut Part::whole(&mut |_| Ok(())))
}

/// [`open`] reading only the `part` of the file it names. When that is not the whole file,
/// the last step read is left out (its tool results may be in the lines not read) and the
/// steps are marked incomplete ([`crate::model::StepSource::is_complete`]); a format
/// without a record reader gives `None`.
pub fn open_part(
    path: &Path,
    threshold: usize,
    part: &mut Part,
) -> Result<Option<Vec<Trajectory>>, LoadError> {
    // Inspect's reader compares whole texts: its `.json` logs are never read slim (not even
    // to find that out, which cost more than the read), but a sample at a time ([`read`]).
    if !is_json(path) || super::inspect_ai::may_be_json_log(path) {
        return Ok(None);
    }
    let file = File::open(path).map_err(|err| LoadError::io(path, err))?;
    let stamp = stamp(&file).map_err(|err| LoadError::io(path, err))?;
    let complete = part.limit >= stamp.0;
    let mut released = PackedSteps::default();
    let mut settled = PackedPool::default();
    let Some((mut trajectories, by_records)) =
        read_slim(path, threshold, part, &mut released, &mut settled)?
    else {
        return Ok(None);
    };
    if trajectories.iter().any(|t| {
        COMPARES_TEXTS.contains(&t.format) && !(by_records && WHOLE_RECORDS.contains(&t.format))
    }) {
        return Ok(None);
    }
    // Steps let go and pool messages settled while reading come from a reader of one
    // trajectory per file.
    let mut released = Some(released);
    let mut settled = Some(settled);
    for trajectory in &mut trajectories {
        let packing = |err: String| LoadError::invalid(path, format!("packing its steps: {err}"));
        let mut steps = released.take().unwrap_or_default();
        let held = std::mem::take(&mut trajectory.steps);
        // A later record may still change a step the reader holds, so only the steps it let
        // go (which nothing changes any more) are the whole index's first steps.
        if complete || !LATE_RECORDS.contains(&trajectory.format) {
            for step in held {
                steps.push(step).map_err(packing)?;
            }
            if !complete {
                steps.pop();
            }
        }
        let mut messages = settled.take().unwrap_or_default();
        messages
            .extend(std::mem::take(&mut trajectory.messages))
            .map_err(packing)?;
        messages.shrink();
        inflate_header(path, &file, trajectory)?;
        trajectory.lazy = Some(LazySteps::new(SlimSteps {
            path: path.to_path_buf(),
            size: stamp.0,
            modified: stamp.1,
            steps,
            messages,
            complete,
        }));
    }
    Ok(Some(trajectories))
}

/// Reads back the long strings of `trajectory`'s own fields (not its steps'), and its task
/// from the whole first prompt where a reader cut it from a slimmed one.
fn inflate_header(path: &Path, file: &File, trajectory: &mut Trajectory) -> Result<(), LoadError> {
    let header = Inflater {
        file,
        preview: false,
        cap: STRING_CAP,
    };
    let cut_task = trajectory
        .task
        .as_ref()
        .is_some_and(|t| t.contains(slim::MARK));
    *trajectory = header
        .inflate(trajectory)
        .map_err(|err| LoadError::io(path, err))?;
    if cut_task && WRAPPED_TASKS.contains(&trajectory.format) {
        trajectory.task = trajectory.task.as_deref().map(redo_task);
    }
    Ok(())
}

/// Opens (the `part` of) `path` lazily when it holds one trajectory, calling `on_step` with
/// each step (its long strings as previews: what a step list shows).
pub fn open_lazy(
    path: &Path,
    threshold: usize,
    part: &mut Part,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Option<Trajectory>, LoadError> {
    Ok(match open_lazy_found(path, threshold, part, on_step)? {
        Some(LazyOpen::One(trajectory)) => Some(*trajectory),
        Some(LazyOpen::Several(_)) | None => None,
    })
}

/// [`open_lazy`], saying so when the file holds several trajectories (an OTel export, an
/// eval's output), which the caller opens by their place in the file instead.
pub fn open_lazy_found(
    path: &Path,
    threshold: usize,
    part: &mut Part,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Option<LazyOpen>, LoadError> {
    let Some(mut trajectories) = open_part(path, threshold, part)? else {
        return Ok(None);
    };
    if trajectories.len() != 1 {
        return Ok(Some(LazyOpen::Several(trajectories.len())));
    }
    let trajectory = trajectories.remove(0);
    if let Some(lazy) = &trajectory.lazy {
        lazy.visit_previews(on_step)
            .map_err(|err| LoadError::invalid(path, err))?;
    }
    Ok(Some(LazyOpen::One(Box::new(trajectory))))
}

/// What a lazy open found in a file of its format.
#[derive(Debug)]
pub enum LazyOpen {
    /// The file's one trajectory, its steps read from the file when shown.
    One(Box<Trajectory>),
    /// The file holds this many trajectories (none opened).
    Several(usize),
}

/// The trajectories of `path` read in bounded memory while reading, then held whole: the
/// steps read back (at [`Detail::Steps`] without the message pool and contexts, which a
/// listing or a tally does not read). `None` as for [`open`].
pub fn read(
    path: &Path,
    threshold: usize,
    detail: Detail,
) -> Result<Option<Vec<Trajectory>>, LoadError> {
    // An Inspect `.json` log is read a sample at a time instead, each sample whole.
    if let Some(trajectories) = super::inspect_ai::read_json_log(path, detail)? {
        return Ok(Some(trajectories));
    }
    let Some(mut trajectories) = open(path, threshold)? else {
        return Ok(None);
    };
    for trajectory in &mut trajectories {
        let Some(lazy) = trajectory.lazy.take() else {
            continue;
        };
        let Some(source) = lazy.slim() else {
            continue;
        };
        let (steps, messages) = source
            .read_all(detail)
            .map_err(|err| LoadError::invalid(path, err))?;
        trajectory.steps = steps;
        trajectory.messages = messages;
    }
    Ok(Some(trajectories))
}

fn stamp(file: &File) -> std::io::Result<(u64, Option<SystemTime>)> {
    let meta = file.metadata()?;
    Ok((meta.len(), meta.modified().ok()))
}

/// One trajectory's slim steps and message pool (packed), and the file their strings are in.
pub struct SlimSteps {
    path: PathBuf,
    size: u64,
    modified: Option<SystemTime>,
    steps: PackedSteps,
    messages: PackedPool,
    /// The whole file was read: these are all its steps.
    complete: bool,
}

/// Reaching the [`SlimSteps`] behind a [`LazySteps`] handle, for the read that holds all.
trait AsSlim {
    fn slim(&self) -> Option<&SlimSteps>;
    fn visit_previews(&self, on_step: &mut (dyn FnMut(Step) + Send)) -> Result<(), String>;
}

impl AsSlim for LazySteps {
    fn slim(&self) -> Option<&SlimSteps> {
        let any: &dyn std::any::Any = self.0.as_any()?;
        any.downcast_ref::<SlimSteps>()
    }

    fn visit_previews(&self, on_step: &mut (dyn FnMut(Step) + Send)) -> Result<(), String> {
        let Some(slim) = self.slim() else {
            return Ok(());
        };
        let file = slim.reopen()?;
        let previews = Inflater {
            file: &file,
            preview: true,
            cap: STRING_CAP,
        };
        for step in slim.steps.iter() {
            let step = step.map_err(|e| slim.error(&e))?;
            on_step(previews.inflate(&step).map_err(|e| slim.error(&e))?);
        }
        Ok(())
    }
}

impl SlimSteps {
    /// The file, checked to be the one that was read.
    fn reopen(&self) -> Result<File, String> {
        let file = File::open(&self.path).map_err(|e| self.error(&e))?;
        if stamp(&file).map_err(|e| self.error(&e))? != (self.size, self.modified) {
            return Err(format!(
                "{}: the file changed since it was opened; open it again to read it",
                self.path.display()
            ));
        }
        Ok(file)
    }

    fn error(&self, err: &dyn std::fmt::Display) -> String {
        format!("{}: {err}", self.path.display())
    }

    fn whole<'a>(&self, file: &'a File) -> Inflater<'a> {
        Inflater {
            file,
            preview: false,
            cap: STRING_CAP,
        }
    }

    /// Every step read back, and at [`Detail::Full`] the message pool too.
    fn read_all(&self, detail: Detail) -> Result<(Vec<Step>, Vec<Message>), String> {
        let file = self.reopen()?;
        let inflater = self.whole(&file);
        let err = |e: std::io::Error| self.error(&e);
        let mut steps = Vec::with_capacity(self.steps.len());
        for step in self.steps.iter() {
            let step = step.map_err(|e| self.error(&e))?;
            let mut step = inflater.inflate(&step).map_err(err)?;
            if detail == Detail::Steps {
                step.context = None;
            }
            steps.push(step);
        }
        let messages = match detail {
            Detail::Full => {
                let mut messages = Vec::new();
                for message in self.messages.iter() {
                    let message = message.map_err(|e| self.error(&e))?;
                    messages.push(inflater.inflate(&message).map_err(err)?);
                }
                messages
            }
            Detail::Steps => Vec::new(),
        };
        Ok((steps, messages))
    }
}

impl StepSource for SlimSteps {
    fn len(&self) -> usize {
        self.steps.len()
    }

    fn file_size(&self) -> u64 {
        self.size
    }

    fn is_complete(&self) -> bool {
        self.complete
    }

    fn load(&self, index: usize) -> Result<LoadedStep, String> {
        let slim = index
            .checked_sub(1)
            .and_then(|i| self.steps.get(i))
            .ok_or_else(|| format!("{}: no step {index}", self.path.display()))?
            .map_err(|e| self.error(&e))?;
        let file = self.reopen()?;
        let err = |e: std::io::Error| self.error(&e);
        let step = self.whole(&file).inflate(&slim).map_err(err)?;
        // The pool keeps its positions (the context indexes into it); the context's own
        // messages are read back, the newest first, until the cap. The others stay empty
        // but for their agent (a context may take "every message of agent A"): copying the
        // whole slim pool cost as much again as the pool itself.
        let mut messages: Vec<Message> = self.messages.placeholders();
        if let Some(context) = &slim.context {
            let ids: Vec<u32> = context.ids(&messages).collect();
            let mut left = CONTEXT_CAP;
            for id in ids.into_iter().rev() {
                let (Some(message), Some(original)) = (
                    messages.get_mut(id as usize),
                    self.messages.get(id as usize),
                ) else {
                    continue;
                };
                let original = original.map_err(|e| self.error(&e))?;
                let inflater = Inflater {
                    file: &file,
                    preview: left == 0,
                    cap: left.min(STRING_CAP),
                };
                *message = inflater.inflate(&original).map_err(err)?;
                left = left.saturating_sub(message.content.len() as u64);
            }
        }
        Ok(LoadedStep { step, messages })
    }

    fn visit(&self, visit: &mut dyn FnMut(LoadedStep) -> bool) -> Result<(), String> {
        let file = self.reopen()?;
        let inflater = self.whole(&file);
        for slim in self.steps.iter() {
            let slim = slim.map_err(|e| self.error(&e))?;
            let step = inflater.inflate(&slim).map_err(|e| self.error(&e))?;
            if !visit(LoadedStep {
                step,
                messages: Vec::new(),
            }) {
                break;
            }
        }
        Ok(())
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
