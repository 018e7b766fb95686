//! A big file's steps walked again from the file at each pass, holding nothing between
//! passes: for `trajscope export`, whose passes (header totals, rule badges, the HTML table
//! of contents, the steps) each walk the steps in order and never ask for one alone. The
//! lazy open keeps every slim step and the message pool so that the TUI can show any step at
//! once (about 4 KB per Claude Code step: 415 MB for a 1 GB session); a revisited file keeps
//! its step count. Each pass is a [`stream::visit`], so the steps are those a visit gives:
//! the whole read's, without contexts (an export shows none).

use super::lazy::lazy_format;
use super::{LoadError, stream};
use crate::model::{Format, LazySteps, LoadedStep, StepSource, Trajectory};
use std::path::{Path, PathBuf};

/// `path` opened to be walked step by step, as many times as needed, from the file: its
/// header and step count from a first pass. `None` when its format has no record reader,
/// or it is a SWE-agent file (whose lazy open already holds only where each step is).
pub fn open_revisited(path: &Path, threshold: usize) -> Result<Option<Trajectory>, LoadError> {
    if matches!(lazy_format(path), Ok(Format::SweAgent)) {
        return Ok(None);
    }
    let size = std::fs::metadata(path)
        .map_err(|err| LoadError::io(path, err))?
        .len();
    let mut len = 0;
    let Some(mut trajectory) = stream::visit(path, threshold, &mut |_| {
        len += 1;
        Ok(())
    })?
    else {
        return Ok(None);
    };
    trajectory.lazy = Some(LazySteps::new(Revisited {
        path: path.to_path_buf(),
        threshold,
        len,
        size,
    }));
    Ok(Some(trajectory))
}

/// The steps of a file visited again at each pass.
struct Revisited {
    path: PathBuf,
    threshold: usize,
    len: usize,
    size: u64,
}

impl StepSource for Revisited {
    fn len(&self) -> usize {
        self.len
    }

    /// Walks the file up to step `index`: a revisited file is for passes, not for one step.
    fn load(&self, index: usize) -> Result<LoadedStep, String> {
        let mut found = None;
        self.visit(&mut |loaded| {
            if loaded.step.index == index {
                found = Some(loaded);
                return false;
            }
            true
        })?;
        found.ok_or_else(|| format!("{}: no step {index}", self.path.display()))
    }

    fn file_size(&self) -> u64 {
        self.size
    }

    fn visit(&self, visit: &mut dyn FnMut(LoadedStep) -> bool) -> Result<(), String> {
        let mut going = true;
        let mut seen = 0;
        let visited = stream::visit(&self.path, self.threshold, &mut |step| {
            seen += 1;
            if going {
                going = visit(LoadedStep {
                    step,
                    messages: Vec::new(),
                });
            }
            Ok(())
        })
        .map_err(|err| err.to_string())?;
        // The first pass counted the steps: a file that reads otherwise now was rewritten.
        if visited.is_none() || seen != self.len {
            return Err(format!(
                "{}: the file changed since it was opened; open it again",
                self.path.display()
            ));
        }
        Ok(())
    }
}
