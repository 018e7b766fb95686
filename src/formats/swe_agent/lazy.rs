//! SWE-agent `.traj` files too big to hold whole, opened lazily. One pass over the file
//! ([`super::super::scan`]) records where each `trajectory[]` step is and decodes each once,
//! to hand it to the caller (who keeps a line of it for the step list); what is kept is the
//! header and the steps' byte spans. A step is read back from its span when shown.
//!
//! What a lazy trajectory lacks, by design: `history` is not decoded (but for the task). 1.0
//! and 1.1+ steps lose nothing by it: their exact context lives inside the step, and the
//! answer that made each (its agent and tool calls) in its own `messages` (1.0) or the next
//! step's `query` (1.1+; the last step's only in `history`). 0.x steps have no agent (CodeR)
//! and no reconstructed context.

use super::{
    RawMessage, RawStep, model_name, read_info, strip_own_answer, to_message, tool_calls, tool_of,
};
use crate::formats::LoadError;
use crate::formats::scan::{Scanner, Visitor};
use crate::formats::stream::Part;
use crate::formats::task::task_from_prompt;
use crate::model::{
    Exactness, Format, LazySteps, LoadedStep, Step, StepContext, StepSource, Trajectory,
};
use serde_json::Value;
use serde_json::value::RawValue;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Bytes read per chunk of the scan.
const CHUNK: usize = 1 << 20;
/// Top-level members other than the step arrays (`info`, `replay_config`) are decoded when
/// at most this long.
const MEMBER_CAP: usize = 64 << 20;
/// History messages looked at for the task before giving up (demonstrations come first).
const TASK_WITHIN: usize = 400;

/// Opens (the `part` of) `path` lazily, calling `on_step` with each step, in order, as it is
/// decoded. The trajectory returned holds no steps: [`Trajectory::lazy`] reads them back.
/// `None` for a file without `trajectory[]` steps (a history-only demonstration): read it
/// whole. The scan and the decoding of the steps run on two threads: each is about half the
/// work.
///
/// When the part is not the whole file,
/// the steps are those it holds whole but the last (whose answer is in the next step's
/// `query`), marked incomplete, and the header lacks what comes after the steps (`info`:
/// the exit status; `replay_config`: the model; `history`: the task); a part that holds no
/// step gives a trajectory without steps.
pub fn open_part(
    path: &Path,
    part: &mut Part,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Option<Trajectory>, LoadError> {
    let file = std::fs::File::open(path).map_err(|err| LoadError::io(path, err))?;
    let stamp = stamp(&file).map_err(|err| LoadError::io(path, err))?;
    let whole = part.limit >= stamp.0;
    let mut source = part.reader(file);
    let (tx, rx) = std::sync::mpsc::sync_channel(QUEUE);
    let (scanned, decoded) = std::thread::scope(|s| {
        let decoder = s.spawn(move || decode_all(path, &rx, whole, on_step));
        let scanned = scan(path, &mut source, whole, tx);
        (scanned, decoder.join())
    });
    // A step that did not decode stopped the scan: its error is the one to tell.
    let kinds = decoded.map_err(|_| LoadError::invalid(path, "the step decoder failed"))??;
    let scan = scanned?;
    if scan.spans.is_empty() && whole {
        return Ok(None);
    }
    let shown = if whole {
        scan.spans.len()
    } else {
        scan.spans.len().saturating_sub(1)
    };
    let mut trajectory = Trajectory::new(path, Format::SweAgent);
    read_info(&mut trajectory, &scan.info);
    trajectory.model = model_name(&scan.replay_config);
    trajectory.task = scan.task;
    trajectory.format_detail = Some(
        if kinds.has_query {
            "1.1+"
        } else if kinds.has_messages {
            "1.0"
        } else {
            "0.x"
        }
        .to_string(),
    );
    trajectory.lazy = Some(LazySteps::new(Spans {
        path: path.to_path_buf(),
        size: stamp.0,
        modified: stamp.1,
        spans: scan.spans,
        shown,
        complete: whole,
    }));
    Ok(Some(trajectory))
}

/// Steps scanned but not yet decoded, at most: bounds the memory between the two threads.
const QUEUE: usize = 64;

/// A step's 0-based index, where it starts in the file, and its bytes.
type Found = (usize, u64, Vec<u8>);

/// What the scan found besides the steps.
struct Scanned {
    spans: Vec<Range<u64>>,
    info: Value,
    replay_config: Value,
    task: Option<String>,
}

/// Reads `file` through the scanner, sending each step's bytes to the decoder. The sender
/// is dropped on return, which ends the decoder's loop.
/// `whole`: `file` gives the whole file (else its start: it is not expected to end).
fn scan(
    path: &Path,
    file: &mut dyn Read,
    whole: bool,
    steps: std::sync::mpsc::SyncSender<Found>,
) -> Result<Scanned, LoadError> {
    let mut scan = Scan {
        steps,
        stopped: false,
        spans: Vec::new(),
        info: Value::Null,
        replay_config: Value::Null,
        task: None,
    };
    let mut scanner = Scanner::new(MEMBER_CAP);
    let mut buffer = vec![0; CHUNK];
    loop {
        let n = file
            .read(&mut buffer)
            .map_err(|err| LoadError::io(path, err))?;
        if n == 0 || scan.stopped {
            break;
        }
        scanner
            .feed(&buffer[..n], &mut scan)
            .map_err(|err| LoadError::invalid(path, err.to_string()))?;
    }
    if !scan.stopped && whole {
        scanner
            .finish()
            .map_err(|err| LoadError::invalid(path, err.to_string()))?;
    }
    Ok(Scanned {
        spans: scan.spans,
        info: scan.info,
        replay_config: scan.replay_config,
        task: scan.task,
    })
}

/// Which exact contexts the steps keep: they tell the format's version.
#[derive(Default)]
struct Kinds {
    has_query: bool,
    has_messages: bool,
}

/// Decodes the steps the scan sends, in order, handing each to `on_step` (the last one only
/// when the scan reads the `whole` file). Returning (on the first step that does not
/// decode) closes the channel, which stops the scan.
fn decode_all(
    path: &Path,
    found: &std::sync::mpsc::Receiver<Found>,
    whole: bool,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Kinds, LoadError> {
    let mut kinds = Kinds::default();
    // A 1.1+ step's answer is in the next step's `query`: each step waits for the next.
    let mut pending: Option<Step> = None;
    for (index, start, bytes) in found {
        let mut raw: RawStep<Option<&RawValue>> = serde_json::from_slice(&bytes)
            .map_err(|err| step_error(path, index + 1, start, &err))?;
        kinds.has_query |= raw.query.is_some();
        kinds.has_messages |= raw.messages.is_some();
        if let Some(mut previous) = pending.take() {
            take_answer(&mut previous, raw.query.as_deref());
            on_step(previous);
        }
        let mut step = raw.take_step();
        step.index = index + 1;
        take_answer(&mut step, raw.messages.as_deref());
        pending = Some(step);
    }
    if let Some(last) = pending.filter(|_| whole) {
        on_step(last);
    }
    Ok(kinds)
}

/// Takes the agent and tool calls of `step` from the answer that made it, when `messages`
/// hold it: what the whole read takes from `history`. 1.0 keeps the answer in the step's
/// own `messages` (the history after it), 1.1+ in the next step's `query`.
fn take_answer<C>(step: &mut Step, messages: Option<&[RawMessage<C>]>) {
    let wanted = step.action.trim();
    let answer = messages.unwrap_or_default().iter().rev().find(|m| {
        m.role.0 == "assistant" && m.action.as_ref().is_some_and(|a| a.0.trim() == wanted)
    });
    if let Some(answer) = answer {
        step.agent = answer.agent.clone();
        step.tool_calls = tool_calls(&answer.tool_calls);
        step.tool = tool_of(step);
    }
}

fn stamp(file: &std::fs::File) -> std::io::Result<(u64, Option<SystemTime>)> {
    let meta = file.metadata()?;
    Ok((meta.len(), meta.modified().ok()))
}

/// What the scan keeps while it reads.
struct Scan {
    steps: std::sync::mpsc::SyncSender<Found>,
    /// The decoder stopped (a step did not decode): stop reading.
    stopped: bool,
    spans: Vec<Range<u64>>,
    info: Value,
    replay_config: Value,
    task: Option<String>,
}

impl Visitor for Scan {
    fn follow(&mut self, key: &str) -> bool {
        key == "trajectory" || key == "history"
    }

    fn keep_element(&mut self, key: &str, index: usize) -> bool {
        key == "trajectory" || (self.task.is_none() && index < TASK_WITHIN)
    }

    fn element(&mut self, key: &str, index: usize, span: Range<u64>, bytes: Option<Vec<u8>>) {
        let Some(bytes) = bytes else {
            return;
        };
        if key == "history" {
            self.task = self.task.take().or_else(|| task_in(&bytes));
            return;
        }
        if self.stopped {
            return;
        }
        let start = span.start;
        self.spans.push(span);
        self.stopped = self.steps.send((index, start, bytes)).is_err();
    }

    fn member(&mut self, key: &str, _span: Range<u64>, bytes: Option<Vec<u8>>) {
        let slot = match key {
            "info" => &mut self.info,
            "replay_config" => &mut self.replay_config,
            _ => return,
        };
        if let Some(value) = bytes.and_then(|b| serde_json::from_slice(&b).ok()) {
            *slot = value;
        }
    }
}

/// The task, when this history message is the first prompt that is not a demonstration.
fn task_in(bytes: &[u8]) -> Option<String> {
    let raw: RawMessage = serde_json::from_slice(bytes).ok()?;
    (raw.role.0 == "user" && raw.is_demo != Some(true))
        .then(|| task_from_prompt(&to_message(&raw).content))
}

fn step_error(path: &Path, step: usize, at: u64, err: &serde_json::Error) -> LoadError {
    LoadError::invalid(path, format!("step {step} (at byte {at}): {err}"))
}

/// Where each step of one file is, and how the file looked when it was scanned.
struct Spans {
    path: PathBuf,
    size: u64,
    modified: Option<SystemTime>,
    spans: Vec<Range<u64>>,
    /// The steps shown: all the spans, or (a part of the file) all but the last, which is
    /// kept for the answer in its `query`.
    shown: usize,
    /// The whole file was scanned.
    complete: bool,
}

impl StepSource for Spans {
    fn len(&self) -> usize {
        self.shown
    }

    fn file_size(&self) -> u64 {
        self.size
    }

    fn is_complete(&self) -> bool {
        self.complete
    }

    fn load(&self, index: usize) -> Result<LoadedStep, String> {
        let span = index
            .checked_sub(1)
            .filter(|&i| i < self.shown)
            .and_then(|i| self.spans.get(i))
            .ok_or_else(|| format!("{}: no step {index}", self.path.display()))?;
        let mut file = std::io::BufReader::new(self.reopen()?);
        let mut at = 0;
        let bytes = self.read_span(&mut file, &mut at, span)?;
        let next = match self.spans.get(index) {
            Some(next) => Some(self.read_span(&mut file, &mut at, next)?),
            None => None,
        };
        self.decode(index, span, &bytes, next.as_deref())
    }

    fn visit(&self, visit: &mut dyn FnMut(LoadedStep) -> bool) -> Result<(), String> {
        // Spans ascend: one open and a buffered forward read serve every step.
        let mut file = std::io::BufReader::with_capacity(CHUNK, self.reopen()?);
        let mut at = 0;
        let mut bytes = match self.spans.first() {
            Some(first) => self.read_span(&mut file, &mut at, first)?,
            None => return Ok(()),
        };
        for (i, span) in self.spans.iter().enumerate().take(self.shown) {
            let next = match self.spans.get(i + 1) {
                Some(next) => Some(self.read_span(&mut file, &mut at, next)?),
                None => None,
            };
            if !visit(self.decode(i + 1, span, &bytes, next.as_deref())?) {
                break;
            }
            bytes = next.unwrap_or_default();
        }
        Ok(())
    }
}

impl Spans {
    /// The file, checked to be the one that was scanned.
    fn reopen(&self) -> Result<std::fs::File, String> {
        let shown = self.path.display();
        let file = std::fs::File::open(&self.path).map_err(|e| format!("{shown}: {e}"))?;
        if stamp(&file).map_err(|e| format!("{shown}: {e}"))? != (self.size, self.modified) {
            return Err(format!(
                "{shown}: the file changed since it was opened; open it again to read it"
            ));
        }
        Ok(file)
    }

    /// The bytes of `span`, read from `file`, which is at byte `at` (moved to its end).
    /// Moving forward within the reader's buffer costs no system call.
    fn read_span(
        &self,
        file: &mut std::io::BufReader<std::fs::File>,
        at: &mut u64,
        span: &Range<u64>,
    ) -> Result<Vec<u8>, String> {
        let shown = self.path.display();
        let io = |e: std::io::Error| format!("{shown}: {e}");
        let len = usize::try_from(span.end - span.start).map_err(|e| format!("{shown}: {e}"))?;
        let offset = |n: u64| i64::try_from(n).map_err(|e| format!("{shown}: {e}"));
        let skip = offset(span.start)? - offset(*at)?;
        file.seek_relative(skip).map_err(io)?;
        let mut bytes = vec![0; len];
        file.read_exact(&mut bytes).map_err(io)?;
        *at = span.end;
        Ok(bytes)
    }

    /// Step `index` from its `bytes`, its answer taken from its own messages (1.0) or from
    /// the `query` of the next step (1.1+), whose bytes are `next`.
    fn decode(
        &self,
        index: usize,
        span: &Range<u64>,
        bytes: &[u8],
        next: Option<&[u8]>,
    ) -> Result<LoadedStep, String> {
        let mut raw: RawStep = serde_json::from_slice(bytes)
            .map_err(|e| step_error(&self.path, index, span.start, &e).to_string())?;
        let mut step = raw.take_step();
        step.index = index;
        take_answer(&mut step, raw.messages.as_deref());
        if raw.query.is_some()
            && let Some(next) = next
            && let Ok(next) = serde_json::from_slice::<RawStep<Option<&RawValue>>>(next)
        {
            take_answer(&mut step, next.query.as_deref());
        }
        let input = match (&raw.query, &raw.messages) {
            (Some(query), _) => Some(query.as_slice()),
            (None, Some(messages)) => Some(strip_own_answer(messages)),
            (None, None) => None,
        };
        let messages: Vec<_> = input.unwrap_or_default().iter().map(to_message).collect();
        if input.is_some() {
            let ids = (0..messages.len())
                .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
                .collect();
            step.context = Some(StepContext::list(Exactness::Exact, ids));
        }
        Ok(LoadedStep { step, messages })
    }
}
