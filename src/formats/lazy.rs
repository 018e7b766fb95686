//! Opening a file too big to hold whole: a step is read from the file when shown. SWE-agent
//! `.traj` files open through their own scan (which never decodes `history`); every other
//! JSON or JSON Lines file through the slim read of [`super::stream`]. Text logs (Aider,
//! Llama prompts) and Inspect archives are read whole, as before.
//!
//! A big JSON Lines log (or event list) can also be opened in two goes: its first steps at
//! once ([`open_first`]), then the whole index ([`open_lazy_counted`]), so that its first
//! step is on screen long before the last one is indexed.

mod first;

pub use first::open_first;

use super::LoadError;
use super::detect::format_from_first_key;
use super::stream::LazyOpen;
use super::{stream, swe_agent};
use crate::model::{Format, Step, Trajectory, TrajectorySummary, Usage};
use std::io::Read;
use std::path::Path;

/// Files at least this big are opened lazily where their format allows (64 MiB: a file that
/// size parses whole in about half a second and holds twice its size in memory).
pub const LAZY_ABOVE: u64 = 64 << 20;

/// Sets, in MiB, the size from which `trajscope show` and `trajscope export` open a file
/// lazily (`0`: every file whose format can), as `lazy_above_mb` does in the app's config.
pub const LAZY_ENV: &str = "TRAJSCOPE_LAZY_ABOVE_MB";

/// The size from which the command line opens files lazily: [`LAZY_ENV`] when set to a
/// number, else [`LAZY_ABOVE`].
pub fn lazy_above() -> u64 {
    std::env::var(LAZY_ENV)
        .ok()
        .and_then(|mb| mb.trim().parse::<u64>().ok())
        .map_or(LAZY_ABOVE, |mb| mb.saturating_mul(1 << 20))
}

/// Whether `path` would open lazily at `threshold`: big enough, and of a format that can.
/// Reads the file's first bytes.
pub fn opens_lazily(path: &Path, threshold: u64) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() >= threshold)
        && (lazy_format(path).ok() == Some(Format::SweAgent) || stream::is_json(path))
}

/// The format of `path` if it is one that opens lazily, from its first bytes.
pub(super) fn lazy_format(path: &Path) -> Result<Format, LoadError> {
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)
        .and_then(|f| f.take(4096).read_to_end(&mut head))
        .map_err(|err| LoadError::io(path, err))?;
    let start = head.iter().position(|b| !b.is_ascii_whitespace());
    let body = start.map_or(&head[..0], |s| &head[s..]);
    format_from_first_key(body).ok_or_else(|| LoadError::unrecognized(path, "not lazily"))
}

/// The steps of `path` read through the lazy scan and kept, when it is big and its format
/// allows: what a listing or a tally reads ([`super::Detail::Steps`]), without ever holding
/// the file's bytes or its `history` (a 239 MB file: about 0.6 s and the steps' own size,
/// against 1.5 s and twice the file for the whole read). `None`: read it the usual way.
pub fn read_steps(path: &Path) -> Option<Trajectory> {
    let big = std::fs::metadata(path).is_ok_and(|m| m.len() >= LAZY_ABOVE);
    if !big {
        return None;
    }
    let mut steps = Vec::new();
    // An error is left to the whole read, which words it with line and column.
    let mut trajectory = open_lazy(path, &mut |step| steps.push(step)).ok()??;
    trajectory.lazy = None;
    trajectory.steps = steps;
    Some(trajectory)
}

/// Opens `path` lazily when its format allows, without the pass that gives each step's
/// row (what `show --step N` and `export` need: the step count and the steps read back).
/// `None`: read it whole instead.
pub fn open_lazy_quietly(path: &Path) -> Result<Option<Trajectory>, LoadError> {
    match lazy_format(path) {
        Ok(Format::SweAgent) => open_lazy(path, &mut |_| {}),
        Ok(_) | Err(LoadError::Unrecognized { .. }) => {
            let Some(mut trajectories) = stream::open(path, stream::SLIM_ABOVE)? else {
                return Ok(None);
            };
            if trajectories.len() != 1 {
                return Ok(None);
            }
            Ok(Some(trajectories.remove(0)))
        }
        Err(err) => Err(err),
    }
}

/// The summaries of `path`'s trajectories when it is big and of a format the bounded read
/// takes (not SWE-agent, whose lazy scan keeps its steps for [`read_steps`]): each step read
/// back whole and dropped once counted, so that listing a 1 GB session holds its step index,
/// not its steps. The same numbers as [`TrajectorySummary::of`] on the whole read. `None`:
/// summarise it from a read.
pub fn summaries(path: &Path) -> Option<Result<Vec<TrajectorySummary>, LoadError>> {
    let big = std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() >= LAZY_ABOVE);
    if !big {
        return None;
    }
    bounded_summaries(path, stream::SLIM_ABOVE)
}

/// [`summaries`] whatever the file's size, with strings longer than `threshold` left in the
/// file (tests force the path with a low one).
pub fn bounded_summaries(
    path: &Path,
    threshold: usize,
) -> Option<Result<Vec<TrajectorySummary>, LoadError>> {
    if matches!(lazy_format(path), Ok(Format::SweAgent)) {
        return None;
    }
    // An Inspect `.json` log: each sample's trajectory summarised and dropped.
    match super::inspect_ai::json_log_summaries(path) {
        Ok(Some(summaries)) => return Some(Ok(summaries)),
        Ok(None) => {}
        Err(err) => return Some(Err(err)),
    }
    // Counted as the reader lets each step go, where its format has a record reader.
    match stream::summaries(path, threshold) {
        Ok(Some(summaries)) => return Some(Ok(summaries)),
        Ok(None) => {}
        Err(err) => return Some(Err(err)),
    }
    let trajectories = match stream::open(path, threshold) {
        Ok(Some(trajectories)) => trajectories,
        Ok(None) => return None,
        Err(err) => return Some(Err(err)),
    };
    let summaries = trajectories
        .iter()
        .map(|t| summary_of_lazy(path, t))
        .collect();
    Some(summaries)
}

fn summary_of_lazy(path: &Path, t: &Trajectory) -> Result<TrajectorySummary, LoadError> {
    let mut errors = 0;
    let mut usage = Usage::default();
    let mut last = None;
    t.visit_steps(|step| {
        errors += usize::from(step.is_error());
        usage.add(&step.usage);
        last = Some(step.clone());
        true
    })
    .map_err(|err| LoadError::invalid(path, err))?;
    let mut header = t.clone();
    header.lazy = None;
    header.steps = last.into_iter().collect();
    let mut summary = TrajectorySummary::of(&header);
    summary.steps = t.step_count();
    summary.usage = t.usage.or(usage);
    summary.error_steps = errors;
    Ok(summary)
}

/// Opens `path` lazily when its format allows, calling `on_step` with each step as the scan
/// decodes it; `None` when the format does not allow it (read the file whole instead).
pub fn open_lazy(
    path: &Path,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Option<Trajectory>, LoadError> {
    open_lazy_counted(path, &mut |_| Ok(()), on_step)
}

/// [`open_lazy`], telling `progress` how many bytes of the file were read so far (an error
/// from it stops the open: a cancelled one).
pub fn open_lazy_counted(
    path: &Path,
    progress: stream::Progress<'_>,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Option<Trajectory>, LoadError> {
    Ok(match open_found_counted(path, progress, on_step)? {
        Some(LazyOpen::One(trajectory)) => Some(*trajectory),
        Some(LazyOpen::Several(_)) | None => None,
    })
}

/// [`open_lazy_counted`], saying so when the file holds several trajectories: the app then
/// lists them rather than reading the file whole to find "the" one.
pub fn open_found_counted(
    path: &Path,
    progress: stream::Progress<'_>,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Option<LazyOpen>, LoadError> {
    let mut whole = stream::Part::whole(progress);
    match lazy_format(path) {
        Ok(Format::SweAgent) => match swe_agent::open_lazy_part(path, &mut whole, on_step)? {
            Some(trajectory) => Ok(Some(LazyOpen::One(Box::new(trajectory)))),
            None => stream::open_lazy_found(path, stream::SLIM_ABOVE, &mut whole, on_step),
        },
        Ok(_) | Err(LoadError::Unrecognized { .. }) => {
            stream::open_lazy_found(path, stream::SLIM_ABOVE, &mut whole, on_step)
        }
        Err(err) => Err(err),
    }
}
