//! The right pane's content as screen rows: a step, the context at a step, the final patch,
//! the task. Built off the UI thread (highlighting and wrapping cost), cached by [`DocKey`]
//! (trajectory, page, step, width, theme, fold), and built without highlighting up to the
//! visible rows as a preview until the full build arrives. Both builds wrap identically, so
//! the view does not jump when the highlighted rows replace the plain ones.
//!
//! A new page is a new [`Page`] variant and a file here.

pub mod analysis;
pub mod compare;
mod context;
mod diff_lines;
mod edits;
mod gold;
pub mod highlight;
mod lazy;
mod patch;
mod step;
mod task;
mod tree;
mod writer;

use crate::model::Trajectory;
use crate::tui::search::Field;
use crate::tui::theme::Theme;
pub use analysis::{Analysis, AnalysisCell};
use ratatui::text::Line;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
pub use writer::Writer;

/// The tabs of the right pane of the trajectory view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Page {
    #[default]
    Step,
    Context,
    Patch,
    Task,
    /// What the step changed: its file edits, the model input, a re-run command's output.
    Diff,
    /// The working tree after the step, the change since the start, the submission check.
    Tree,
}

impl Page {
    pub const ALL: [Page; 6] = [
        Page::Step,
        Page::Context,
        Page::Patch,
        Page::Task,
        Page::Diff,
        Page::Tree,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Page::Step => "Step",
            Page::Context => "Context",
            Page::Patch => "Patch",
            Page::Task => "Task",
            Page::Diff => "Diff",
            Page::Tree => "Tree",
        }
    }

    /// Whether the page shows something different for each step.
    pub fn per_step(self) -> bool {
        matches!(self, Page::Step | Page::Context | Page::Diff | Page::Tree)
    }
}

/// What a built document depends on. Equal keys, equal rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DocKey {
    pub trajectory: u64,
    pub page: Page,
    /// 1-based; 0 for pages that are not per step.
    pub step: usize,
    pub width: u16,
    pub theme: u64,
    pub unfolded: bool,
}

/// A key and what building it needs: cheap to clone, sent to a task.
#[derive(Clone)]
pub struct DocRequest {
    pub key: DocKey,
    pub trajectory: Arc<Trajectory>,
    pub theme: Arc<Theme>,
    pub fold_lines: usize,
    /// The key that unfolds a folded observation, as the fold marker names it.
    pub unfold_key: String,
    /// The trajectory's diffs, computed by the first diff page built and kept.
    pub analysis: AnalysisCell,
    /// The gold patch of the trajectory's instance, with `--dataset`.
    pub gold: Option<Arc<str>>,
}

impl std::fmt::Debug for DocRequest {
    /// The key says which document; the trajectory and theme would only bury it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocRequest")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// Screen rows, and where each source line of each step field begins (for search jumps).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    pub lines: Vec<Line<'static>>,
    anchors: Vec<(Field, Vec<u32>)>,
}

impl Document {
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The first row of line `line` of `field`. Lines hidden in a fold map to the fold marker.
    pub fn row_of(&self, field: Field, line: usize) -> Option<usize> {
        let (_, rows) = self.anchors.iter().find(|(f, _)| *f == field)?;
        rows.get(line).or(rows.last()).map(|&r| r as usize)
    }
}

/// How much work a build does.
#[derive(Debug, Clone, Copy)]
pub struct Mode {
    /// Syntax-highlight code; off for the instant preview.
    pub highlight: bool,
    /// Stop after this many rows (the preview only needs what is visible).
    pub max_rows: Option<usize>,
}

impl Mode {
    pub const FULL: Mode = Mode {
        highlight: true,
        max_rows: None,
    };

    pub fn preview(rows: usize) -> Mode {
        Mode {
            highlight: false,
            max_rows: Some(rows),
        }
    }
}

/// Builds the document for `request`; `None` when `cancel` was set before it finished.
pub fn build(request: &DocRequest, mode: Mode, cancel: &AtomicBool) -> Option<Document> {
    let mut writer = Writer::new(usize::from(request.key.width), mode.max_rows);
    let theme = &request.theme;
    let one;
    let trajectory = match &request.trajectory.lazy {
        Some(lazy) if request.key.page.per_step() => {
            let step = request.key.step;
            if matches!(request.key.page, Page::Diff | Page::Tree) {
                lazy::no_diffs(
                    &mut writer,
                    theme,
                    lazy.file_size(),
                    &request.trajectory,
                    step,
                );
                return Some(writer.finish());
            }
            if mode.max_rows.is_some() {
                // The preview runs on the UI thread, which never reads files.
                lazy::reading(&mut writer, theme, step);
                return Some(writer.finish());
            }
            match request.trajectory.load_step(step) {
                Ok(loaded) => {
                    one = loaded;
                    &one
                }
                Err(message) => {
                    lazy::failed(&mut writer, theme, &message);
                    return Some(writer.finish());
                }
            }
        }
        _ => &request.trajectory,
    };
    match request.key.page {
        Page::Step => {
            let step = trajectory.step(request.key.step)?;
            let fold = (!request.key.unfolded).then_some(request.fold_lines);
            let unfold = &request.unfold_key;
            step::write(
                &mut writer,
                trajectory,
                step,
                theme,
                fold,
                unfold,
                mode,
                cancel,
            )?;
        }
        Page::Context => {
            let step = trajectory.step(request.key.step)?;
            context::write(&mut writer, trajectory, step, theme, cancel)?;
        }
        Page::Patch => patch::write(&mut writer, trajectory, theme, cancel)?,
        Page::Task => task::write(&mut writer, trajectory, theme),
        Page::Diff | Page::Tree => {
            // The preview runs on the UI thread: it never starts the (linear) analysis.
            let analysis = match mode.max_rows {
                Some(_) => request.analysis.get(),
                None => Some(request.analysis.get_or_init(|| Analysis::of(trajectory))),
            };
            let Some(analysis) = analysis else {
                analysis::computing(&mut writer, theme);
                return Some(writer.finish());
            };
            let step = request.key.step;
            if request.key.page == Page::Diff {
                edits::write(&mut writer, trajectory, analysis, step, theme, mode, cancel)?;
            } else {
                // Not in the preview: it reads every step's tree.
                if let Some(gold) = request.gold.as_deref().filter(|_| mode.max_rows.is_none()) {
                    gold::write(&mut writer, trajectory, analysis, gold, step, theme);
                }
                tree::write(&mut writer, analysis, step, theme, mode, cancel)?;
            }
        }
    }
    Some(writer.finish())
}

/// Checks the cancel flag every this many lines.
const CANCEL_EVERY: usize = 256;

fn cancelled(cancel: &AtomicBool, line: usize) -> bool {
    line.is_multiple_of(CANCEL_EVERY) && cancel.load(std::sync::atomic::Ordering::Relaxed)
}
