//! The text logs (Aider chat histories, Llama prompt logs) read in bounded memory: the file
//! is read once in chunks, an Aider history line by line ([`aider::History`]) and a prompt
//! log message by message ([`llama_prompt::Released`]), and each step is handed over as soon
//! as nothing later in the file can change it, each trajectory after its steps. What is held
//! is the step being built and the lines or the message being read, never the text; the
//! message pool is only counted (a context is a span or a prefix of it, so its numbers are
//! all a step needs). Both reads are the same state machines, the whole read fed the whole
//! text, so the steps, their numbers, the headers and the warnings are the whole read's.
//!
//! Not read this way: an Aider history with an `.aider.llm.history` beside it, whose steps
//! take exact contexts matched in order against every call of that file (read whole). The
//! app's lazy open does not take these logs either: a step's texts are made from many lines
//! (prefixes cut, lines joined), not one span of the file that could be read back, so an
//! index would hold the texts themselves.

mod utf8;

use super::detect::{Kind, detect};
use super::visit::StepCount;
use super::{LoadError, aider, llama_prompt, stream};
use crate::model::{Format, Step, Trajectory, TrajectorySummary};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Bytes read per chunk.
const CHUNK: usize = 1 << 20;
/// Bytes of the file's start that tell its format (the sniffers look at 64 KiB).
const HEAD: u64 = 1 << 20;

/// What a text log hands out, in file order: each trajectory after its steps.
// Steps go out one by one, at once; boxing each would cost an allocation per step.
#[allow(clippy::large_enum_variant)]
pub enum Out {
    Step(Step),
    Trajectory(Box<Trajectory>),
}

/// The format of `path` when it is a text log read here, from its first bytes.
pub fn format_of(path: &Path) -> Option<Format> {
    if stream::is_json(path) {
        return None;
    }
    let mut head = Vec::new();
    File::open(path)
        .and_then(|f| f.take(HEAD).read_to_end(&mut head))
        .ok()?;
    match detect(path, &head) {
        Ok(Kind::Trajectories(format @ (Format::Aider | Format::LlamaPrompt))) => Some(format),
        _ => None,
    }
}

/// Whether `path` is a text log of `threshold` bytes or more that is read step by step.
pub fn is_big_text_log(path: &Path, threshold: u64) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() >= threshold)
        && readable(path).is_some()
}

/// [`format_of`], but for what this module leaves to the whole read.
fn readable(path: &Path) -> Option<Format> {
    let format = format_of(path)?;
    (format != Format::Aider || !aider::has_llm_history(path)).then_some(format)
}

/// Reads `path` once, handing each step (numbered, with its context) and each trajectory
/// (without the steps handed over, its message pool empty) to `on` as they finish. `None`
/// when it is not a text log read here. A file changed while it is read is an error.
pub fn visit(
    path: &Path,
    on: &mut dyn FnMut(Out) -> Result<(), LoadError>,
) -> Result<Option<()>, LoadError> {
    let Some(format) = readable(path) else {
        return Ok(None);
    };
    let mut file = File::open(path).map_err(|err| LoadError::io(path, err))?;
    let before = stamp(&file).map_err(|err| LoadError::io(path, err))?;
    let repaired = utf8::warning(path, &mut file)?;
    let mut file = File::open(path).map_err(|err| LoadError::io(path, err))?;
    let mut trajectories = 0;
    let mut hand = |out: Out| match out {
        Out::Trajectory(mut t) => {
            trajectories += 1;
            if let Some(warning) = &repaired {
                t.warnings.insert(0, warning.clone());
            }
            on(Out::Trajectory(t))
        }
        step => on(step),
    };
    let mut out = Vec::new();
    let mut buffer = vec![0; CHUNK];
    match format {
        Format::LlamaPrompt => {
            let mut log = llama_prompt::Released::new(path);
            loop {
                let n = read(path, &mut file, &mut buffer)?;
                if n == 0 {
                    break;
                }
                log.chunk(&buffer[..n], &mut out);
                out.drain(..).try_for_each(&mut hand)?;
            }
            log.finish(&mut out)?;
        }
        _ => {
            let mut history = aider::History::new(path, true);
            let mut line: Vec<u8> = Vec::new();
            loop {
                let n = read(path, &mut file, &mut buffer)?;
                if n == 0 {
                    break;
                }
                let mut start = 0;
                for end in memchr::memchr_iter(b'\n', &buffer[..n]) {
                    line.extend_from_slice(&buffer[start..end]);
                    history.line(&String::from_utf8_lossy(&line));
                    line.clear();
                    start = end + 1;
                    out.extend(history.take());
                }
                line.extend_from_slice(&buffer[start..n]);
                out.drain(..).try_for_each(&mut hand)?;
            }
            // The text after the last line end, empty or not, is a line too.
            history.line(&String::from_utf8_lossy(&line));
            history.finish();
            out.extend(history.take());
        }
    }
    out.drain(..).try_for_each(&mut hand)?;
    if format == Format::Aider && trajectories == 0 {
        return Err(aider::no_session(path));
    }
    // Steps were handed over while the file was read: a writer that changed it meanwhile
    // may have mixed two versions.
    if stamp(&file).map_err(|err| LoadError::io(path, err))? != before {
        return Err(LoadError::invalid(
            path,
            "the file changed while it was read; read it again",
        ));
    }
    Ok(Some(()))
}

fn read(path: &Path, file: &mut File, buffer: &mut [u8]) -> Result<usize, LoadError> {
    loop {
        match file.read(buffer) {
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            other => return other.map_err(|err| LoadError::io(path, err)),
        }
    }
}

fn stamp(file: &File) -> std::io::Result<(u64, Option<std::time::SystemTime>)> {
    let meta = file.metadata()?;
    Ok((meta.len(), meta.modified().ok()))
}

/// The steps of a text log that holds one trajectory, and that trajectory: what
/// [`stream::visit`] gives. Contexts are dropped unless `contexts`. `None` when it is not a
/// text log read here, or holds several trajectories (seen when the second one starts: the
/// steps handed over until then are to be dropped).
pub fn visit_one(
    path: &Path,
    contexts: bool,
    on_step: &mut dyn FnMut(Step) -> Result<(), LoadError>,
) -> Result<Option<Trajectory>, LoadError> {
    let mut only: Option<Trajectory> = None;
    let mut several = false;
    let visited = visit(path, &mut |out| {
        if only.is_some() {
            several = true;
            return Err(LoadError::invalid(path, "holds several trajectories"));
        }
        match out {
            Out::Step(mut step) => {
                if !contexts {
                    step.context = None;
                }
                on_step(step)
            }
            Out::Trajectory(t) => {
                only = Some(*t);
                Ok(())
            }
        }
    });
    match visited {
        Err(_) if several => Ok(None),
        Err(err) => Err(err),
        Ok(None) => Ok(None),
        Ok(Some(())) => Ok(only),
    }
}

/// The summaries of a text log's trajectories, counted as their steps are read (`ls`).
pub fn summaries(path: &Path) -> Result<Option<Vec<TrajectorySummary>>, LoadError> {
    let mut summaries = Vec::new();
    let mut count = StepCount::default();
    let visited = visit(path, &mut |out| {
        match out {
            Out::Step(step) => count.add(step),
            Out::Trajectory(t) => summaries.push(std::mem::take(&mut count).summary(*t)),
        }
        Ok(())
    })?;
    Ok(visited.map(|()| summaries))
}
