//! The first steps of a big file, opened at once: its start is read as the whole file would
//! be (the same slim read and record reader, so the steps are the ones the whole index
//! gives; the line or array item the part cuts through is left out), and only the steps
//! that part holds in full are kept. What the
//! TUI shows while the rest of the file is indexed, and what `show --step N` reads when N is
//! near the start.
//!
//! The part grows until it holds the steps asked for: by as much again as the steps read so
//! far say it needs, at least twice as far, so a step deep in the file costs two or three
//! reads of the start, never one per step.

use super::{LoadError, lazy_format, stream, swe_agent};
use crate::model::{Format, Step, Trajectory};
use std::path::Path;

/// A part this big that still does not say which format the file is (it holds too few
/// records to tell, as the record reader looks at a few MB) never will.
const TELLS_FORMAT: u64 = 4 << 20;

/// Opens the start of `path` (at least `start` bytes) lazily until it holds `want` whole
/// steps, calling `on_step` with each of them (long strings as previews, as
/// [`super::open_lazy`] does). The trajectory's steps are marked incomplete
/// ([`crate::model::StepSource::is_complete`]) unless the whole file was read.
///
/// A SWE-agent `.traj` goes through its own scan, whose part lacks what comes after the
/// steps (the exit status, the model, the task) until the whole file is read.
///
/// `None` when the file cannot be opened so: a format without a record reader, a part that
/// does not read (the whole open then words the error with its line and column), several
/// trajectories.
pub fn open_first(
    path: &Path,
    want: usize,
    start: u64,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Option<Trajectory>, LoadError> {
    if !stream::is_json(path) {
        return Ok(None);
    }
    let swe_agent = matches!(lazy_format(path), Ok(Format::SweAgent));
    let size = std::fs::metadata(path)
        .map_err(|err| LoadError::io(path, err))?
        .len();
    let mut at = start;
    loop {
        let limit = at.min(size);
        let whole = limit >= size;
        let mut part = stream::Part {
            limit,
            progress: &mut |_| Ok(()),
        };
        let mut steps = Vec::new();
        let mut keep = |step| steps.push(step);
        let opened = if swe_agent {
            swe_agent::open_lazy_part(path, &mut part, &mut keep)
        } else {
            stream::open_lazy(path, stream::SLIM_ABOVE, &mut part, &mut keep)
        };
        let trajectory = match opened {
            Ok(Some(trajectory)) => trajectory,
            // A small part may not hold a record yet (a mini-swe-agent file's `info` comes
            // before its messages: no message read is an error).
            Ok(None) | Err(_) if !whole && limit < TELLS_FORMAT => {
                at = limit.saturating_mul(2);
                continue;
            }
            Ok(None) => return Ok(None),
            Err(_) if !whole => return Ok(None),
            Err(err) => return Err(err),
        };
        if whole || steps.len() >= want {
            steps.into_iter().for_each(&mut *on_step);
            return Ok(Some(trajectory));
        }
        // Bytes per step so far, for the steps still wanted (and a quarter more).
        let per_step = limit / (steps.len() as u64 + 1);
        let needed = per_step.saturating_mul(want as u64 + 2) / 4 * 5;
        at = needed.max(limit.saturating_mul(2));
        if at >= size / 2 {
            // Most of the file: read it all in one go rather than twice.
            at = size;
        }
    }
}
