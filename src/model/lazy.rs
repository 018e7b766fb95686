//! Steps read from disk when shown. A trajectory too big to hold whole (a 200 MB log) keeps
//! its header and where each step is; the loader that opened it reads one step back on
//! demand through [`StepSource`]. The model stays free of I/O: it only holds the handle.

use super::{Message, Step};
use std::fmt;
use std::sync::Arc;

/// Reads the steps of one opened file back, one at a time.
pub trait StepSource: Send + Sync {
    /// How many steps the trajectory has.
    fn len(&self) -> usize;

    /// Whether it has none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Step `index` (1-based) in full, with the messages its context indexes into; an error
    /// naming the file when it can no longer be read as it was (changed, removed).
    fn load(&self, index: usize) -> Result<LoadedStep, String>;

    /// The file's size in bytes, for saying why the trajectory was opened this way.
    fn file_size(&self) -> u64;

    /// Whether these are all the trajectory's steps; `false` for the first steps of a big
    /// file, opened to show them while the rest is indexed (its step count is a floor).
    fn is_complete(&self) -> bool {
        true
    }

    /// Calls `visit` with every step in order until it returns `false`, holding one at a
    /// time. Sources override this to read the file once rather than once per step.
    fn visit(&self, visit: &mut dyn FnMut(LoadedStep) -> bool) -> Result<(), String> {
        for index in 1..=self.len() {
            if !visit(self.load(index)?) {
                break;
            }
        }
        Ok(())
    }

    /// The source itself, for the loader that made it to reach its own type.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// One step read back: the step, and the pool its context (if any) indexes into.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedStep {
    pub step: Step,
    pub messages: Vec<Message>,
}

/// A trajectory's [`StepSource`]. Two handles are equal when they are the same source.
#[derive(Clone)]
pub struct LazySteps(pub Arc<dyn StepSource>);

impl LazySteps {
    pub fn new(source: impl StepSource + 'static) -> LazySteps {
        LazySteps(Arc::new(source))
    }
}

impl std::ops::Deref for LazySteps {
    type Target = dyn StepSource;
    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl PartialEq for LazySteps {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for LazySteps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "LazySteps({} steps, {} bytes)",
            self.0.len(),
            self.0.file_size()
        )
    }
}
